package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// phoneNumberStateV0 is a state as releases before schema version 1 wrote
// it: allowed_attempts set.
func phoneNumberStateV0(projectID, branchID string) string {
	return fmt.Sprintf(`{
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
`, projectID, branchID)
}

// A state written before allowed_attempts was removed upgrades in place: the
// plan is empty and nothing is written. A configuration that still sets it
// fails at plan, on that line, saying Neon removed it.
func TestAccAuthPhoneNumberPlugin_upgradeDropsAllowedAttempts(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	withIntegration(t, env)
	on, seconds := true, int64(120)
	mustDo(t, func() error {
		_, err := env.client().UpdatePhoneNumberPlugin(context.Background(), env.scope(),
			apiclient.PhoneNumberPluginUpdate{Enabled: &on, OTPExpiresIn: &seconds})
		return err
	})
	cli := newCLIDir(t)
	resourceBlock := func(extra string) string {
		return fmt.Sprintf(`
resource "neon_auth_phone_number_plugin" "this" {
  project_id     = %[1]q
  branch_id      = %[2]q
  enabled        = true
  otp_expires_in = 120
%[3]s}
`, env.ProjectID, env.branch(), extra)
	}
	cli.write("main.tf", requiredProviders+env.providerBlock()+resourceBlock(""))
	cli.write("terraform.tfstate", phoneNumberStateV0(env.ProjectID, env.branch()))
	cli.must(0, "init")
	env.Emu.ResetStats()

	patch := "PATCH /projects/{project_id}/branches/{branch_id}/auth/plugins/phone-number"
	cli.must(0, "plan", "-detailed-exitcode", "-input=false")
	cli.must(0, "apply", "-auto-approve", "-input=false")
	if n := env.routeCount(patch); n != 0 {
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

	cli.write("main.tf", requiredProviders+env.providerBlock()+resourceBlock("  allowed_attempts = 3\n"))
	code, out := cli.run("plan", "-input=false")
	flat := strings.Join(strings.Fields(out), " ")
	if code != 1 || !strings.Contains(flat, "allowed_attempts") || !strings.Contains(flat, "Neon removed `allowed_attempts`") ||
		!strings.Contains(flat, "Delete the `allowed_attempts` line") {
		t.Errorf("plan with allowed_attempts exited %d:\n%s", code, out)
	}
	if n := env.routeCount(patch); n != 0 {
		t.Errorf("%d writes were sent", n)
	}
}
