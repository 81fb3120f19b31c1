package acctest

import (
	"testing"

	"github.com/hashicorp/go-version"
)

func TestUnitCapabilityByCLI(t *testing.T) {
	v := func(s string) *version.Version { return version.Must(version.NewVersion(s)) }
	for _, tc := range []struct {
		c        Capability
		openTofu bool
		version  string
		skip     bool
	}{
		{EphemeralVariables, false, "1.10.0", false},
		{EphemeralVariables, false, "1.9.8", true},
		{EphemeralVariables, true, "1.10.7", true},
		{EphemeralVariables, true, "1.11.0", false},
		{WriteOnlyArguments, false, "1.10.5", true},
		{WriteOnlyArguments, false, "1.11.0-rc1", false},
		{WriteOnlyArguments, true, "1.10.7-dev", true},
		{WriteOnlyArguments, true, "1.12.6", false},
		{ProviderFunctions, false, "1.7.5", true},
		{ProviderFunctions, false, "1.8.0", false},
		{ProviderFunctions, true, "1.7.0", false},
		{ProviderFunctions, true, "1.6.2", true},
		{ResourceIdentity, false, "1.11.4", true},
		{ResourceIdentity, false, "1.12.0", false},
		{ResourceIdentity, true, "1.10.7", true},
		{ResourceIdentity, true, "1.12.6", false},
		{ListResources, false, "1.13.5", true},
		{ListResources, false, "1.14.0", false},
		{ListResources, true, "1.12.6", true},
	} {
		got := tc.c.missing(tc.openTofu, v(tc.version))
		if (got != "") != tc.skip {
			t.Errorf("%s on version %s (OpenTofu: %t): skip reason %q, want skip %t", tc.c.Name, tc.version, tc.openTofu, got, tc.skip)
		}
	}
	if got := EphemeralVariables.missing(true, v("1.10.7")); got != "OpenTofu 1.10.7 lacks ephemeral input variables (OpenTofu 1.11.0 or later): skipping test" {
		t.Errorf("skip reason %q", got)
	}
}
