package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// Neon Auth branches with the database: what a configuration finds on a
// branch created from a parent, and what it does with it.

// productionGoogleClientID is the client id of production's Google app, in
// configureProduction and the configurations that take its copy over.
const productionGoogleClientID = "acme-google-client"

// configureProduction gives the test's branch — production, to the
// previews made from it — the Neon Auth that
// examples/branch-preview/production describes, through the API, as any
// other client would: Better Auth named Acme, https://app.example.com
// trusted, Google sign-in with its own app, verified email required,
// webhooks to production's endpoint, and the Data API of neondb with Neon
// Auth. With fully, it adds one more of
// everything a branch inherits: the Inherited objects of each list-backed
// type's row of acctest.ListedCases (a shared GitHub sign-in), a user with a
// role, an SMTP server and non-default plugins.
func configureProduction(env *acctest.Env, fully bool) {
	env.T().Helper()
	ctx, c, s := context.Background(), env.Client(), env.Scope()
	s.Family = apiclient.FamilyBranch
	steps := []func() error{
		func() error {
			_, err := c.CreateIntegration(ctx, s, apiclient.CreateIntegrationRequest{AuthProvider: apiclient.AuthProviderBetterAuth})
			return err
		},
		func() error { _, err := c.SetIntegrationName(ctx, s, "Acme"); return err },
		func() error {
			_, err := c.AddDomain(ctx, s, apiclient.AddDomainRequest{Domain: "https://app.example.com", AuthProvider: neonapi.NeonAuthSupportedAuthProvider(apiclient.AuthProviderBetterAuth)})
			return err
		},
		func() error {
			_, err := c.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "google", ClientID: apiclient.Ptr(productionGoogleClientID), ClientSecret: apiclient.Ptr("acme-google-secret")})
			return err
		},
		func() error {
			_, err := apiclient.WriteSetting[neonapi.NeonAuthEmailAndPasswordConfig](ctx, c, s, betterauth.EmailAndPassword,
				neonapi.NeonAuthEmailAndPasswordConfigUpdate{RequireEmailVerification: apiclient.Ptr(true)})
			return err
		},
		func() error {
			_, err := apiclient.WriteSetting[neonapi.NeonAuthWebhookConfig](ctx, c, s, betterauth.Webhooks, neonapi.NeonAuthWebhookConfig{
				Enabled: true, WebhookURL: apiclient.Ptr("https://app.example.com/api/auth-events"),
				EnabledEvents: &[]neonapi.NeonAuthWebhookConfigEnabledEvents{"user.created"}})
			return err
		},
		func() error {
			_, err := c.CreateDataAPI(ctx, apiclient.DataAPIRef{ProjectID: s.ProjectID, BranchID: s.BranchID, DatabaseName: "neondb"},
				apiclient.CreateDataAPIRequest{AuthProvider: apiclient.DataAPIAuthProvider(apiclient.DataAPIAuthNeonAuth),
					Settings: &apiclient.DataAPISettings{DBMaxRows: apiclient.Ptr(1000)}})
			return err
		},
	}
	if fully {
		for _, lc := range acctest.ListedCases {
			for _, o := range lc.Inherited {
				steps = append(steps, func() error { return lc.Make(c, s, o.ListedObject) })
			}
		}
		steps = append(steps,
			func() error {
				u, err := c.CreateUser(ctx, s, apiclient.CreateUserRequest{AuthProvider: apiclient.AuthProviderBetterAuth, Email: "ada@example.com"})
				if err != nil {
					return err
				}
				return c.SetUserRoles(ctx, s, u.ID, []string{"admin"})
			},
			func() error {
				_, err := c.UpdateEmailServer(ctx, s, apiclient.EmailServer{StandardEmailServer: neonapi.StandardEmailServer{Type: "standard",
					Host: apiclient.Ptr("smtp.example.com"), Port: apiclient.Ptr(465), Username: apiclient.Ptr("mailer"),
					Password: apiclient.Ptr("smtp-secret"), SenderEmail: apiclient.Ptr("auth@example.com"), SenderName: apiclient.Ptr("Acme")}})
				return err
			},
			func() error {
				_, err := apiclient.WriteSetting[neonapi.NeonAuthOrganizationConfig](ctx, c, s, betterauth.Organization,
					neonapi.NeonAuthOrganizationConfigUpdate{OrganizationLimit: apiclient.Ptr(int32(3))})
				return err
			},
			func() error {
				_, err := apiclient.WriteSetting[neonapi.NeonAuthPhoneNumberConfig](ctx, c, s, betterauth.PhoneNumber,
					neonapi.NeonAuthPhoneNumberConfigUpdate{Enabled: apiclient.Ptr(true)})
				return err
			})
	}
	for i, step := range steps {
		if err := step(); err != nil {
			env.T().Fatalf("configuring production (step %d): %v", i+1, err)
		}
	}
}

