package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

// Every resource that can be imported has an identity, made of the same
// parts as its import id, and every identity attribute is one that forces
// replacement (identity never changes for an object).
func TestUnitIdentityOfEveryImportableResource(t *testing.T) {
	ctx := context.Background()
	importable := 0
	defer func() {
		// domain, domains, email server, integration, OAuth provider, user,
		// Data API, external JWKS and the five settings types.
		if importable < 13 {
			t.Errorf("%d importable resource types checked, want at least 13", importable)
		}
	}()
	for _, newResource := range New("test")().Resources(ctx) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "neon"}, &meta)
		if _, ok := r.(resource.ResourceWithImportState); !ok {
			continue
		}
		importable++
		withIdentity, ok := r.(resource.ResourceWithIdentity)
		if !ok {
			t.Errorf("%s can be imported but has no identity", meta.TypeName)
			continue
		}
		var id resource.IdentitySchemaResponse
		withIdentity.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &id)
		var sch resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sch)
		names := slices.Sorted(maps.Keys(id.IdentitySchema.Attributes))
		if !slices.Contains(names, "project_id") {
			t.Errorf("%s: identity %v has no project_id", meta.TypeName, names)
		}
		for _, name := range names {
			a, ok := id.IdentitySchema.Attributes[name].(identityschema.StringAttribute)
			if !ok {
				t.Fatalf("%s: identity attribute %s is not a string", meta.TypeName, name)
			}
			if a.Description == "" {
				t.Errorf("%s: identity attribute %s has no description", meta.TypeName, name)
			}
			if name == "project_id" && !a.RequiredForImport {
				t.Errorf("%s: project_id must be required at import", meta.TypeName)
			}
			attr := name
			if name == "user_id" {
				attr = "id"
			}
			sa, ok := sch.Schema.Attributes[attr]
			if !ok {
				t.Errorf("%s: identity attribute %s is no attribute of the resource", meta.TypeName, name)
				continue
			}
			// It cannot change for an object: the API sets it (computed
			// only), or a plan modifier replaces the object when it changes.
			str, isString := sa.(schema.StringAttribute)
			apiSet := isString && str.Computed && !str.Optional && !str.Required
			replaces := isString && slices.ContainsFunc(str.PlanModifiers, func(m planmodifier.String) bool {
				d := strings.ToLower(m.Description(ctx))
				return strings.Contains(d, "replaces the resource") || strings.Contains(d, "destroy and recreate")
			})
			if !apiSet && !replaces {
				t.Errorf("%s: identity attribute %s does not force replacement", meta.TypeName, name)
			}
		}
	}
}

