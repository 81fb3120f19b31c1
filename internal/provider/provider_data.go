package provider

import (
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// What Configure hands to every type: the Neon Auth service, and what one
// plan remembers across resources.

// providerData is what Configure hands to every resource, data source, list
// resource and action: the Neon Auth service of the provider's
// configuration (its API client, family and shared reads), whether destroy
// restores what a create took over (restore_on_destroy), and the whitelist
// claims of the plan. While a provider argument is unknown it holds no
// service, only the name of that argument (pending).
type providerData struct {
	auth    *neonauth.Service
	restore bool
	pending string
	claims  whitelistClaims
}

// whitelistClaims remembers, for the life of the provider process (one
// plan), which resource types manage the whitelist of each branch, so that
// neon_auth_domains and neon_auth_domain on the same branch are noticed.
type whitelistClaims struct {
	mu     sync.Mutex
	byType map[string]map[typeName]bool // branch key → resource types
}

// providerDataFrom unpacks what Configure handed over. nil ProviderData is
// normal before Configure (validation) and yields nil without a diagnostic.
func providerDataFrom(handed any, diags *diag.Diagnostics) *providerData {
	if handed == nil {
		return nil
	}
	pd, ok := handed.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data",
			fmt.Sprintf("Expected *providerData, got %T. This is a bug in the provider; please report it.", handed))
		return nil
	}
	return pd
}

// ready reports whether d holds a service: false before Configure
// (validation), while a provider argument is unknown, or for a type
// Configure did not hand its data.
func (d *providerData) ready() bool { return d != nil && d.auth != nil }
