package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

// The life of every Better Auth settings resource on a branch: create (the
// settings it omits keep the branch's values, which it reads), import by
// `<project_id>/<branch_id>`, update in place, drift (changed behind
// Terraform's back) repaired, and destroy, which restores what was found.
func TestAccSettings_lifecycle(t *testing.T) {
	for _, c := range acctest.SettingsCases {
		t.Run(c.TypeName, func(t *testing.T) {
			env := acctest.NewBranchEnv(t)
			env.EnableAuth()
			addr := c.TypeName + ".test"
			cfg := func(args string) string {
				return env.Config(env.Resource(c.TypeName, "test", strings.TrimSpace(args)))
			}
			found, err := c.API.Read(env, env.BranchID)
			env.Must(err)
			created, err := c.API.Patched(found, c.OnCreate)
			env.Must(err)
			updated, err := c.API.Patched(created, c.OnUpdate)
			env.Must(err)
			// returns checks that the API returns want as the settings.
			returns := func(when, want string) acctest.APICheck {
				return func() error {
					got, err := c.API.Read(env, env.BranchID)
					if err != nil {
						return fmt.Errorf("%s: %w", when, err)
					}
					if got != want {
						return fmt.Errorf("%s the API returns %s, want %s", when, got, want)
					}
					return nil
				}
			}
			var createdChecks, updatedChecks []statecheck.StateCheck
			for attr, v := range c.Created {
				createdChecks = append(createdChecks, statecheck.ExpectKnownValue(addr, tfjsonpath.New(attr), v))
			}
			for attr, v := range c.Updated {
				updatedChecks = append(updatedChecks, statecheck.ExpectKnownValue(addr, tfjsonpath.New(attr), v))
			}
			tc := env.TestCase(
				resource.TestStep{
					Config:           cfg(c.Create),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)}},
					ConfigStateChecks: append(createdChecks,
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(env.ProjectID+"/"+env.BranchID)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("branch_id"), knownvalue.StringExact(env.BranchID)),
						returns("after create", created)),
				},
				resource.TestStep{ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateId: env.ProjectID + "/" + env.BranchID},
				resource.TestStep{
					Config:            cfg(c.Update),
					ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
					ConfigStateChecks: append(updatedChecks, returns("after update", updated)),
				},
				resource.TestStep{
					PreConfig:         func() { env.Must(c.API.Patch(env, env.BranchID, c.Drift)) },
					Config:            cfg(c.Update),
					ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
					ConfigStateChecks: []statecheck.StateCheck{returns("after repairing drift", updated)},
				},
			)
			tc.CheckDestroy = env.Destroyed(acctest.AuthKept, returns("after destroy (the settings found at creation)", found))
			resource.ParallelTest(t, tc)
		})
	}
}

// The settings resources of one branch read every setting GET …/auth/plugins
// reports with that one request per refresh, and only the others at their
// own paths.
func TestAccSettings_bundledSettingsShareOneRead(t *testing.T) {
	env := acctest.NewEmulatorEnv(t, "it counts the requests of one refresh by route, as the emulator records them", nil)
	env.Mode = authAPIBranch
	env.EnableAuth()
	var body strings.Builder
	want := map[string]int{"GET /auth/plugins": 1}
	for _, c := range acctest.SettingsCases {
		body.WriteString(env.Resource(c.TypeName, "test", strings.TrimSpace(c.Create)))
		if set := c.API.Setting; set.Read {
			want["GET /auth/"+set.Path] = 1
			if set.Bundled {
				want["GET /auth/"+set.Path] = 0
			}
		}
	}
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{Config: env.Config(body.String())},
		refreshRequests(env, "every settings resource of one branch", want),
	))
}

// Only GET …/auth answering 404 means "Neon Auth not enabled". The endpoint
// the settings are read from answering 404 while Neon Auth is there (as a
// path Neon moved does) is reported, and the state is kept: never read as
// "the settings are gone", which would plan to create them again and again.
// That endpoint is the bundle (GET …/auth/plugins), or the plugin's own
// GET …/auth/plugins/phone-number when the bundle does not carry it.
func TestAccAuthPhoneNumberPlugin_ownNotFoundIsNotAbsence(t *testing.T) {
	const (
		healthy = iota
		bundleMoved
		ownMoved // the bundle lacks phone_number, and the plugin's own path moved
	)
	var fault atomic.Int32
	notFound := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"code":"","message":"not found","request_id":"moved-path"}`))
	}
	env := acctest.NewEmulatorEnv(t, "it answers 404 from a path that still exists", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f := fault.Load()
			switch {
			case r.Method != http.MethodGet || f == healthy:
			case f == bundleMoved && strings.HasSuffix(r.URL.Path, "/auth/plugins"):
				notFound(w)
				return
			case f == ownMoved && strings.HasSuffix(r.URL.Path, "/auth/plugins/phone-number"):
				notFound(w)
				return
			case f == ownMoved && strings.HasSuffix(r.URL.Path, "/auth/plugins"):
				rec := httptest.NewRecorder()
				next.ServeHTTP(rec, r)
				var bundle map[string]json.RawMessage
				if err := json.Unmarshal(rec.Body.Bytes(), &bundle); err != nil {
					t.Errorf("decoding the bundle: %v", err)
				}
				delete(bundle, "phone_number")
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(bundle)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	env.Mode = authAPIBranch
	env.EnableAuth()
	cfg := env.Config(env.Resource("neon_auth_phone_number_plugin", "test", "enabled = true"))
	movedStep := func(f int32) resource.TestStep {
		return resource.TestStep{
			PreConfig:   func() { fault.Store(f) },
			Config:      cfg,
			ExpectError: acctest.MatchInOrder("Unable to Read Auth Phone Number Plugin", "HTTP 404", "Neon Auth is enabled on the", "not the settings' absence"),
		}
	}
	resource.ParallelTest(t, env.TestCase(
		resource.TestStep{Config: cfg},
		movedStep(bundleMoved),
		movedStep(ownMoved),
		resource.TestStep{
			PreConfig:        func() { fault.Store(healthy) },
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
	))
}