// everyInherited is a configuration of every resource type a branch
// inherits an object of, on the branch preview made from the fully
// configured production: each takes over the copy (the same Google app and
// SMTP password as production, so that destroy can restore every byte), and
// a new user is created beside the inherited one. Each list-backed type
// declares the Inherited objects of its row as production has them.
func everyInherited(env *acctest.Env, preview string) string {
	on := *env
	on.BranchID = preview
	cfg := fmt.Sprintf(everyInheritedType, preview, env.ProjectID)
	for _, lc := range acctest.ListedCases {
		for _, o := range lc.Inherited {
			cfg += on.Resource(lc.TypeName, acctest.ResourceName(o.Key), append(lc.Args(o.ListedObject), "depends_on = [neon_auth_integration.preview]")...)
		}
	}
	return env.Config(cfg)
}

// everyInheritedType is everyInherited's configuration of the types that
// are not list-backed (and of production's own Google app), on branch
// %[1]q of project %[2]q.
const everyInheritedType = `
resource "neon_auth_integration" "preview" {
  project_id = %[2]q
  branch_id  = %[1]q
  name       = "Acme (preview)"
}

resource "neon_auth_domains" "preview" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  domains    = ["https://pr-7.preview.example.com"]
}

resource "neon_auth_oauth_provider" "google" {
  project_id    = neon_auth_integration.preview.project_id
  branch_id     = neon_auth_integration.preview.branch_id
  provider_id   = "google"
  client_id     = "acme-google-client"
  client_secret = "acme-google-secret"
}

resource "neon_auth_user" "ada" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  email      = "ada@example.com"
}

resource "neon_auth_data_api" "preview" {
  project_id    = neon_auth_integration.preview.project_id
  branch_id     = neon_auth_integration.preview.branch_id
  database_name = "neondb"
  auth_provider = "neon_auth"
  settings = {
    db_max_rows = 50
  }
}

resource "neon_auth_user" "tester" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  email      = "tester@example.com"
}

resource "neon_auth_email_server" "preview" {
  project_id   = neon_auth_integration.preview.project_id
  branch_id    = neon_auth_integration.preview.branch_id
  type         = "standard"
  host         = "smtp.example.com"
  port         = 465
  username     = "mailer"
  password     = "smtp-secret"
  sender_email = "auth@example.com"
  sender_name  = "Acme (preview)"
}

resource "neon_auth_organization_plugin" "preview" {
  project_id         = neon_auth_integration.preview.project_id
  branch_id          = neon_auth_integration.preview.branch_id
  organization_limit = 5
}

resource "neon_auth_phone_number_plugin" "preview" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  enabled    = false
}

resource "neon_auth_webhooks" "preview" {
  project_id = neon_auth_integration.preview.project_id
  branch_id  = neon_auth_integration.preview.branch_id
  enabled    = false
}
`

