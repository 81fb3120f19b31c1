// Command terraform-provider-neon serves the Neon auth provider to Terraform.
package main

import (
	"context"
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/neon-auth/terraform-provider-neon/internal/provider"
)

// version is set by goreleaser through -ldflags "-X main.version=...".
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	quietWhenTerraformDropsLogs(debug)

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address:         "registry.terraform.io/neon-auth/neon",
		Debug:           debug,
		ProtocolVersion: 6,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}

// logSettings are the environment variables that set a provider's log
// levels: Terraform's and OpenTofu's own (TF_LOG, TF_LOG_PROVIDER), and the
// plugin SDK's for this provider, its protocol layer and its framework.
var logSettings = []string{"TF_LOG", "TF_LOG_PROVIDER", "TF_LOG_PROVIDER_NEON", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"}

// quietWhenTerraformDropsLogs turns the provider's logs off when none of
// logSettings is set. Terraform (and OpenTofu) show a provider's logs only
// when TF_LOG or TF_LOG_PROVIDER is set in the environment the provider
// inherits, and drop them otherwise; but the plugin SDK logs at TRACE by
// default, a line for every call of every validator and plan modifier,
// which the provider encodes and Terraform decodes only to drop them: on 2
// cores, a fifth of a small apply's time. With any of them set, or under a
// debugger (-debug: the provider runs on its own, and its logs go to its own
// standard error), nothing changes.
func quietWhenTerraformDropsLogs(debug bool) {
	if debug {
		return
	}
	for _, name := range logSettings {
		if os.Getenv(name) != "" {
			return
		}
	}
	for _, name := range logSettings[2:] {
		_ = os.Setenv(name, "off")
	}
}
