package provider

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
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
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

const oauthAddr = "neon_auth_oauth_provider.test"

// expectListedOAuth checks the OAuth providers the test's branch lists, each
// wanted as "<id> <type>" or "<id> <type> <client id>"; a client id is
// compared where the list shows one (the project-level list does not).
func expectListedOAuth(env *acctest.Env, want ...string) acctest.APICheck {
	return func() error {
		ps, err := env.Client().ListOAuthProviders(context.Background(), env.Scope())
		if err != nil {
			return err
		}
		ok := len(ps) == len(want)
		for _, w := range want {
			f := strings.Fields(w)
			i := slices.IndexFunc(ps, func(p apiclient.OAuthProvider) bool { return string(p.ID) == f[0] })
			ok = ok && i >= 0 && string(ps[i].Type) == f[1] && (ps[i].ClientID == nil || *ps[i].ClientID == strings.Join(f[2:], ""))
		}
		if !ok {
			return fmt.Errorf("the branch lists the OAuth providers %v, want %q", ps, want)
		}
		return nil
	}
}

// The life of an OAuth provider, in both API families: shared → standard in
// place, a new client id in place, drift (credentials removed, provider
// deleted) repaired, removal of the credentials by replacement, destroy.
func TestAccAuthOAuthProvider_lifecycle(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		env.EnableAuth()
		shared := env.Config(env.Resource("neon_auth_oauth_provider", "test", `provider_id = "google"`))
		creds := func(clientID string) string {
			return env.Config(env.Resource("neon_auth_oauth_provider", "test", `provider_id = "google"`,
				"client_id = "+strconv.Quote(clientID), `client_secret = "secret-1"`))
		}
		typeIs := func(v string) statecheck.StateCheck {
			return statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("type"), knownvalue.StringExact(v))
		}
		ctx, c := context.Background(), env.Client()

		tc := env.TestCase(
			resource.TestStep{
				Config: shared,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionCreate),
					// The type is known at plan time, from the configuration.
					plancheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("type"), knownvalue.StringExact("shared")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("id"), knownvalue.StringExact(env.ProjectID+"/"+env.BranchID+"/google")),
					statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("auth_provider"), knownvalue.StringExact(env.AuthProvider())),
					typeIs("shared"),
					expectListedOAuth(env, "google shared"),
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
					expectListedOAuth(env, "google standard client-1"),
				},
			},
			resource.TestStep{
				ResourceName:      oauthAddr,
				ImportState:       true,
				ImportStateVerify: true,
				// The provider reads an OAuth provider's id and type only (the
				// project-level list has nothing else): client_id and
				// client_secret cannot be read back after an import.
				ImportStateVerifyIgnore: []string{"client_id", "client_secret"},
			},
			resource.TestStep{
				// Another client id: in place.
				Config: creds("client-2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectListedOAuth(env, "google standard client-2")},
			},
			resource.TestStep{
				// Drift: the credentials are removed behind Terraform's back
				// (the API has no standard → shared transition: the provider is
				// deleted and added again without them, and lists as shared).
				// The type shows the change, and apply sends the credentials
				// again.
				PreConfig: func() {
					env.Must(c.DeleteOAuthProvider(ctx, env.Scope(), "google"))
					_, err := c.AddOAuthProvider(ctx, env.Scope(), apiclient.AddOAuthProviderRequest{ID: "google"})
					env.Must(err)
				},
				Config: creds("client-2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("type"), knownvalue.StringExact("standard")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectListedOAuth(env, "google standard client-2")},
			},
			resource.TestStep{
				// Drift: the provider is deleted behind Terraform's back.
				PreConfig: func() { env.Must(c.DeleteOAuthProvider(ctx, env.Scope(), "google")) },
				Config:    creds("client-2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectListedOAuth(env, "google standard client-2")},
			},
			resource.TestStep{
				// Removing the credentials: the API has no standard → shared
				// transition, so the provider is replaced.
				Config: shared,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{typeIs("shared"), expectListedOAuth(env, "google shared")},
			},
		)
		tc.CheckDestroy = env.Destroyed(acctest.AuthKept, expectListedOAuth(env))
		resource.ParallelTest(t, tc)
	})
}

