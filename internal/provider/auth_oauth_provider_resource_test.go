package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

const oauthAddr = "neon_auth_oauth_provider.test"

func oauthConfig(projectID, providerID, extra string) string {
	return oauthConfigNamed("test", projectID, providerID, extra)
}

func oauthConfigNamed(name, projectID, providerID, extra string) string {
	return fmt.Sprintf(`
resource "neon_auth_oauth_provider" %[4]q {
  project_id  = %[1]q
  provider_id = %[2]q
%[3]s
}
`, projectID, providerID, extra, name)
}

// emuOAuthProvider returns the emulator's record of one OAuth provider.
func emuOAuthProvider(env *accEnv, id string) (emulator.OAuthProvider, bool) {
	for _, p := range env.Emu.OAuthProviders(env.ProjectID) {
		if p.ID == id {
			return p, true
		}
	}
	return emulator.OAuthProvider{}, false
}

// expectEmuOAuth checks the emulator's record after an apply.
func expectEmuOAuth(env *accEnv, id, typ, clientID, secret string) statecheck.StateCheck {
	return apiCheck(func() error {
		p, ok := emuOAuthProvider(env, id)
		if !ok {
			return fmt.Errorf("emulator has no %s OAuth provider", id)
		}
		if p.Type != typ || p.ClientID != clientID || p.ClientSecret != secret {
			return fmt.Errorf("emulator has %s type=%q client_id=%q secret set=%t, want type=%q client_id=%q and the configured secret",
				id, p.Type, p.ClientID, p.ClientSecret != "", typ, clientID)
		}
		return nil
	})
}

// oauthGoneIntegrationKept: no OAuth provider is left and the integration is.
func oauthGoneIntegrationKept(env *accEnv) func(*terraform.State) error {
	return goneIntegrationKept(env, "OAuth providers", func() []emulator.OAuthProvider { return env.Emu.OAuthProviders(env.ProjectID) })
}

