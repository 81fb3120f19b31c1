package walk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// The kinds of object a walk declares, each described once: how it is
// written, what the public API shows of it, how a person changes it behind
// Terraform's back and how something makes it outside Terraform. A type the
// walk should cover gets an entry here (the list-backed kinds come from
// acctest.ListedCases, the settings kinds from acctest.SettingsCases) and,
// where the provider's rules for it differ, a line in rules_test.go.

// The kinds' names: a walkObject's Kind. A list-backed kind's is the Kind of
// its row of acctest.ListedCases.
const (
	kindIntegration = "integration"
	kindDomain      = "domain"
	kindWhitelist   = "whitelist" // the domains as one neon_auth_domains
	kindOAuth       = "oauth"
	kindEmail       = "email_server"
	kindUser        = "user"
	kindDataAPI     = "data_api"
	kindJWKS        = "jwks"
	kindSDKKeys     = "sdk_keys"
	kindTransfer    = "ownership_transfer"
)

// walkFields are an object's fields as the public API shows them, decoded
// from JSON.
type walkFields map[string]any

// walkVariant is one way to declare an object: its arguments after the
// scope (%[1]s is the object's key) and the fields the API then shows.
type walkVariant struct {
	args   string
	fields string
	// secret is a secret the arguments carry: no output may show it.
	secret string
	// family: only in this auth_api ("" in both).
	family string
}

// walkKind is a kind of object.
type walkKind struct {
	typeName string
	// keys are the keys the walk draws from; nil for a singleton of its
	// branch (key "").
	keys []string
	// name is the resource name of the object of a key.
	name func(key string) string
	// variants are the ways the walk declares it.
	variants []walkVariant
	// family: only in this auth_api ("" in both).
	family string
	// inAuth: the object is part of a branch's Neon Auth, gone with it.
	inAuth bool
	// listed: one object among many on its branch (acctest.ListedCases):
	// its import id ends with its key, and its drift removes it.
	listed bool
	// keepsOmitted: a field the configuration leaves out keeps the value
	// the object had (the settings).
	keepsOmitted bool
	// read is what the branch holds of the kind, by key; nil: the kind
	// cannot be read (users, SDK keys).
	read func(r *walkRun, b *walkBranch) (map[string]walkFields, error)
	// drift changes the object behind Terraform's back so that the next
	// plan shows it; nil: no change the API shows.
	drift func(r *walkRun, b *walkBranch, o walkObject) error
	// outside makes the object on the branch outside Terraform and answers
	// its import id; nil: never imported by the walk.
	outside func(r *walkRun, b *walkBranch, o walkObject) (string, error)
	// replaces reports whether declaring variant to instead of from
	// replaces the object; nil: never.
	replaces func(from, to int) bool
}

// inFamily reports whether o may be declared in an auth_api.
func (k walkKind) inFamily(o walkObject, family string) bool {
	if k.family != "" && k.family != family {
		return false
	}
	return len(k.variants) == 0 || k.variants[o.Variant].family == "" || k.variants[o.Variant].family == family
}

func (k walkKind) resourceName(key string) string {
	if k.name == nil {
		return "this"
	}
	return k.name(key)
}

// argsOf are the arguments of a declared object.
func (k walkKind) argsOf(o walkObject) string {
	if len(k.variants) == 0 {
		return ""
	}
	return withKey(k.variants[o.Variant].args, o.Key)
}

// withKey is a variant's text with %[1]s (or %[1]q) the object's key.
func withKey(text, key string) string {
	if !strings.Contains(text, "%[1]") {
		return text
	}
	return fmt.Sprintf(text, key)
}

// fieldsOf are the fields the API shows of a declared object.
func (k walkKind) fieldsOf(o walkObject) walkFields {
	f := walkFields{}
	if len(k.variants) > 0 && k.variants[o.Variant].fields != "" {
		if err := json.Unmarshal([]byte(withKey(k.variants[o.Variant].fields, o.Key)), &f); err != nil {
			panic(fmt.Sprintf("the walk's %s variant %d: %v", k.typeName, o.Variant, err))
		}
	}
	return f
}

// Origins the walk whitelists: the preview's own is the one a platform
// puts on a preview branch.
var walkDomains = acctest.Listed("neon_auth_domain").Keys

// walkEmails are the users' emails.
var walkEmails = []string{"ana@walk.example.com", "bo@walk.example.com", "cy@walk.example.com"}

// walkJWKS are published key sets: Neon fetches a JWKS URL when it is
// added.
var walkJWKS = []string{"https://www.googleapis.com/oauth2/v3/certs", "https://login.microsoftonline.com/common/discovery/v2.0/keys"}

