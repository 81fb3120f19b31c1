package apispec

import (
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

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

// Package neonapi has the types of every operation the emulator serves:
// the operations of its configuration are the ones of the emulator's
// routes.
func TestTheGeneratedTypesCoverEveryServedOperation(t *testing.T) {
	doc, err := Document()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile("neonapi/oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	generated := regexp.MustCompile(`(?m)^    - (\w+)$`).FindAllStringSubmatch(string(cfg), -1)
	listed, err := SettingsOperationIDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range generated {
		listed = append(listed, m[1])
	}
	router, err := os.ReadFile("../emulator/router.go")
	if err != nil {
		t.Fatal(err)
	}
	served := servedOperations(t, doc.Paths.Map(), string(router))
	slices.Sort(listed)
	if !slices.Equal(listed, served) {
		t.Errorf("oapi-codegen.yaml lists\n  %s\nthe emulator serves\n  %s", strings.Join(listed, " "), strings.Join(served, " "))
	}
}

// servedOperations are the operation ids of the routes router.go declares
// with rt.handle, and of the settings routes it derives from
// betterauth.Settings, sorted.
func servedOperations(t *testing.T, paths map[string]*openapi3.PathItem, router string) []string {
	t.Helper()
	consts := map[string]string{}
	for _, m := range regexp.MustCompile(`const (\w+) = "([^"]+)"`).FindAllStringSubmatch(router, -1) {
		consts[m[1]] = m[2]
	}
	var ops []string
	handle := regexp.MustCompile(`rt\.handle\(http\.Method(\w+),\s*((?:\w+\s*\+\s*)?"[^"]*"|\w+)`)
	for _, m := range handle.FindAllStringSubmatch(router, -1) {
		path := ""
		for _, part := range regexp.MustCompile(`\s*\+\s*`).Split(m[2], -1) {
			if strings.HasPrefix(part, `"`) {
				path += strings.Trim(part, `"`)
			} else {
				path += consts[part]
			}
		}
		item := paths[path]
		if item == nil || item.GetOperation(strings.ToUpper(m[1])) == nil {
			t.Errorf("the emulator serves %s %s, which the reference does not have", strings.ToUpper(m[1]), path)
			continue
		}
		ops = append(ops, item.GetOperation(strings.ToUpper(m[1])).OperationID)
	}
	// The settings routes router.go derives from betterauth.Settings
	// (rt.handleSettings): GET where a setting is read, and its write.
	if strings.Contains(router, "rt.handleSettings()") {
		for _, s := range betterauth.Settings {
			methods := []string{s.Write}
			if s.Read {
				methods = append(methods, http.MethodGet)
			}
			for _, method := range methods {
				path := BranchAuthPath + s.Path
				if item := paths[path]; item != nil && item.GetOperation(method) != nil {
					ops = append(ops, item.GetOperation(method).OperationID)
				} else {
					t.Errorf("the emulator serves %s %s (setting %s), which the reference does not have", method, path, s.Name)
				}
			}
		}
	}
	if len(ops) < 60 {
		t.Fatalf("found %d routes in router.go; the pattern no longer matches how routes are declared", len(ops))
	}
	slices.Sort(ops)
	return slices.Compact(ops)
}