// On a branch created from production, every resource type finds its
// object already there, inherited, and takes it over on the first apply:
// no import, no refusal. The configuration is applied to the copies (the
// inherited domain leaves the whitelist, webhooks stop, limits change), a
// re-plan is empty, and destroy restores the branch's Neon Auth byte for
// byte as the branch started, deleting only the user it created. Production
// never changes.
func TestAccInherited_everyTypeTakesOverAndRestores(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	configureProduction(env, true)
	production := env.AuthOf(env.BranchID)
	preview := env.ChildBranch("pr-7")
	inherited := env.AuthOf(preview)
	on := *env
	on.BranchID = preview
	cfg := everyInherited(env, preview)
	// Each inherited object of a list-backed type is in the state as
	// production has it.
	var listed []statecheck.StateCheck
	for _, lc := range acctest.ListedCases {
		for _, o := range lc.Inherited {
			for name, v := range lc.FieldsOf(o.ListedObject, false) {
				listed = append(listed, statecheck.ExpectKnownValue(lc.TypeName+"."+acctest.ResourceName(o.Key), tfjsonpath.New(name), knownvalue.StringExact(fmt.Sprint(v))))
			}
		}
	}
	tc := env.TestCase(resource.TestStep{
		Config: cfg,
		ConfigStateChecks: append(listed,
			statecheck.ExpectKnownValue("neon_auth_user.ada", tfjsonpath.New("user_id"), knownvalue.Null()),
			statecheck.ExpectKnownValue("neon_auth_user.ada", tfjsonpath.New("id"), knownvalue.StringExact(env.ProjectID+"/"+preview+"/email:ada@example.com")),
			statecheck.ExpectKnownValue("neon_auth_user.tester", tfjsonpath.New("user_id"), knownvalue.NotNull()),
			on.ExpectDomains("https://pr-7.preview.example.com"),
			acctest.APICheck(func() error {
				ctx, c, s := context.Background(), on.Client(), on.Scope()
				webhooks, err := apiclient.ReadSetting[neonapi.NeonAuthWebhookConfig](ctx, c, s, betterauth.Webhooks)
				if err != nil {
					return err
				}
				var org neonapi.NeonAuthOrganizationConfig
				var phone neonapi.NeonAuthPhoneNumberConfig
				bundle, err := c.GetPlugins(ctx, s)
				if err != nil {
					return err
				}
				if _, err := bundle.Part(betterauth.Organization.Name, &org); err != nil {
					return err
				}
				if _, err := bundle.Part(betterauth.PhoneNumber.Name, &phone); err != nil {
					return err
				}
				it, es := on.Integration(), on.EmailServer()
				if err := expectDataAPI(&on, maxRows(50))(); err != nil {
					return err
				}
				switch {
				case it == nil || apiclient.Deref(it.Name) != "Acme (preview)" || webhooks.Enabled || phone.Enabled || org.OrganizationLimit != 5:
					return fmt.Errorf("preview = integration %+v, webhooks %+v, phone number %+v, organization %+v", it, webhooks, phone, org)
				case es == nil || apiclient.Deref(es.SenderName) != "Acme (preview)":
					return fmt.Errorf("preview email provider %+v", es)
				case !on.UserExists("ada@example.com") || !on.UserExists("tester@example.com"):
					return fmt.Errorf("the preview lacks the inherited user or the new one")
				}
				return env.SameAuth(env.BranchID, production, "after the preview's apply")
			}),
		),
	}, resource.TestStep{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}})
	tc.CheckDestroy = func(*terraform.State) error {
		if err := env.SameAuth(preview, inherited, "after destroy"); err != nil {
			return err
		}
		if on.UserExists("tester@example.com") || !on.UserExists("ada@example.com") {
			return fmt.Errorf("after destroy, the preview must keep the inherited user and lose the one it created")
		}
		return env.SameAuth(env.BranchID, production, "after the preview's destroy")
	}
	resource.ParallelTest(t, tc)
}