// walkKinds are the kinds of object the walk declares, by name.
var walkKinds = func() map[string]walkKind {
	kinds := map[string]walkKind{
		kindIntegration: {
			typeName: "neon_auth_integration", inAuth: true,
			variants: []walkVariant{
				{},
				{args: `name = "Walk app"`, fields: `{"name": "Walk app"}`, family: acctest.ModeBranch},
				{args: "name            = \"Walk app (renamed)\"\nallow_localhost = true", fields: `{"name": "Walk app (renamed)", "allow_localhost": true}`,
					family: acctest.ModeBranch},
			},
			read: readIntegration,
			outside: func(r *walkRun, b *walkBranch, _ walkObject) (string, error) {
				_, err := r.env.Client().CreateIntegration(context.Background(), r.scope(b), apiclient.CreateIntegrationRequest{AuthProvider: r.authProvider(b)})
				return r.branchObjectID(b, r.authProvider(b)), err
			},
			drift: func(r *walkRun, b *walkBranch, o walkObject) error {
				if o.Variant == 0 {
					return errNoDrift
				}
				_, err := r.env.Client().SetIntegrationName(context.Background(), r.scope(b), "Renamed outside")
				return err
			},
		},
		kindWhitelist: {typeName: "neon_auth_domains", inAuth: true},
		kindEmail: {
			typeName: "neon_auth_email_server", inAuth: true,
			variants: []walkVariant{
				{args: `type = "shared"`, fields: `{"type": "shared"}`},
				{args: walkSMTP("smtp.walk.example.com", "Walk", "walk-smtp-secret-1"), secret: "walk-smtp-secret-1",
					fields: `{"type": "standard", "host": "smtp.walk.example.com", "port": 587, "username": "mailer", "sender_email": "noreply@walk.example.com", "sender_name": "Walk"}`},
				{args: walkSMTP("mail.walk.example.com", "Walk mail", "walk-smtp-secret-2"), secret: "walk-smtp-secret-2",
					fields: `{"type": "standard", "host": "mail.walk.example.com", "port": 587, "username": "mailer", "sender_email": "noreply@walk.example.com", "sender_name": "Walk mail"}`},
			},
			read: readEmailServer,
			drift: func(r *walkRun, b *walkBranch, o walkObject) error {
				_, err := r.env.Client().UpdateEmailServer(context.Background(), r.scope(b), apiclient.StandardEmailServer(apiclient.SMTP{
					Host: "smtp.outside.example.com", Port: 2525, Username: "outsider", Password: "walk-outside-secret",
					SenderEmail: "outside@example.com", SenderName: "Changed outside"}))
				return err
			},
			outside: func(r *walkRun, b *walkBranch, _ walkObject) (string, error) {
				_, err := r.env.Client().UpdateEmailServer(context.Background(), r.scope(b), apiclient.SharedEmailServer())
				return r.branchObjectID(b), err
			},
		},
		kindUser: {
			typeName: "neon_auth_user", keys: walkEmails, inAuth: true,
			name: func(k string) string { return strings.TrimSuffix(k, "@walk.example.com") },
			variants: []walkVariant{
				{args: "email = %[1]q\nname  = \"Walk user\""},
				{args: "email = %[1]q\nname  = \"Walk user\"\nroles = [\"admin\"]", family: acctest.ModeBranch},
			},
			outside: func(r *walkRun, b *walkBranch, o walkObject) (string, error) {
				u, err := r.env.Client().CreateUser(context.Background(), r.scope(b),
					apiclient.CreateUserRequest{AuthProvider: r.authProvider(b), Email: o.Key, Name: "Walk user"})
				if err != nil {
					return "", err
				}
				return r.branchObjectID(b, u.ID), nil
			},
		},
		kindDataAPI: {
			typeName: "neon_auth_data_api", keys: []string{"neondb"}, name: func(k string) string { return k }, family: acctest.ModeBranch,
			variants: []walkVariant{
				{args: "database_name = %[1]q\nauth_provider = \"neon_auth\"\nsettings = {\n  db_max_rows = 100\n}", fields: `{"db_max_rows": 100}`},
				{args: "database_name = %[1]q\nauth_provider = \"neon_auth\"\nsettings = {\n  db_max_rows           = 500\n  server_timing_enabled = true\n}",
					fields: `{"db_max_rows": 500, "server_timing_enabled": true}`},
			},
			read: readDataAPI,
			drift: func(r *walkRun, b *walkBranch, o walkObject) error {
				ref := apiclient.DataAPIRef{ProjectID: r.env.ProjectID, BranchID: b.id, DatabaseName: o.Key}
				api, err := r.env.Client().GetDataAPI(context.Background(), ref)
				if err != nil {
					return err
				}
				var set apiclient.DataAPISettings
				if api.Settings != nil {
					set = *api.Settings
				}
				set.DBMaxRows = apiclient.Ptr(7)
				return r.env.Client().UpdateDataAPI(context.Background(), ref, set)
			},
		},
		kindJWKS: {
			typeName: "neon_auth_external_jwks", keys: walkJWKS, family: acctest.ModeBranch,
			name: func(k string) string {
				if strings.Contains(k, "google") {
					return "google"
				}
				return "microsoft"
			},
			variants: []walkVariant{{args: "jwks_url      = %[1]q\nprovider_name = \"Walk IdP\"", fields: `{"provider_name": "Walk IdP"}`}},
			read:     readJWKS,
			drift: func(r *walkRun, b *walkBranch, o walkObject) error {
				all, err := r.env.Client().ListJWKS(context.Background(), r.env.ProjectID)
				if err != nil {
					return err
				}
				for _, j := range all {
					if j.JWKSURL == o.Key && apiclient.Deref(j.BranchID) == b.id {
						return r.env.Client().DeleteJWKS(context.Background(), r.env.ProjectID, j.ID)
					}
				}
				return fmt.Errorf("branch %s has no JWKS %s to delete", b.id, o.Key)
			},
			outside: func(r *walkRun, b *walkBranch, o walkObject) (string, error) {
				added, err := r.env.Client().AddJWKS(context.Background(), r.env.ProjectID,
					apiclient.AddJWKSRequest{JWKSURL: o.Key, ProviderName: "Walk IdP", BranchID: apiclient.Ptr(b.id)})
				if err != nil {
					return "", err
				}
				return r.env.ProjectID + "/" + added.ID, nil
			},
		},
		kindSDKKeys: {
			typeName: "neon_auth_sdk_keys", family: acctest.ModeProject, inAuth: true,
			variants: []walkVariant{{}, {args: "rotation_triggers = {\n  v = \"1\"\n}"}, {args: "rotation_triggers = {\n  v = \"2\"\n}"}},
			replaces: func(from, to int) bool { return from != to },
		},
	}
	// An ownership transfer request: destroy only forgets it (the API
	// cannot cancel one), and no read shows it but its integration's owner.
	kinds[kindTransfer] = walkKind{typeName: "neon_auth_ownership_transfer", family: acctest.ModeProject, inAuth: true}
	for _, c := range acctest.ListedCases {
		kinds[c.Kind] = listedWalkKind(c)
	}
	for _, c := range acctest.SettingsCases {
		kinds[c.TypeName] = settingsWalkKind(c)
	}
	return kinds
}()

