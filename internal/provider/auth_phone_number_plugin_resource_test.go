package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// phoneNumberStateV0 is a state as releases before schema version 1 wrote
// it (allowed_attempts set), for project %[1]s and branch %[2]s.
const phoneNumberStateV0 = `{
  "version": 4,
  "terraform_version": "1.8.0",
  "serial": 3,
  "lineage": "0d5b2f4e-9a51-4c3e-8f0e-5d6c3b1a2e71",
  "outputs": {},
  "resources": [
    {
      "mode": "managed",
      "type": "neon_auth_phone_number_plugin",
      "name": "this",
      "provider": "provider[\"registry.terraform.io/neon-auth/neon\"]",
      "instances": [
        {
          "schema_version": 0,
          "attributes": {
            "allowed_attempts": 3,
            "branch_id": %[2]q,
            "enabled": true,
            "id": "%[1]s/%[2]s",
            "otp_expires_in": 120,
            "project_id": %[1]q
          },
          "sensitive_attributes": []
        }
      ]
    }
  ],
  "check_results": null
}
`

// A state written before allowed_attempts was removed upgrades in place: the
// plan is empty and nothing is written. A configuration that still sets it
// fails at plan, on that line, saying Neon removed it, and writes nothing
// either.
func TestAccAuthPhoneNumberPlugin_upgradeDropsAllowedAttempts(t *testing.T) {
	env := newBranchEnv(t)
	env.enableAuth()
	_, err := apiclient.WriteSetting[neonapi.NeonAuthPhoneNumberConfig](context.Background(), env.client(), env.scope(), betterauth.PhoneNumber,
		neonapi.NeonAuthPhoneNumberConfig{Enabled: true, OTPExpiresIn: apiclient.Ptr(120)})
	env.must(err)
	p, sent := env.counted()
	cli := newCLIDir(t, p, nil)
	config := func(extra ...string) string {
		return requiredProviders + env.providerBlock() +
			env.resource("neon_auth_phone_number_plugin", "this", append([]string{"enabled        = true", "otp_expires_in = 120"}, extra...)...)
	}
	cli.write("main.tf", config())
	cli.write("terraform.tfstate", fmt.Sprintf(phoneNumberStateV0, env.ProjectID, env.BranchID))
	cli.must(0, "init")

	cli.must(0, "plan", "-detailed-exitcode", "-input=false")
	cli.must(0, "apply", "-auto-approve", "-input=false")
	if n := sent.writes.Load(); n != 0 {
		t.Errorf("the upgraded state sent %d writes, want none", n)
	}
	var st struct {
		Resources []struct {
			Instances []struct {
				SchemaVersion int            `json:"schema_version"`
				Attributes    map[string]any `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(cli.read("terraform.tfstate")), &st); err != nil {
		t.Fatal(err)
	}
	inst := st.Resources[0].Instances[0]
	if inst.SchemaVersion != phoneNumberSchemaVersion || inst.Attributes["allowed_attempts"] != nil || inst.Attributes["otp_expires_in"] != float64(120) {
		t.Errorf("upgraded state: schema version %d, attributes %v", inst.SchemaVersion, inst.Attributes)
	}

	cli.write("main.tf", config("allowed_attempts = 3"))
	code, out := cli.run("plan", "-input=false")
	flat := strings.Join(strings.Fields(out), " ")
	if code != 1 || !strings.Contains(flat, "allowed_attempts") || !strings.Contains(flat, "Neon removed `allowed_attempts`") ||
		!strings.Contains(flat, "Delete the `allowed_attempts` line") {
		t.Errorf("plan with allowed_attempts exited %d:\n%s", code, out)
	}
	if n := sent.writes.Load(); n != 0 {
		t.Errorf("%d writes were sent", n)
	}
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
	env := newEmulatorEnv(t, "it answers 404 from a path that still exists", func(next http.Handler) http.Handler {
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
	env.enableAuth()
	cfg := env.config(env.resource("neon_auth_phone_number_plugin", "test", "enabled = true"))
	movedStep := func(f int32) resource.TestStep {
		return resource.TestStep{
			PreConfig:   func() { fault.Store(f) },
			Config:      cfg,
			ExpectError: matchInOrder("Unable to Read Auth Phone Number Plugin", "HTTP 404", "Neon Auth is enabled on the", "not the settings' absence"),
		}
	}
	resource.ParallelTest(t, env.testCase(
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