// Each take-over warns, naming what it took over, where it came from, and
// what destroy does with it; the domain list's warning names the entries it
// removed.
func TestAccInherited_eachTakeOverWarns(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	configureProduction(env, true)
	preview := env.ChildBranch("pr-8")
	cli := env.CLI(nil, nil)
	cli.Write("main.tf", acctest.RequiredProviders+everyInherited(env, preview))
	out := cli.Must(0, "apply", "-auto-approve", "-input=false")
	warnings := []string{
		"Inherited Neon Auth integration (better_auth) taken over",
		"Whitelist taken over",
		"It removed the entries this configuration does not list: https://app.example.com",
		"Inherited google OAuth provider (type standard) taken over",
		"Inherited user ada@example.com taken over",
		"Inherited email server setting (the standard email server) taken over",
		"Inherited neon_auth_organization_plugin settings taken over",
		"Inherited neon_auth_webhooks settings taken over",
		"Inherited Data API of database neondb taken over",
		"was created from branch " + env.BranchID,
	}
	for _, lc := range acctest.ListedCases {
		for _, o := range lc.Inherited {
			warnings = append(warnings, o.Warning)
		}
	}
	for _, want := range warnings {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the apply does not warn %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "tester@example.com taken over") {
		t.Errorf("the new user was reported taken over:\n%s", out)
	}
	cli.Must(0, "destroy", "-auto-approve", "-input=false")
}

// What cannot be taken over is refused with an error that names both sides
// and the fix, and nothing on the branch changes: inherited objects when
// inherited_auth = "refuse" (the inherited SMTP server and the inherited
// whitelist too, which a create otherwise writes over); an inherited
// integration of another auth
// provider; an inherited Google app made shared (its secret could not be
// restored: restore_on_destroy = false is the way out on a disposable
// branch); roles of an inherited user (no endpoint tells its id); an
// inherited SMTP server made shared (its password could not be restored).
func TestAccInherited_refusals(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	configureProduction(env, true)
	preview := env.ChildBranch("pr-9")
	inherited := env.AuthOf(preview)
	on := func(body string) string { return fmt.Sprintf(body, env.ProjectID, preview) }
	step := func(cfg string, want ...string) resource.TestStep {
		return resource.TestStep{Config: cfg, ExpectError: acctest.MatchInOrder(want...)}
	}
	refuse := env.ProviderBlock(`inherited_auth = "refuse"`)
	tc := env.TestCase(
		step(refuse+on(`
resource "neon_auth_integration" "preview" {
  project_id = %q
  branch_id  = %q
}
`), "already has Neon Auth", `inherited_auth is "refuse"`, "terraform import"),
		step(refuse+on(`
resource "neon_auth_email_server" "preview" {
  project_id = %q
  branch_id  = %q
  type       = "shared"
}
`), "inherited a standard email server", `inherited_auth is "refuse"`, "terraform import neon_auth_email_server"),
		step(refuse+on(`
resource "neon_auth_domains" "preview" {
  project_id = %q
  branch_id  = %q
  domains    = ["https://app.example.com"]
}
`), "it already holds https://app.example.com", `inherited_auth is "refuse"`, "terraform import neon_auth_domains"),
		step(env.Config(on(`
resource "neon_auth_integration" "preview" {
  project_id    = %q
  branch_id     = %q
  auth_provider = "mock"
}
`)), `whose auth provider is "better_auth"; this configuration asks for "mock"`, `set auth_provider = "better_auth"`),
		step(env.Config(on(`
resource "neon_auth_oauth_provider" "google" {
  project_id  = %q
  branch_id   = %q
  provider_id = "google"
}
`)), "Inherited OAuth provider has its own app", "asks for the shared keys", "/callback/google", "set restore_on_destroy = false"),
		step(env.Config(on(`
resource "neon_auth_user" "ada" {
  project_id = %q
  branch_id  = %q
  email      = "ada@example.com"
  roles      = ["admin"]
}
`)), "inherited the user ada@example.com, but no endpoint tells a user's id", "Remove roles"),
		step(env.Config(on(`
resource "neon_auth_email_server" "preview" {
  project_id = %q
  branch_id  = %q
  type       = "shared"
}
`)), "Inherited email server is standard", "would lose the SMTP password", `type = "standard"`, "set restore_on_destroy = false"),
	)
	tc.CheckDestroy = func(*terraform.State) error { return env.SameAuth(preview, inherited, "after the refusals") }
	resource.ParallelTest(t, tc)
}