// The write-only secret never reaches plan or state; a new value alone
// changes nothing, and a new client_secret_wo_version updates in place
// (TestAccAuthOAuthProvider_credentialsReachTheAPI checks what reached the
// API).
func TestAccAuthOAuthProvider_writeOnlySecret(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	env.EnableAuth()
	cfg := func(secret string, version int) string {
		return env.Config(env.Resource("neon_auth_oauth_provider", "test", `provider_id = "github"`, `client_id = "gh-client"`,
			"client_secret_wo = "+strconv.Quote(secret), fmt.Sprintf("client_secret_wo_version = %d", version)))
	}
	tc := env.TestCase(
		resource.TestStep{
			Config: cfg("wo-secret-1", 1),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("client_secret_wo"), knownvalue.Null()),
				statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("client_secret"), knownvalue.Null()),
				statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("type"), knownvalue.StringExact("standard")),
				expectListedOAuth(env, "github standard gh-client"),
			},
		},
		resource.TestStep{
			// A new write-only value alone is invisible to Terraform: no
			// change.
			Config:           cfg("wo-secret-2", 1),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
		resource.TestStep{
			// Bumping the version sends it, in place.
			Config: cfg("wo-secret-2", 2),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("client_secret_wo"), knownvalue.Null()),
				expectListedOAuth(env, "github standard gh-client"),
			},
		},
		resource.TestStep{
			ResourceName:      oauthAddr,
			ImportState:       true,
			ImportStateVerify: true,
			// client_id is never read back; the version exists only in the
			// configuration (it tracks a write-only value).
			ImportStateVerifyIgnore: []string{"client_id", "client_secret_wo_version"},
		},
	)
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, acctest.WriteOnlyArguments)
	tc.CheckDestroy = env.Destroyed(acctest.AuthKept, expectListedOAuth(env))
	resource.ParallelTest(t, tc)
}

// What the API stored of the credentials, in both API families: the
// configured secret, sent again when drift is repaired; the write-only
// secret, kept when only its value changes and sent with a new version; the
// Microsoft tenant, changed in place. No API returns secrets or the tenant
// dependably, so the emulator's record is read.
func TestAccAuthOAuthProvider_credentialsReachTheAPI(t *testing.T) {
	for _, mode := range acctest.Modes {
		t.Run(mode, func(t *testing.T) {
			env := acctest.NewEmulatorEnv(t, "it reads the secrets and the tenant the API stored, which no API returns dependably", nil)
			env.Mode = mode
			env.EnableAuth()
			cfg := func(googleClient, woSecret string, woVersion int, tenant string) string {
				return env.Config(
					env.Resource("neon_auth_oauth_provider", "test", `provider_id = "google"`, "client_id = "+strconv.Quote(googleClient), `client_secret = "secret-1"`) +
						env.Resource("neon_auth_oauth_provider", "github", `provider_id = "github"`, `client_id = "gh-client"`,
							"client_secret_wo = "+strconv.Quote(woSecret), fmt.Sprintf("client_secret_wo_version = %d", woVersion)) +
						env.Resource("neon_auth_oauth_provider", "microsoft", `provider_id = "microsoft"`, `client_id = "ms-app"`, `client_secret = "ms-secret"`,
							"microsoft_tenant_id = "+strconv.Quote(tenant)))
			}
			// What the emulator stored of each provider: type, client id,
			// secret and tenant.
			stored := func(googleClient, woSecret, tenant string) []statecheck.StateCheck {
				return []statecheck.StateCheck{acctest.APICheck(func() error {
					want := []emulator.OAuthProvider{
						{ID: "google", Type: "standard", ClientID: googleClient, ClientSecret: "secret-1"},
						{ID: "github", Type: "standard", ClientID: "gh-client", ClientSecret: woSecret},
						{ID: "microsoft", Type: "standard", ClientID: "ms-app", ClientSecret: "ms-secret", MicrosoftTenantID: tenant},
					}
					for _, w := range want {
						i := slices.IndexFunc(env.Emu.OAuthProviders(env.ProjectID), func(p emulator.OAuthProvider) bool { return p.ID == w.ID })
						if i < 0 || !reflect.DeepEqual(env.Emu.OAuthProviders(env.ProjectID)[i], w) {
							return fmt.Errorf("the emulator's %s provider is not as configured (type %s, client id %s, tenant %q)",
								w.ID, w.Type, w.ClientID, w.MicrosoftTenantID)
						}
					}
					return nil
				})}
			}
			tc := env.TestCase(
				resource.TestStep{Config: cfg("client-1", "wo-secret-1", 1, "tenant-1"), ConfigStateChecks: stored("client-1", "wo-secret-1", "tenant-1")},
				// A new write-only value without a new version is not sent.
				resource.TestStep{Config: cfg("client-2", "wo-secret-2", 1, "tenant-2"), ConfigStateChecks: stored("client-2", "wo-secret-1", "tenant-2")},
				resource.TestStep{Config: cfg("client-2", "wo-secret-2", 2, "tenant-2"), ConfigStateChecks: stored("client-2", "wo-secret-2", "tenant-2")},
				resource.TestStep{
					// Drift: google's credentials removed behind Terraform's back.
					PreConfig:         func() { env.Must(env.Emu.PutOAuthProvider(env.ProjectID, emulator.OAuthProvider{ID: "google"})) },
					Config:            cfg("client-2", "wo-secret-2", 2, "tenant-2"),
					ConfigStateChecks: stored("client-2", "wo-secret-2", "tenant-2"),
				},
				resource.TestStep{
					// Drift: google deleted behind Terraform's back.
					PreConfig:         func() { env.Must(env.Emu.DeleteOAuthProvider(env.ProjectID, "google")) },
					Config:            cfg("client-2", "wo-secret-2", 2, "tenant-2"),
					ConfigStateChecks: stored("client-2", "wo-secret-2", "tenant-2"),
				},
			)
			tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, acctest.WriteOnlyArguments)
			tc.CheckDestroy = env.Destroyed(acctest.AuthKept, expectListedOAuth(env))
			resource.ParallelTest(t, tc)
		})
	}
}