// The import id an identity makes, and what is refused, naming the
// attribute.
func TestUnitImportIDFromIdentity(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		format   importFormat
		identity map[string]string
		want     string // the id, or the error's text
		ok       bool
	}{
		{authDomain.format(), map[string]string{"project_id": "autumn-frost-12345678", "domain": "https://app.example.com"},
			"autumn-frost-12345678/https://app.example.com", true},
		{authDomain.format(), map[string]string{"project_id": "autumn-frost-12345678", "branch_id": "br-quiet-leaf-12345678", "domain": "http://localhost:3000"},
			"autumn-frost-12345678/br-quiet-leaf-12345678/http://localhost:3000", true},
		{authOAuthProvider.format(), map[string]string{"project_id": "autumn-frost-12345678", "provider_id": "google"}, "autumn-frost-12345678/google", true},
		{userImport, map[string]string{"project_id": "autumn-frost-12345678", "user_id": "u-1"}, "autumn-frost-12345678/u-1", true},
		{integrationImport, map[string]string{"project_id": "autumn-frost-12345678"}, "autumn-frost-12345678", true},
		{integrationImport, map[string]string{"project_id": "autumn-frost-12345678", "auth_provider": "stack"}, "autumn-frost-12345678/stack", true},
		{emailImport, map[string]string{"project_id": "autumn-frost-12345678", "branch_id": "br-quiet-leaf-12345678"},
			"autumn-frost-12345678/br-quiet-leaf-12345678", true},
		{authOAuthProvider.format(), map[string]string{"project_id": "autumn-frost-12345678"}, "The identity has no provider_id.", false},
		{authOAuthProvider.format(), map[string]string{"project_id": "autumn-frost-12345678", "provider_id": "a/b"}, `The identity's provider_id "a/b" contains a slash.`, false},
		{authDomain.format(), map[string]string{"project_id": "autumn-frost-12345678", "branch_id": "main", "domain": "https://a.example.com"},
			`The identity's branch_id "main" is not a Neon branch id`, false},
	} {
		t.Run(string(tc.format.resourceType)+"/"+tc.want, func(t *testing.T) {
			schema := tc.format.identitySchema()
			typ, ok := schema.Type().TerraformType(ctx).(tftypes.Object)
			if !ok {
				t.Fatal("the identity schema is not an object")
			}
			vals := map[string]tftypes.Value{}
			for name := range typ.AttributeTypes {
				var v any
				if s, ok := tc.identity[name]; ok {
					v = s
				}
				vals[name] = tftypes.NewValue(tftypes.String, v)
			}
			req := resource.ImportStateRequest{Identity: &tfsdk.ResourceIdentity{Schema: schema, Raw: tftypes.NewValue(typ, vals)}}
			var diags diag.Diagnostics
			id, ok := tc.format.importID(ctx, req, &diags)
			if ok != tc.ok {
				t.Fatalf("ok = %t, want %t (id %q, %v)", ok, tc.ok, id, diags)
			}
			if ok && id != tc.want {
				t.Errorf("id %q, want %q", id, tc.want)
			}
			if !ok && (len(diags) != 1 || !strings.Contains(diags[0].Detail(), tc.want)) {
				t.Errorf("diagnostics %v, want one saying %q", diags, tc.want)
			}
		})
	}
}

// identityCase is one resource of every importable type on the test's
// branch (in branch mode every settings singleton; of each list-backed type
// an object written otherwise than the API stores it where the API allows
// that, except in project mode, which has no settings resources, the
// domains: the whole whitelist instead), and the identity each must have:
// the scope, the branch resolved, and its own key, canonical. In project
// mode the configuration leaves the branch to the default, the production
// branch.
func identityCase(env *acctest.Env) (string, map[string]map[string]knownvalue.Check) {
	on := *env
	if env.Mode == authAPIProject {
		on.BranchID = ""
	}
	block := func(typeName, name string, args ...string) string {
		return on.Resource(typeName, name, append(args, "depends_on = [neon_auth_integration.test]")...)
	}
	cfg := on.Resource("neon_auth_integration", "test") +
		block("neon_auth_user", "test", `email = "ada@example.com"`) +
		block("neon_auth_email_server", "test", `type = "shared"`) +
		block("neon_auth_data_api", "test", `database_name = "neondb"`, `auth_provider = "external"`,
			fmt.Sprintf("jwks_url = %q", googleJWKS), `provider_name = "Google"`) +
		// The JWKS names its branch in both modes: env's, not on's.
		env.Resource("neon_auth_external_jwks", "test", fmt.Sprintf("jwks_url = %q", googleJWKS), `provider_name = "Google"`)
	scope := map[string]knownvalue.Check{"project_id": knownvalue.StringExact(env.ProjectID), "branch_id": knownvalue.StringExact(env.BranchID)}
	with := func(attr string, v knownvalue.Check) map[string]knownvalue.Check {
		m := maps.Clone(scope)
		m[attr] = v
		return m
	}
	want := map[string]map[string]knownvalue.Check{
		"neon_auth_integration.test":   with("auth_provider", knownvalue.StringExact(env.AuthProvider())),
		"neon_auth_user.test":          with("user_id", knownvalue.StringRegexp(regexp.MustCompile(`.+`))),
		"neon_auth_email_server.test":  scope,
		"neon_auth_data_api.test":      with("database_name", knownvalue.StringExact("neondb")),
		"neon_auth_external_jwks.test": {"project_id": knownvalue.StringExact(env.ProjectID), "jwks_id": knownvalue.StringRegexp(regexp.MustCompile(`.+`))},
	}
	for _, c := range acctest.ListedIn(env.Mode) {
		if c.Whole == "" || env.Mode == authAPIBranch {
			cfg += block(c.TypeName, "test", c.Args(acctest.ListedObject{Key: c.Written})...)
			want[c.TypeName+".test"] = with(c.KeyAttribute, knownvalue.StringExact(c.Key(c.Written)))
		}
	}
	if env.Mode == authAPIProject {
		want["neon_auth_domains.test"] = scope
		return cfg + block("neon_auth_domains", "test", `domains = ["https://app.example.com"]`), want
	}
	for _, c := range acctest.SettingsCases {
		cfg += block(c.TypeName, "test", strings.TrimSpace(c.Create))
		want[c.TypeName+".test"] = scope
	}
	return cfg, want
}

