package acctest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
	"github.com/neon-auth/terraform-provider-neon/internal/neonauth"
)

// The list-backed resource types under test (one object among many on a
// branch), each described once, for the provider's tests and the random
// walks.

// ListedCase is one list-backed resource type under test: its name, how
// its objects are declared, and how the public API makes, changes and
// shows them. The identity, query, scenario, inheritance and
// every-resource-type tests of internal/provider and the random walks read
// their rows from here, so a new list-backed type adds a row (and its own
// auth_<name>_resource_test.go), not a block in each.
type ListedCase struct {
	TypeName string
	// Kind is the type's kind in the random walks (internal/walk).
	Kind string
	// KeyAttribute is the argument that names an object on its branch, and
	// its identity's attribute beside the scope.
	KeyAttribute string
	// Canonical is a key as the API stores it (and ids, identities and the
	// query name it); nil: keys are stored as written.
	Canonical func(key string) string
	// Variants are the ways to declare an object, each with what the API
	// then holds of it; variant 0 is the one with the fewest arguments.
	Variants []ListedVariant
	// Replaces reports whether declaring variant to instead of from
	// replaces the object; nil: never.
	Replaces func(from, to int) bool
	// Written is a key as a configuration may write it (otherwise than the
	// API stores it where the API allows that): the object the identity
	// tests declare, and, canonical, the one the scenarios create.
	Written string
	// Found are the objects a person made on a branch outside Terraform,
	// which `terraform query` finds and the import tests import.
	Found []ListedObject
	// Declared are the objects the configuration of every resource type
	// declares on a Better Auth branch (testdata/every_resource_type.tf.tmpl);
	// the first one on a Stack Auth production branch.
	Declared []ListedObject
	// Inherited are the objects the fully configured production branch of
	// the inheritance tests has beyond its example's, which a preview made
	// from it takes over, with the warning each take-over shows.
	Inherited []InheritedObject
	// Keys are the keys the random walks draw from.
	Keys []string
	// Conflict is the sentence (%[1]s the key) of the refusal of a create
	// that finds its object on a root branch; "": such an object is taken
	// over wherever it is found.
	Conflict string
	// Path is its list under …/auth, which its create POSTs to and a
	// refresh reads; Bundled: in branch mode the list is read through the
	// Better Auth bundle (GET …/auth/plugins) instead.
	Path    string
	Bundled bool
	// BranchOnly: only the branch-scoped API has it; project mode refuses
	// it at plan.
	BranchOnly bool
	// Whole is the resource type that manages every object of the list at
	// once ("": none); one configuration holds either kind, not both.
	Whole string
	// Put makes the object of a key on a scope through the public API, as
	// the console would, with the fields Stored would hold of it (see Make).
	Put func(c *apiclient.Client, s apiclient.Scope, key string, stored Fields) error
	// Remove deletes an object of a scope behind Terraform's back.
	Remove func(c *apiclient.Client, s apiclient.Scope, key string) error
	// Read is what the public API lists of a scope's objects, by canonical
	// key.
	Read func(c *apiclient.Client, s apiclient.Scope) (map[string]Fields, error)
	// Stored is what the in-process emulator holds of the objects of a
	// project's production branch, by key, with what no endpoint returns
	// (a secret); nil: nothing more than Read shows.
	Stored func(emu *emulator.Emulator, projectID string) map[string]Fields
}

// ListedVariant is one way to declare an object: its arguments after the
// scope, one per line (%[1]q or %[1]s is the object's key), what Read then
// shows of it (fields named as the resource's attributes, which its state
// holds too) and what Stored holds, as JSON objects (with %[1]s the key
// too).
type ListedVariant struct {
	Args, Fields, Stored string
	// Secret is a secret the arguments carry: no output may show it.
	Secret string
}

// ListedObject is an object of a list-backed type: its key and the variant
// it is declared or made as.
type ListedObject struct {
	Key     string
	Variant int
}

// InheritedObject is an object a preview inherits, and the warning its
// take-over shows.
type InheritedObject struct {
	ListedObject
	Warning string
}

// Fields are an object's fields as the API names them, decoded from JSON.
type Fields map[string]any

// Key is the key as the API stores it.
func (c ListedCase) Key(key string) string {
	if c.Canonical == nil {
		return key
	}
	return c.Canonical(key)
}

// Args are the arguments of an object, one per string.
func (c ListedCase) Args(o ListedObject) []string {
	return strings.Split(WithKey(c.Variants[o.Variant].Args, o.Key), "\n")
}