// The integration can be declared in the same configuration, in both API
// families: the reference orders the provider after it.
func TestAccAuthOAuthProvider_withIntegrationInConfig(t *testing.T) {
	acctest.InBothModes(t, func(t *testing.T, env *acctest.Env) {
		cfg := env.Config(env.Resource("neon_auth_integration", "test") + `
resource "neon_auth_oauth_provider" "test" {
  project_id  = neon_auth_integration.test.project_id
  branch_id   = neon_auth_integration.test.branch_id
  provider_id = "google"
}
`)
		tc := env.TestCase(resource.TestStep{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("type"), knownvalue.StringExact("shared")),
				expectListedOAuth(env, "google shared"),
			},
		})
		tc.CheckDestroy = func(*terraform.State) error {
			if it := env.Integration(); it != nil {
				return fmt.Errorf("destroy left the %s integration", it.AuthProvider)
			}
			return nil
		}
		resource.ParallelTest(t, tc)
	})
}

// Vercel, and a Microsoft app of one Entra tenant: the tenant is changed in
// place; the API never returns it, so an import cannot verify it
// (TestAccAuthOAuthProvider_credentialsReachTheAPI checks that it reached
// the API).
func TestAccAuthOAuthProvider_vercelAndMicrosoftTenant(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	env.EnableAuth()
	cfg := func(tenant string) string {
		return env.Config(env.Resource("neon_auth_oauth_provider", "test", `provider_id = "microsoft"`, `client_id = "ms-app"`,
			`client_secret = "ms-secret"`, "microsoft_tenant_id = "+strconv.Quote(tenant)) +
			env.Resource("neon_auth_oauth_provider", "vercel", `provider_id = "vercel"`))
	}
	tc := env.TestCase(
		resource.TestStep{
			Config: cfg("tenant-1"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("type"), knownvalue.StringExact("standard")),
				statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("microsoft_tenant_id"), knownvalue.StringExact("tenant-1")),
				statecheck.ExpectKnownValue("neon_auth_oauth_provider.vercel", tfjsonpath.New("type"), knownvalue.StringExact("shared")),
				expectListedOAuth(env, "microsoft standard ms-app", "vercel shared"),
			},
		},
		resource.TestStep{
			Config:           cfg("tenant-2"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(oauthAddr, plancheck.ResourceActionUpdate)}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("microsoft_tenant_id"), knownvalue.StringExact("tenant-2")),
				expectListedOAuth(env, "microsoft standard ms-app", "vercel shared"),
			},
		},
		resource.TestStep{ResourceName: oauthAddr, ImportState: true, ImportStateVerify: true,
			// The provider reads neither the credentials nor the tenant.
			ImportStateVerifyIgnore: []string{"client_id", "client_secret", "microsoft_tenant_id"}},
		resource.TestStep{ResourceName: "neon_auth_oauth_provider.vercel", ImportState: true, ImportStateVerify: true},
	)
	tc.CheckDestroy = env.Destroyed(acctest.AuthKept, expectListedOAuth(env))
	resource.ParallelTest(t, tc)
}

