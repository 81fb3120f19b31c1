package main

import (
	"os"
	"testing"
)

// Without TF_LOG or TF_LOG_PROVIDER, Terraform drops a provider's logs, so
// the provider does not write them: its own and the SDK's loggers are off.
// Any log setting of the user's leaves every setting as it was.
func TestLogsAreOffOnlyWhereTerraformDropsThem(t *testing.T) {
	for _, set := range append([]string{""}, logSettings...) {
		t.Run("set:"+set, func(t *testing.T) {
			for _, name := range logSettings {
				t.Setenv(name, "")
			}
			if set != "" {
				t.Setenv(set, "debug")
			}
			quietWhenTerraformDropsLogs(false)
			for _, name := range logSettings {
				want := ""
				switch {
				case name == set:
					want = "debug"
				case set == "" && name != "TF_LOG" && name != "TF_LOG_PROVIDER":
					want = "off"
				}
				if got := os.Getenv(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

// Under a debugger the provider runs on its own and its logs are the
// developer's: nothing is turned off.
func TestLogsStayOnUnderADebugger(t *testing.T) {
	for _, name := range logSettings {
		t.Setenv(name, "")
	}
	quietWhenTerraformDropsLogs(true)
	for _, name := range logSettings {
		if got := os.Getenv(name); got != "" {
			t.Errorf("%s = %q under -debug, want it left unset", name, got)
		}
	}
}