// FieldsOf is what Read shows of an object (stored: what Stored holds).
func (c ListedCase) FieldsOf(o ListedObject, stored bool) Fields {
	text := c.Variants[o.Variant].Fields
	if stored {
		text = c.Variants[o.Variant].Stored
	}
	f := Fields{}
	if text != "" {
		if err := json.Unmarshal([]byte(WithKey(text, o.Key)), &f); err != nil {
			panic(fmt.Sprintf("acctest.ListedCases %s variant %d: %v", c.TypeName, o.Variant, err))
		}
	}
	return f
}

// ListedIn are the rows of the types that the API family of mode has.
func ListedIn(mode string) []ListedCase {
	var in []ListedCase
	for _, c := range ListedCases {
		if mode == ModeBranch || !c.BranchOnly {
			in = append(in, c)
		}
	}
	return in
}

// Make makes an object on a scope through the public API.
func (c ListedCase) Make(client *apiclient.Client, s apiclient.Scope, o ListedObject) error {
	return c.Put(client, s, o.Key, c.FieldsOf(o, true))
}

// ResourceName is a resource name for the object of a key.
func ResourceName(key string) string {
	n := strings.NewReplacer("https://", "", "://", "_", "*", "star", ".", "_", "/", "_", "-", "_").Replace(strings.ToLower(key))
	return strings.Trim(n, "_")
}

// WithKey is a text with %[1]s (or %[1]q) the key.
func WithKey(text, key string) string {
	if !strings.Contains(text, "%[1]") {
		return text
	}
	return fmt.Sprintf(text, key)
}

// Listed is the row of a type; it fails the test run when there is none.
func Listed(typeName string) ListedCase {
	for _, c := range ListedCases {
		if c.TypeName == typeName {
			return c
		}
	}
	panic("acctest.ListedCases has no row of " + typeName)
}

var ListedCases = []ListedCase{
	{
		TypeName: "neon_auth_domain", Kind: "domain", KeyAttribute: "domain", Whole: "neon_auth_domains",
		Canonical: canonicalOrigin,
		Variants:  []ListedVariant{{Args: `domain = %[1]q`}},
		Written:   "HTTPS://App.Example.com/",
		Found:     []ListedObject{{Key: "https://app.example.com"}, {Key: "https://Admin.example.com/"}},
		Declared:  []ListedObject{{Key: "https://app.example.com"}, {Key: "https://admin.example.com"}},
		Keys: []string{"https://app.walk.example.com", "https://www.walk.example.com", "https://*.preview.walk.example.com",
			"walkapp://callback", PreviewOrigin},
		Path: "domains",
		Put:  putDomain,
		Remove: func(c *apiclient.Client, s apiclient.Scope, key string) error {
			return c.DeleteDomains(context.Background(), s, neonauth.DefaultAuthProvider(s.Family), []string{key})
		},
		Read: func(c *apiclient.Client, s apiclient.Scope) (map[string]Fields, error) {
			ds, err := c.ListDomains(context.Background(), s)
			out := map[string]Fields{}
			for _, d := range ds {
				out[canonicalOrigin(d.Domain)] = Fields{}
			}
			return out, err
		},
	},
	{
		TypeName: "neon_auth_oauth_provider", Kind: "oauth", KeyAttribute: "provider_id",
		Variants: []ListedVariant{
			{Args: `provider_id = %[1]q`, Fields: `{"type": "shared"}`, Stored: `{"type": "shared"}`},
			{Args: "provider_id   = %[1]q\nclient_id     = \"%[1]s-app\"\nclient_secret = \"oauth-secret-1\"", Fields: `{"type": "standard"}`,
				Stored: `{"type": "standard", "client_id": "%[1]s-app", "client_secret": "oauth-secret-1"}`, Secret: "oauth-secret-1"},
			{Args: "provider_id   = %[1]q\nclient_id     = \"%[1]s-app\"\nclient_secret = \"oauth-secret-2\"", Fields: `{"type": "standard"}`,
				Stored: `{"type": "standard", "client_id": "%[1]s-app", "client_secret": "oauth-secret-2"}`, Secret: "oauth-secret-2"},
		},
		// Removing the credentials of an own app replaces it: the API
		// cannot make a standard provider shared in place.
		Replaces:  func(from, to int) bool { return from != 0 && to == 0 },
		Written:   "google",
		Found:     []ListedObject{{Key: "google"}},
		Declared:  []ListedObject{{Key: "github"}, {Key: "google", Variant: 1}},
		Inherited: []InheritedObject{{ListedObject{Key: "github"}, "Inherited github OAuth provider (type shared) taken over"}},
		Keys:      []string{"google", "github"},
		Conflict:  "already has the %[1]s OAuth provider", Path: "oauth_providers", Bundled: true,
		Put: func(c *apiclient.Client, s apiclient.Scope, key string, stored Fields) error {
			req := apiclient.AddOAuthProviderRequest{ID: neonapi.NeonAuthOauthProviderID(key)}
			if id, ok := stored["client_id"].(string); ok {
				req.ClientID, req.ClientSecret = &id, apiclient.Ptr(fmt.Sprint(stored["client_secret"]))
			}
			_, err := c.AddOAuthProvider(context.Background(), s, req)
			return err
		},
		Remove: func(c *apiclient.Client, s apiclient.Scope, key string) error {
			return c.DeleteOAuthProvider(context.Background(), s, key)
		},
		Read: func(c *apiclient.Client, s apiclient.Scope) (map[string]Fields, error) {
			ps, err := c.ListOAuthProviders(context.Background(), s)
			out := map[string]Fields{}
			for _, p := range ps {
				out[string(p.ID)] = Fields{"type": string(p.Type)}
			}
			return out, err
		},
		Stored: func(emu *emulator.Emulator, projectID string) map[string]Fields {
			out := map[string]Fields{}
			for _, p := range emu.OAuthProviders(projectID) {
				out[p.ID] = Fields{"type": p.Type, "client_id": p.ClientID, "client_secret": p.ClientSecret}
			}
			return out
		},
	},
}