// Two configurations on one preview branch, as after a lost state or with
// two pipelines, declare the same domain: the first adds it, and the second
// finds it already there and takes it over (its plan says so) instead of
// failing. Neither removes the other's entry: the one that took it over
// leaves it on destroy, and the one that added it removes it, whichever
// destroys first. Production never changes.
func TestAccInherited_twoConfigurationsDeclareOneDomain(t *testing.T) {
	for _, order := range []string{"the owner destroys first", "the other destroys first"} {
		t.Run(order, func(t *testing.T) {
			env := acctest.NewBranchEnv(t)
			configureProduction(env, false)
			production := env.AuthOf(env.BranchID)
			preview := *env
			preview.BranchID = env.ChildBranch("pr-123")
			const origin = "https://pr-123.preview.example.com"
			cfg := acctest.RequiredProviders + env.Config(preview.Resource("neon_auth_domain", "pr", fmt.Sprintf("domain = %q", origin)))
			owner, other := env.CLI(nil, nil), env.CLI(nil, nil)
			for _, w := range []*acctest.CLIDir{owner, other} {
				w.Write("main.tf", cfg)
				w.Must(0, "init", "-input=false")
			}
			owner.Must(0, "apply", "-auto-approve", "-input=false")

			plan := strings.Join(strings.Fields(other.Must(0, "plan", "-input=false")), " ")
			if want := "Trusted domains already on the branch will be taken over: " + origin; !strings.Contains(plan, want) {
				t.Errorf("the second configuration's plan does not warn %q:\n%s", want, plan)
			}
			applied := strings.Join(strings.Fields(other.Must(0, "apply", "-auto-approve", "-input=false")), " ")
			if want := "Trusted domain already on the branch taken over: " + origin; !strings.Contains(applied, want) {
				t.Errorf("the second configuration's apply does not warn %q:\n%s", want, applied)
			}
			if err := preview.ExpectDomains("https://app.example.com", origin)(); err != nil {
				t.Fatal(err)
			}
			first, second := owner, other
			if order == "the other destroys first" {
				first, second = other, owner
			}
			first.Must(0, "destroy", "-auto-approve", "-input=false")
			if first == other {
				if err := preview.ExpectDomains("https://app.example.com", origin)(); err != nil {
					t.Errorf("after the destroy of the configuration that took the domain over: %v", err)
				}
			}
			second.Must(0, "destroy", "-auto-approve", "-input=false")
			if err := preview.ExpectDomains("https://app.example.com")(); err != nil {
				t.Errorf("after both destroys: %v", err)
			}
			if err := env.SameAuth(env.BranchID, production, "after both configurations"); err != nil {
				t.Error(err)
			}
		})
	}
}