// The life of an OAuth provider: shared → standard in place, a new client id
// in place, drift (credentials removed, provider deleted) repaired, removal
// of the credentials by replacement, destroy.
func TestAccAuthOAuthProvider_lifecycle(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		withIntegration(t, env)
		shared := env.config(oauthConfig(env.ProjectID, "google", ""))
		creds := func(clientID string) string {
			return env.config(oauthConfig(env.ProjectID, "google", fmt.Sprintf(`
  client_id     = %q
  client_secret = "secret-1"`, clientID)))
		}
		typeIs := func(v string) statecheck.StateCheck {
			return statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("type"), knownvalue.StringExact(v))
		}

		tc := env.testCase(
			resource.TestStep{
				Config: shared,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionCreate),
					// The type is known at plan time, from the configuration.
					plancheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("type"), knownvalue.StringExact("shared")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("id"), knownvalue.StringExact(env.ProjectID+"/"+env.branch()+"/google")),
					expectValue(oauthAddr, "auth_provider", stringExact(env.authProvider())),
					typeIs("shared"),
					expectEmuOAuth(env, "google", "shared", "", ""),
				},
			},
			resource.TestStep{
				// A shared provider has nothing the API cannot return.
				ResourceName:      oauthAddr,
				ImportState:       true,
				ImportStateVerify: true,
			},
			resource.TestStep{
				// First credentials: shared → standard in place (PATCH).
				Config: creds("client-1"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("type"), knownvalue.StringExact("standard")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					typeIs("standard"),
					statecheck.ExpectSensitiveValue(oauthAddr, tfjsonpath.New("client_secret")),
					expectEmuOAuth(env, "google", "standard", "client-1", "secret-1"),
				},
			},
			resource.TestStep{
				ResourceName:      oauthAddr,
				ImportState:       true,
				ImportStateVerify: true,
				// The API lists only id and type: client_id and client_secret
				// cannot be read back after an import.
				ImportStateVerifyIgnore: []string{"client_id", "client_secret"},
			},
			resource.TestStep{
				// Another client id: in place.
				Config: creds("client-2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectEmuOAuth(env, "google", "standard", "client-2", "secret-1")},
			},
			resource.TestStep{
				// Drift: the credentials are removed behind Terraform's back (the
				// API lists the provider as shared). The type shows the change,
				// and apply sends the credentials again.
				PreConfig: func() {
					if err := env.Emu.PutOAuthProvider(env.ProjectID, emulator.OAuthProvider{ID: "google"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: creds("client-2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("type"), knownvalue.StringExact("standard")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectEmuOAuth(env, "google", "standard", "client-2", "secret-1")},
			},
			resource.TestStep{
				// Drift: the provider is deleted behind Terraform's back.
				PreConfig: func() {
					if err := env.Emu.DeleteOAuthProvider(env.ProjectID, "google"); err != nil {
						t.Fatal(err)
					}
				},
				Config: creds("client-2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectEmuOAuth(env, "google", "standard", "client-2", "secret-1")},
			},
			resource.TestStep{
				// Removing the credentials: the API has no standard → shared
				// transition, so the provider is replaced.
				Config: shared,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					typeIs("shared"),
					expectEmuOAuth(env, "google", "shared", "", ""),
				},
			},
		)
		tc.CheckDestroy = oauthGoneIntegrationKept(env)
		resource.ParallelTest(t, tc)
	})
}

// The write-only secret never reaches plan or state, yet the API gets it;
// a new value is sent only with a new client_secret_wo_version.
func TestAccAuthOAuthProvider_writeOnlySecret(t *testing.T) {
	env := newAccEnv(t)
	withIntegration(t, env)
	cfg := func(secret string, version int) string {
		return env.config(oauthConfig(env.ProjectID, "github", fmt.Sprintf(`  client_id                = "gh-client"
  client_secret_wo         = %q
  client_secret_wo_version = %d`, secret, version)))
	}
	tc := env.testCase(
		resource.TestStep{
			Config: cfg("wo-secret-1", 1),
			ConfigStateChecks: []statecheck.StateCheck{
				expectValue(oauthAddr, "client_secret_wo", knownvalue.Null()),
				expectValue(oauthAddr, "client_secret", knownvalue.Null()),
				expectValue(oauthAddr, "type", stringExact("standard")),
				expectEmuOAuth(env, "github", "standard", "gh-client", "wo-secret-1"),
			},
		},
		resource.TestStep{
			// A new write-only value alone is invisible to Terraform: no
			// change, and the API keeps the old secret.
			Config:            cfg("wo-secret-2", 1),
			ConfigPlanChecks:  noChanges(),
			ConfigStateChecks: []statecheck.StateCheck{expectEmuOAuth(env, "github", "standard", "gh-client", "wo-secret-1")},
		},
		resource.TestStep{
			// Bumping the version sends it, in place.
			Config: cfg("wo-secret-2", 2),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				expectValue(oauthAddr, "client_secret_wo", knownvalue.Null()),
				expectEmuOAuth(env, "github", "standard", "gh-client", "wo-secret-2"),
			},
		},
		resource.TestStep{
			ResourceName:      oauthAddr,
			ImportState:       true,
			ImportStateVerify: true,
			// client_id is never returned by the API; the version exists only
			// in the configuration (it tracks a write-only value).
			ImportStateVerifyIgnore: []string{"client_id", "client_secret_wo_version"},
		},
	)
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, writeOnlyArguments)
	tc.CheckDestroy = oauthGoneIntegrationKept(env)
	resource.ParallelTest(t, tc)
}

// The integration can be declared in the same configuration: the reference
// orders the provider after it.
func TestAccAuthOAuthProvider_withIntegrationInConfig(t *testing.T) {
	inBothModes(t, func(t *testing.T, env *accEnv) {
		cfg := env.config(integrationConfig(env.ProjectID, "") + `
resource "neon_auth_oauth_provider" "test" {
  project_id  = neon_auth_integration.test.project_id
  provider_id = "microsoft"
}
`)
		tc := env.testCase(resource.TestStep{
			Config:            cfg,
			ConfigStateChecks: []statecheck.StateCheck{expectValue(oauthAddr, "type", stringExact("shared")), expectEmuOAuth(env, "microsoft", "shared", "", "")},
		})
		tc.CheckDestroy = func(*terraform.State) error { return expectIntegrations(env, 0)() }
		resource.ParallelTest(t, tc)
	})
}