// A provider without shared keys, added without credentials: the API's
// INVALID_SHARED_OAUTH_PROVIDER becomes advice on client_id.
func TestAccAuthOAuthProvider_noSharedKeysGivesGuidance(t *testing.T) {
	env := acctest.NewEmulatorEnv(t, "it chooses which OAuth providers have the platform's shared keys", nil)
	env.Mode = authAPIBranch
	env.EnableAuth()
	env.Emu.SetSharedOAuthProviders("google", "github", "vercel")
	resource.ParallelTest(t, env.TestCase(resource.TestStep{
		Config: env.Config(env.Resource("neon_auth_oauth_provider", "test", `provider_id = "microsoft"`)),
		ExpectError: acctest.MatchInOrder("No shared credentials for this OAuth provider", "set `client_id` and a secret",
			"`client_secret`", "client_secret_wo", "INVALID_SHARED_OAUTH_PROVIDER"),
	}))
}

// The branch-scoped reads (the list, and the bundle a refresh reads) can
// carry a standard provider's client_secret: a refresh never puts it into
// state when the configuration did not set it (here the secret is
// write-only), and an import never does either.
func TestAccAuthOAuthProvider_listedSecretNeverReachesState(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	env.EnableAuth()
	cfg := env.Config(env.Resource("neon_auth_oauth_provider", "test", `provider_id = "google"`, `client_id = "google-client"`,
		`client_secret_wo = "listed-secret"`, "client_secret_wo_version = 1"))
	noSecret := []statecheck.StateCheck{
		statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("client_secret"), knownvalue.Null()),
		statecheck.ExpectKnownValue(oauthAddr, tfjsonpath.New("client_secret_wo"), knownvalue.Null()),
	}
	tc := env.TestCase(
		resource.TestStep{Config: cfg, ConfigStateChecks: noSecret},
		resource.TestStep{
			PreConfig: func() {
				inList, _ := env.OAuthProvider("google")
				bundle, err := env.Client().GetPlugins(context.Background(), env.Scope())
				env.Must(err)
				var inBundle []apiclient.OAuthProvider
				_, err = bundle.Part(apiclient.PartOAuthProviders, &inBundle)
				env.Must(err)
				if apiclient.Deref(inList.ClientSecret) != "listed-secret" || len(inBundle) != 1 || apiclient.Deref(inBundle[0].ClientSecret) != "listed-secret" {
					if acctest.Remote() {
						t.Skip("the target's list or bundle does not carry the client secret, so there is none to keep out of the state")
					}
					t.Fatal("the list or the bundle does not carry the secret, so this test proves nothing")
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
		resource.TestStep{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}, ConfigStateChecks: noSecret},
		resource.TestStep{
			ResourceName: oauthAddr, ImportState: true, ImportStateId: env.ProjectID + "/" + env.BranchID + "/google",
			ImportStateCheck: func(states []*terraform.InstanceState) error {
				if v := states[0].Attributes["client_secret"]; v != "" {
					return fmt.Errorf("the imported state holds a client secret (%d chars)", len(v))
				}
				return nil
			},
		},
	)
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, acctest.WriteOnlyArguments)
	resource.ParallelTest(t, tc)
}