// What apply will take over shows in the plan: each create of an object the
// preview inherited warns, naming it and the parent; a plan of what is in
// the state warns nothing, and a destroy plan says what destroy restores
// instead of deleting.
func TestAccInherited_takeOverShowsAtPlan(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	configureProduction(env, false)
	preview := *env
	preview.BranchID = env.ChildBranch("pr-5")
	cli := env.CLI(nil, nil)
	cli.Write("main.tf", acctest.RequiredProviders+env.Config(
		preview.Resource("neon_auth_integration", "preview")+
			preview.Resource("neon_auth_domain", "app", `domain = "https://app.example.com"`, "depends_on = [neon_auth_integration.preview]")+
			preview.Resource("neon_auth_oauth_provider", "google", `provider_id = "google"`, `client_id = "acme-google-client"`,
				`client_secret = "acme-google-secret"`, "depends_on = [neon_auth_integration.preview]")+
			preview.Resource("neon_auth_webhooks", "preview", "enabled = false", "depends_on = [neon_auth_integration.preview]")+
			preview.Resource("neon_auth_data_api", "neondb", `database_name = "neondb"`, `auth_provider = "neon_auth"`,
				"depends_on = [neon_auth_integration.preview]")))
	cli.Must(0, "init", "-input=false")
	flat := func(out string) string { return strings.Join(strings.Fields(out), " ") }
	plan := flat(cli.Must(0, "plan", "-input=false"))
	for _, want := range []string{
		"Inherited Neon Auth integration (better_auth) will be taken over",
		"Trusted domains already on the branch will be taken over: https://app.example.com",
		"Inherited google OAuth provider will be taken over",
		"Inherited neon_auth_webhooks settings will be taken over",
		"Inherited Data API of database neondb will be taken over",
		"was created from branch " + env.BranchID + ", which holds the same",
		"Destroy leaves it in the whitelist",
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("the plan does not warn %q:\n%s", want, plan)
		}
	}
	cli.Must(0, "apply", "-auto-approve", "-input=false")
	if replan := cli.Must(0, "plan", "-detailed-exitcode", "-input=false"); strings.Contains(replan, "Warning") {
		t.Errorf("a plan of what is in the state warns:\n%s", replan)
	}
	destroy := flat(cli.Must(0, "plan", "-destroy", "-input=false"))
	for _, want := range []string{
		"Destroy restores what was taken over: Neon Auth integration",
		"Destroy leaves Neon Auth enabled on the branch",
		"Destroy restores what was taken over: trusted domain https://app.example.com",
		"that it found on its branch",
		"Destroy restores what was taken over: google OAuth provider",
		"Destroy restores the neon_auth_webhooks settings found",
		"Destroy restores what was taken over: Data API of database neondb",
		"inherited from branch " + env.BranchID,
	} {
		if !strings.Contains(destroy, want) {
			t.Errorf("the destroy plan does not say %q:\n%s", want, destroy)
		}
	}
	cli.Must(0, "destroy", "-auto-approve", "-input=false")
}

// The evidence is the parent as it is now: the API keeps no record of it at
// the time the branch was made. An OAuth provider production removed after
// the preview was branched is refused on the preview (it can be imported);
// one production gained since, that something also added to the preview, is
// taken over.
func TestAccInherited_parentChangedSinceBranching(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	configureProduction(env, false)
	preview := *env
	preview.BranchID = env.ChildBranch("pr-6")
	ctx, c := context.Background(), env.Client()
	env.Must(c.DeleteOAuthProvider(ctx, env.Scope(), "google"))
	for _, s := range []apiclient.Scope{env.Scope(), preview.Scope()} {
		_, err := c.AddOAuthProvider(ctx, s, apiclient.AddOAuthProviderRequest{ID: "github"})
		env.Must(err)
	}
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{
			Config: env.Config(preview.Resource("neon_auth_oauth_provider", "google", `provider_id = "google"`,
				fmt.Sprintf("client_id = %q", productionGoogleClientID), `client_secret = "acme-google-secret"`)),
			ExpectError: acctest.MatchInOrder("holds no such object", "has lost it since", "terraform import"),
		},
		resource.TestStep{
			Config: env.Config(preview.Resource("neon_auth_oauth_provider", "github", `provider_id = "github"`)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("neon_auth_oauth_provider.github", tfjsonpath.New("type"), knownvalue.StringExact("shared")),
			},
		},
	))
}

// A preview's configuration pointed at production's branch id finds
// production's objects, which it must not import: the refusal names both
// causes, the wrong branch_id (and where the preview's id is found) and an
// object this configuration should manage (the import).
func TestAccInherited_wrongBranchNamesBothFixes(t *testing.T) {
	env := acctest.NewProjectEnv(t)
	env.Mode = authAPIBranch
	configureProduction(env, false)
	resource.ParallelTest(t, env.TestCase(resource.TestStep{
		Config: env.Config(env.Resource("neon_auth_oauth_provider", "google", `provider_id = "google"`,
			fmt.Sprintf("client_id = %q", productionGoogleClientID), `client_secret = "acme-google-secret"`)),
		ExpectError: acctest.MatchInOrder("is a root branch", "Either branch_id points at the wrong branch",
			"neon branches list --project-id "+env.ProjectID, "neon_branch.<name>.id", "or this configuration should manage the object",
			"terraform import neon_auth_oauth_provider.<name>"),
	}))
}