// errNoDrift: the object, as declared, has nothing the walk changes.
var errNoDrift = errors.New("nothing to change behind Terraform's back")

// walkSMTP are the arguments of a standard email server.
func walkSMTP(host, sender, password string) string {
	return fmt.Sprintf("type         = \"standard\"\nhost         = %q\nport         = 587\nusername     = \"mailer\"\n"+
		"password     = %q\nsender_email = \"noreply@walk.example.com\"\nsender_name  = %q", host, password, sender)
}

// listedWalkKind is the kind of a list-backed resource, from its row of
// acctest.ListedCases: its variants, what the public API lists of a
// branch, a removal behind Terraform's back as its drift, and an object
// made through the API (its variant 0) as what is made outside Terraform.
func listedWalkKind(c acctest.ListedCase) walkKind {
	variants := make([]walkVariant, len(c.Variants))
	for i, v := range c.Variants {
		variants[i] = walkVariant{args: v.Args, fields: v.Fields, secret: v.Secret}
	}
	family := ""
	if c.BranchOnly {
		family = acctest.ModeBranch
	}
	return walkKind{
		typeName: c.TypeName, keys: c.Keys, name: acctest.ResourceName, inAuth: true, listed: true, variants: variants, replaces: c.Replaces,
		family: family,
		read: func(r *walkRun, b *walkBranch) (map[string]walkFields, error) {
			listed, err := c.Read(r.env.Client(), r.scope(b))
			if err != nil {
				return nil, err
			}
			out := map[string]walkFields{}
			for key, f := range listed {
				out[key] = walkFields(f)
			}
			return out, nil
		},
		drift: func(r *walkRun, b *walkBranch, o walkObject) error {
			return c.Remove(r.env.Client(), r.scope(b), o.Key)
		},
		outside: func(r *walkRun, b *walkBranch, o walkObject) (string, error) {
			return r.branchObjectID(b, o.Key), c.Make(r.env.Client(), r.scope(b), acctest.ListedObject{Key: o.Key})
		},
	}
}