// Vercel, and a Microsoft app of one Entra tenant: the tenant is sent with
// the credentials and changed in place; the API never returns it, so an
// import cannot verify it.
func TestAccAuthOAuthProvider_vercelAndMicrosoftTenant(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	withIntegration(t, env)
	cfg := func(tenant string) string {
		return env.config(oauthConfig(env.ProjectID, "microsoft", fmt.Sprintf(`
  client_id           = "ms-app"
  client_secret       = "ms-secret"
  microsoft_tenant_id = %q`, tenant)) +
			oauthConfigNamed("vercel", env.ProjectID, "vercel", ""))
	}
	tenantIs := func(want string) apiCheck {
		return func() error {
			a, _ := env.Emu.BranchAuth(env.ProjectID, env.branch())
			for _, p := range a.OAuthProviders {
				if p.ID == "microsoft" && p.MicrosoftTenantID == want {
					return nil
				}
			}
			return fmt.Errorf("the emulator's microsoft provider does not have tenant %q: %+v", want, a.OAuthProviders)
		}
	}
	tc := env.testCase(
		resource.TestStep{
			Config: cfg("tenant-1"),
			ConfigStateChecks: []statecheck.StateCheck{
				expectValue(oauthAddr, "type", stringExact("standard")), expectValue(oauthAddr, "microsoft_tenant_id", stringExact("tenant-1")),
				expectValue("neon_auth_oauth_provider.vercel", "type", stringExact("shared")),

				tenantIs("tenant-1"), expectEmuOAuth(env, "vercel", "shared", "", ""),
			},
		},
		resource.TestStep{
			Config:            cfg("tenant-2"),
			ConfigPlanChecks:  expectPlannedAction(oauthAddr, plancheck.ResourceActionUpdate),
			ConfigStateChecks: []statecheck.StateCheck{tenantIs("tenant-2"), expectEmuOAuth(env, "microsoft", "standard", "ms-app", "ms-secret")},
		},
		resource.TestStep{ResourceName: oauthAddr, ImportState: true, ImportStateVerify: true,
			// The API returns neither the credentials nor the tenant.
			ImportStateVerifyIgnore: []string{"client_id", "client_secret", "microsoft_tenant_id"}},
		resource.TestStep{ResourceName: "neon_auth_oauth_provider.vercel", ImportState: true, ImportStateVerify: true},
	)
	tc.CheckDestroy = oauthGoneIntegrationKept(env)
	resource.ParallelTest(t, tc)
}

// A provider without shared keys, added without credentials: the API's
// INVALID_SHARED_OAUTH_PROVIDER becomes advice on client_id.
func TestAccAuthOAuthProvider_noSharedKeysGivesGuidance(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	withIntegration(t, env)
	env.Emu.SetSharedOAuthProviders("google", "github", "vercel")
	resource.ParallelTest(t, env.testCase(resource.TestStep{
		Config: env.config(oauthConfig(env.ProjectID, "microsoft", "")),
		ExpectError: matchInOrder("No shared credentials for this OAuth provider", "set `client_id` and a secret",
			"`client_secret`", "client_secret_wo", "INVALID_SHARED_OAUTH_PROVIDER"),
	}))
}

// The branch-scoped reads (the list, and the bundle a refresh reads) can
// carry a standard provider's client_secret: a refresh never puts it into
// state when the configuration did not set it (here the secret is
// write-only), and an import never does either.
func TestAccAuthOAuthProvider_listedSecretNeverReachesState(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	withIntegration(t, env)
	cfg := env.config(oauthConfig(env.ProjectID, "google", `
  client_id                = "google-client"
  client_secret_wo         = "listed-secret"
  client_secret_wo_version = 1`))
	noSecret := []statecheck.StateCheck{expectValue(oauthAddr, "client_secret", knownvalue.Null()), expectValue(oauthAddr, "client_secret_wo", knownvalue.Null())}
	tc := env.testCase(
		resource.TestStep{Config: cfg, ConfigStateChecks: noSecret},
		resource.TestStep{
			PreConfig: func() {
				ps, err := env.client().ListOAuthProviders(context.Background(), env.scope())
				if err != nil || len(ps) != 1 || apiclient.Deref(ps[0].ClientSecret) != "listed-secret" {
					t.Fatalf("the list does not carry the secret, so this test proves nothing: %v, %v", ps, err)
				}
				bundle, err := env.client().GetPlugins(context.Background(), env.scope())
				var listed []apiclient.OAuthProvider
				if err == nil {
					_, err = bundle.Part(apiclient.PartOAuthProviders, &listed)
				}
				if err != nil || len(listed) != 1 || apiclient.Deref(listed[0].ClientSecret) != "listed-secret" {
					t.Fatalf("the bundle does not carry the secret, so this test proves nothing: %v", err)
				}
			},
			RefreshState: true,
			Check: func(s *terraform.State) error {
				if v, ok := s.RootModule().Resources[oauthAddr].Primary.Attributes["client_secret"]; ok && v != "" {
					return fmt.Errorf("the refreshed state holds a client secret (%d chars)", len(v))
				}
				return nil
			},
		},
		resource.TestStep{Config: cfg, ConfigPlanChecks: noChanges(), ConfigStateChecks: noSecret},
		resource.TestStep{
			ResourceName: oauthAddr, ImportState: true, ImportStateId: env.ProjectID + "/" + env.branch() + "/google",
			ImportStateCheck: func(states []*terraform.InstanceState) error {
				if v := states[0].Attributes["client_secret"]; v != "" {
					return fmt.Errorf("the imported state holds a client secret (%d chars)", len(v))
				}
				return nil
			},
		},
	)
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, writeOnlyArguments)
	resource.ParallelTest(t, tc)
}
