package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// The provider's private state: its keys and how values are stored there.

// Private state keys. Values are JSON, as the framework requires.
const (
	// privateAuthProjectID records the auth_provider_project_id of the
	// integration a thing was created under, so that a later Read notices an
	// integration that was deleted and created again (which takes its users
	// and pending transfer with it).
	privateAuthProjectID = "auth_provider_project_id"
	// privateImported marks a user that was imported: its email and name
	// are unknown (null) until the configuration supplies them.
	privateImported = "imported"
	// privatePlatformOwner records owned_by as it was when an ownership
	// transfer was requested: the platform's own value.
	privatePlatformOwner = "platform_owned_by"
)

// privateGetter and privateSetter are the methods of the framework's private
// state data, whose type is internal to the framework.
type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// getPrivateString returns a string stored with setPrivateString; "" when absent.
func getPrivateString(ctx context.Context, p privateGetter, key string, diags *diag.Diagnostics) string {
	raw, d := p.GetKey(ctx, key)
	diags.Append(d...)
	if len(raw) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		diags.AddError("Unreadable private state",
			fmt.Sprintf("The provider's private state key %q holds %q, not a JSON string: %v. This is a bug in the provider; please report it.", key, raw, err))
		return ""
	}
	return s
}

// setPrivateString stores a string as JSON; "" removes the key.
func setPrivateString(ctx context.Context, p privateSetter, key, value string, diags *diag.Diagnostics) {
	var raw []byte
	if value != "" {
		var err error
		if raw, err = json.Marshal(value); err != nil {
			diags.AddError("Unwritable private state", fmt.Sprintf("Encoding the private state key %q: %v. This is a bug in the provider; please report it.", key, err))
			return
		}
	}
	diags.Append(p.SetKey(ctx, key, raw)...)
}