// Every importable resource gets its identity at creation (the branch
// resolved, the domain canonical), and an import block with that identity
// imports it with nothing to change, in both API families.
func TestAccIdentity_importBlocks(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		cfg, want := identityCase(env)
		var identities []statecheck.StateCheck
		for addr, identity := range want {
			identities = append(identities, statecheck.ExpectIdentity(addr, identity))
		}
		steps := []tfresource.TestStep{{Config: env.Config(cfg), ConfigStateChecks: identities}}
		for _, addr := range slices.Sorted(maps.Keys(want)) {
			// An import block whose identity is the one recorded: the
			// harness fails on any change.
			step := tfresource.TestStep{ResourceName: addr, ImportState: true, ImportStateKind: tfresource.ImportBlockWithResourceIdentity}
			switch addr {
			case "neon_auth_user.test":
				// No endpoint reads a user: the import leaves email null,
				// and the plan fills in the configured one in place (see
				// TestAccAuthUser_importFillsInConfiguration).
				step.ExpectNonEmptyPlan = true
				step.ImportPlanChecks.PreApply = []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("email"), knownvalue.StringExact("ada@example.com")),
				}
			case "neon_auth_data_api.test":
				// Nor does any endpoint return a Data API's create-time
				// arguments: the plan fills in the configured ones in place.
				step.ExpectNonEmptyPlan = true
				step.ImportPlanChecks.PreApply = []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("auth_provider"), knownvalue.StringExact("external")),
				}
			}
			steps = append(steps, step)
		}
		tc := env.TestCase(steps...)
		tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, acctest.ResourceIdentity)
		tfresource.Test(t, tc)
	})
}

// A state written before the provider had identity (the provider of step 1
// declares none) gets every identity on the next refresh, with an empty
// plan and nothing written to the API.
func TestAccIdentity_filledInOnRefresh(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	cfg, want := identityCase(env)
	withoutIdentity := providerserver.NewProtocol6WithError(env.Provider())
	counted, sent := env.Counted()
	identities := []statecheck.StateCheck{acctest.APICheck(func() error {
		if n := sent.Writes.Load(); n != 0 {
			return fmt.Errorf("filling in the identities sent %d writes to the API, want none", n)
		}
		return nil
	})}
	for addr, identity := range want {
		identities = append(identities, statecheck.ExpectIdentity(addr, identity))
	}
	tc := env.TestCase(
		tfresource.TestStep{
			ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){"neon": func() (tfprotov6.ProviderServer, error) {
				s, err := withoutIdentity()
				return noIdentityServer{s}, err
			}},
			Config:            env.Config(cfg),
			ConfigStateChecks: []statecheck.StateCheck{noIdentities{}},
		},
		tfresource.TestStep{
			ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){"neon": providerserver.NewProtocol6WithError(counted)},
			Config:                   env.Config(cfg),
			ConfigPlanChecks:         tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks:        identities,
		},
	)
	tc.ProtoV6ProviderFactories = nil
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, acctest.ResourceIdentity)
	tfresource.Test(t, tc)
}