// settingsWalkKind is the kind of a settings resource, from its row of
// acctest.SettingsCases: its create and update arguments are the variants,
// the fields they write (OnUpdate on top of OnCreate) what the API shows,
// and its drift the change made behind Terraform's back.
func settingsWalkKind(c acctest.SettingsCase) walkKind {
	updated := map[string]any{}
	for _, part := range []string{c.OnCreate, c.OnUpdate} {
		var m map[string]any
		if err := json.Unmarshal([]byte(part), &m); err != nil {
			panic(fmt.Sprintf("acctest.SettingsCases %s: %v", c.TypeName, err))
		}
		maps.Copy(updated, m)
	}
	both, err := json.Marshal(updated)
	if err != nil {
		panic(err)
	}
	return walkKind{
		typeName: c.TypeName, family: acctest.ModeBranch, inAuth: true, keepsOmitted: true,
		variants: []walkVariant{{args: c.Create, fields: c.OnCreate}, {args: c.Update, fields: string(both)}},
		read: func(r *walkRun, b *walkBranch) (map[string]walkFields, error) {
			v, err := c.API.Read(r.env, b.id)
			if err != nil {
				return nil, err
			}
			var f walkFields
			if err := json.Unmarshal([]byte(v), &f); err != nil {
				return nil, err
			}
			return map[string]walkFields{"": f}, nil
		},
		drift:   func(r *walkRun, b *walkBranch, _ walkObject) error { return c.API.Patch(r.env, b.id, c.Drift) },
		outside: func(r *walkRun, b *walkBranch, _ walkObject) (string, error) { return r.branchObjectID(b), nil },
	}
}

// readIntegration is the branch's integration: its auth provider, and in
// branch mode its name and allow_localhost.
func readIntegration(r *walkRun, b *walkBranch) (map[string]walkFields, error) {
	ctx, c := context.Background(), r.env.Client()
	its, err := c.ListIntegrations(ctx, r.scope(b))
	if errors.Is(err, apiclient.ErrNotFound) || err == nil && len(its) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f := walkFields{"auth_provider": string(its[0].AuthProvider)}
	if r.world.family == acctest.ModeBranch {
		f["name"] = apiclient.Deref(its[0].Name)
		allow, err := c.GetAllowLocalhost(ctx, r.scope(b))
		if err != nil {
			return nil, err
		}
		f["allow_localhost"] = allow
	}
	return map[string]walkFields{"": f}, nil
}

// readEmailServer is the branch's email server, without its password;
// none when nothing is configured (the documented 404).
func readEmailServer(r *walkRun, b *walkBranch) (map[string]walkFields, error) {
	es, err := r.env.Client().GetEmailServer(context.Background(), r.scope(b))
	if errors.Is(err, apiclient.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	es.Password = nil
	return jsonFields("", es)
}

// readDataAPI is the Data API of the branch's neondb: its settings.
func readDataAPI(r *walkRun, b *walkBranch) (map[string]walkFields, error) {
	api, err := r.env.Client().GetDataAPI(context.Background(), apiclient.DataAPIRef{ProjectID: r.env.ProjectID, BranchID: b.id, DatabaseName: "neondb"})
	if errors.Is(err, apiclient.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return jsonFields("neondb", api.Settings)
}

// readJWKS is the JWKS the project trusts for the branch alone.
func readJWKS(r *walkRun, b *walkBranch) (map[string]walkFields, error) {
	all, err := r.env.Client().ListJWKS(context.Background(), r.env.ProjectID)
	if err != nil {
		return nil, err
	}
	out := map[string]walkFields{}
	for _, j := range all {
		if apiclient.Deref(j.BranchID) == b.id {
			out[j.JWKSURL] = walkFields{"provider_name": j.ProviderName}
		}
	}
	return out, nil
}

// jsonFields is v as the fields of key.
func jsonFields(key string, v any) (map[string]walkFields, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var f walkFields
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	return map[string]walkFields{key: f}, nil
}

// sameFields reports whether got has every field of want, with the same
// value (lists compared as sets: the API keeps no order of events).
func sameFields(got, want walkFields) bool {
	for k, w := range want {
		if !sameValue(got[k], w) {
			return false
		}
	}
	return true
}

// sameObject reports whether two objects of a snapshot are the same, both
// absent or with the same fields.
func sameObject(a, b walkFields) bool {
	return (a == nil) == (b == nil) && (a == nil || sameFields(a, b) && sameFields(b, a))
}

func sameValue(a, b any) bool {
	la, okA := a.([]any)
	lb, okB := b.([]any)
	if okA && okB {
		sa, sb := fmt.Sprint(sortedAny(la)), fmt.Sprint(sortedAny(lb))
		return sa == sb
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func sortedAny(l []any) []string {
	out := make([]string, len(l))
	for i, v := range l {
		out[i] = fmt.Sprint(v)
	}
	slices.Sort(out)
	return out
}