// canonicalOrigin is an origin as the API stores it; as written where it
// is none.
func canonicalOrigin(key string) string {
	if c, err := apiclient.CanonicalOrigin(key); err == nil {
		return c
	}
	return key
}

// putDomain whitelists a domain, written as given. Whether the API accepts
// an origin written with upper case or a trailing slash is open (Neon's docs
// say to write it without a slash); when it refuses one (a 4xx other than
// 409 and 429), the canonical spelling is planted instead, since what a test
// is about is the domain, not the spelling.
func putDomain(c *apiclient.Client, s apiclient.Scope, key string, _ Fields) error {
	add := func(d string) error {
		_, err := c.AddDomain(context.Background(), s,
			apiclient.AddDomainRequest{Domain: d, AuthProvider: neonapi.NeonAuthSupportedAuthProvider(neonauth.DefaultAuthProvider(s.Family))})
		return err
	}
	err := add(key)
	canonical, cerr := apiclient.CanonicalOrigin(key)
	var apiErr *apiclient.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode/100 == 4 && apiErr.StatusCode != http.StatusConflict &&
		apiErr.StatusCode != http.StatusTooManyRequests && cerr == nil && canonical != key {
		return add(canonical)
	}
	return err
}

// ExpectListed checks that the test's branch lists exactly the objects of
// want, each with the fields its variant shows.
func (e *Env) ExpectListed(c ListedCase, want ...ListedObject) APICheck {
	return func() error {
		got, err := c.Read(e.Client(), e.Scope())
		if err != nil {
			return err
		}
		if !holds(c, got, want, false) {
			return fmt.Errorf("the branch lists the %s objects %v, want %v", c.TypeName, got, want)
		}
		return nil
	}
}

// ExpectStored checks that the in-process emulator holds exactly the
// objects of want on the production branch of the test's project, each with
// the fields its variant stores, those no endpoint returns too (a type
// without Stored: what Read shows).
func (e *Env) ExpectStored(c ListedCase, want ...ListedObject) APICheck {
	if c.Stored == nil {
		return e.ExpectListed(c, want...)
	}
	return func() error {
		if got := c.Stored(e.Emu, e.ProjectID); !holds(c, got, want, true) {
			// Only the keys: the fields may hold a secret.
			return fmt.Errorf("the emulator holds %d %s objects (%v), want exactly %v with the fields their variants store",
				len(got), c.TypeName, slices.Sorted(maps.Keys(got)), want)
		}
		return nil
	}
}

// holds reports whether got are exactly the objects of want, each with at
// least the fields its variant shows (stored: stores).
func holds(c ListedCase, got map[string]Fields, want []ListedObject, stored bool) bool {
	if len(got) != len(want) {
		return false
	}
	for _, o := range want {
		f, ok := got[c.Key(o.Key)]
		if !ok {
			return false
		}
		for name, v := range c.FieldsOf(o, stored) {
			if fmt.Sprint(f[name]) != fmt.Sprint(v) {
				return false
			}
		}
	}
	return true
}