// noIdentities checks that no resource in state has an identity.
type noIdentities struct{}

func (noIdentities) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	for _, r := range req.State.Values.RootModule.Resources {
		if len(r.IdentityValues) != 0 {
			resp.Error = fmt.Errorf("%s has the identity %v; the provider of this step declares none", r.Address, r.IdentityValues)
			return
		}
	}
}

// noIdentityServer hides the identity schemas and every identity in the
// provider's answers: the provider as it was before it declared any
// resource identity.
type noIdentityServer struct{ tfprotov6.ProviderServer }

func (s noIdentityServer) GetResourceIdentitySchemas(ctx context.Context, req *tfprotov6.GetResourceIdentitySchemasRequest) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	resp, err := s.ProviderServer.GetResourceIdentitySchemas(ctx, req)
	if resp != nil {
		resp.IdentitySchemas = map[string]*tfprotov6.ResourceIdentitySchema{}
	}
	return resp, err
}

func (s noIdentityServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		resp.PlannedIdentity = nil
	}
	return resp, err
}

func (s noIdentityServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, req)
	if resp != nil {
		resp.NewIdentity = nil
	}
	return resp, err
}

func (s noIdentityServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	resp, err := s.ProviderServer.ReadResource(ctx, req)
	if resp != nil {
		resp.NewIdentity = nil
	}
	return resp, err
}

// Importing what was set up outside Terraform with import blocks that give an
// identity instead of an id, through the CLI: `plan -generate-config-out`
// writes every block, the generated configuration applies as it is, and the
// next plan is empty. In project mode the identities leave the branch out
// (the production branch); in branch mode they name it.
func TestAccIdentity_generateConfig(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		cli := env.CLI(nil, nil)
		if why := acctest.Lacks(t, acctest.ResourceIdentity); why != "" {
			t.Skip(why)
		}
		consoleSetup(env, env.BranchID)
		scope := fmt.Sprintf("project_id = %q", env.ProjectID)
		if env.Mode == authAPIBranch {
			scope += fmt.Sprintf(", branch_id = %q", env.BranchID)
		}
		imports := map[string]string{
			"neon_auth_integration.this": "identity = { " + scope + " }",
			"neon_auth_data_api.neondb":  "identity = { " + scope + `, database_name = "neondb" }`,
		}
		// Of each list-backed type, the first object consoleSetup made.
		identities := map[string]map[string]string{}
		for _, c := range acctest.ListedIn(env.Mode) {
			key := c.Key(c.Found[0].Key)
			addr := c.TypeName + "." + acctest.ResourceName(key)
			imports[addr] = "identity = { " + scope + fmt.Sprintf(", %s = %q }", c.KeyAttribute, key)
			identities[addr] = map[string]string{"project_id": env.ProjectID, "branch_id": env.BranchID, c.KeyAttribute: key}
		}
		if env.Mode == authAPIBranch {
			for _, c := range acctest.SettingsCases {
				imports[c.TypeName+".this"] = "identity = { " + scope + " }"
			}
		}
		generateAndImport(t, env, cli, imports)
		// The state records each identity, the branch resolved.
		state := cli.Must(0, "show", "-json")
		for addr, identity := range identities {
			recorded, err := json.Marshal(identity)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(state, fmt.Sprintf(`"address":%q,`, addr)) || !strings.Contains(state, `"identity":`+string(recorded)) {
				t.Errorf("the state does not record the identity of %s with its branch, %s:\n%s", addr, recorded, state)
			}
		}
	})
}
