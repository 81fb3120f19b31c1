package apispec

import (
	"net/http"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
)

// Code that is written from the reference, or declares what the reference
// says, checked against it.

// The list of Better Auth settings says what the reference says of each:
// its path, whether GET reads it, how it is written, and whether
// GET …/auth/plugins carries it.
func TestTheBetterAuthSettingsAreTheReferences(t *testing.T) {
	doc, err := Document()
	if err != nil {
		t.Fatal(err)
	}
	bundle := doc.Components.Schemas["NeonAuthPluginConfigs"].Value.Properties
	for _, s := range betterauth.Settings {
		item := doc.Paths.Find(BranchAuthPath + s.Path)
		if item == nil {
			t.Errorf("%s: the reference has no path %s", s.Name, BranchAuthPath+s.Path)
			continue
		}
		if got := item.Get != nil; got != s.Read {
			t.Errorf("%s: GET %s exists: %v, the list says %v", s.Name, s.Path, got, s.Read)
		}
		write := map[string]bool{http.MethodPatch: item.Patch != nil, http.MethodPut: item.Put != nil}
		if !write[s.Write] || write[http.MethodPatch] && write[http.MethodPut] {
			t.Errorf("%s: written with %s, the reference has PATCH %v, PUT %v", s.Name, s.Write, write[http.MethodPatch], write[http.MethodPut])
		}
		if _, got := bundle[s.Name]; got != s.Bundled {
			t.Errorf("%s: in GET …/auth/plugins: %v, the list says %v", s.Name, got, s.Bundled)
		}
	}
}
