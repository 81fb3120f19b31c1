package provider

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// Actions (`action_trigger`, `terraform apply -invoke`): Terraform 1.14; no
// OpenTofu release has them.
var actions = capability{"actions (action_trigger, terraform apply -invoke)", tfversion.Version1_14_0, nil}

// actionTestCase is env.testCase on a CLI with actions.
func actionTestCase(env *accEnv, steps ...resource.TestStep) resource.TestCase {
	tc := env.testCase(steps...)
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, actions)
	return tc
}

// triggeredEmailServer is a neon_auth_email_server "test" of the given type
// and sender name (standard: with every setting) that triggers
// action.neon_auth_send_test_email.check after create and update, and that
// action.
func triggeredEmailServer(projectID, typ, senderName string) string {
	settings := ""
	if typ == "standard" {
		settings = fmt.Sprintf(`
  host         = "smtp.example.com"
  port         = 587
  username     = "mailer"
  password     = "smtp-password-4e1d"
  sender_email = "noreply@example.com"
  sender_name  = %q`, senderName)
	}
	return fmt.Sprintf(`
resource "neon_auth_email_server" "test" {
  project_id = %[1]q
  type       = %[2]q%[3]s

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.neon_auth_send_test_email.check]
    }
  }
}

action "neon_auth_send_test_email" "check" {
  config {
    project_id      = neon_auth_email_server.test.project_id
    branch_id       = neon_auth_email_server.test.branch_id
    recipient_email = "ops@example.com"
  }
}
`, projectID, typ, settings)
}

// testEmails is the emulator's record of the test emails sent on the
// production branch.
func testEmails(env *accEnv) []emulator.TestEmail {
	a, _ := env.Emu.BranchAuth(env.ProjectID, env.branch())
	return a.TestEmails
}

// sentEmails checks how many test emails the emulator recorded, each to
// ops@example.com through the saved configuration.
func sentEmails(env *accEnv, want int) statecheck.StateCheck {
	return apiCheck(func() error {
		got := testEmails(env)
		if len(got) != want {
			return fmt.Errorf("%d test emails sent, want %d: %+v", len(got), want, got)
		}
		for _, m := range got {
			if m.Recipient != "ops@example.com" || !m.Saved || m.Host != "smtp.example.com" {
				return fmt.Errorf("test email %+v, want one to ops@example.com through the saved smtp.example.com", m)
			}
		}
		return nil
	})
}

func TestAccActionSendTestEmail_triggeredAfterCreateAndUpdate(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	withIntegration(t, env) // better_auth
	resource.Test(t, actionTestCase(env,
		resource.TestStep{
			Config:            env.config(triggeredEmailServer(env.ProjectID, "standard", "Example")),
			ConfigStateChecks: []statecheck.StateCheck{sentEmails(env, 1)},
		},
		// No change: no trigger, no email.
		resource.TestStep{
			Config:            env.config(triggeredEmailServer(env.ProjectID, "standard", "Example")),
			ConfigPlanChecks:  noChanges(),
			ConfigStateChecks: []statecheck.StateCheck{sentEmails(env, 1)},
		},
		resource.TestStep{
			Config:            env.config(triggeredEmailServer(env.ProjectID, "standard", "Example Ops")),
			ConfigStateChecks: []statecheck.StateCheck{sentEmails(env, 2)},
		},
	))
}

func TestAccActionSendTestEmail_refusesSharedServer(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	withIntegration(t, env)
	resource.Test(t, actionTestCase(env,
		resource.TestStep{
			Config:      env.config(triggeredEmailServer(env.ProjectID, "shared", "")),
			ExpectError: matchInOrder("Unable to send the test email", "uses the shared email server, which cannot be tested"),
		},
		resource.TestStep{
			// Nothing was sent: the refusal came before any request.
			Config: env.config(triggeredEmailServer(env.ProjectID, "shared", "")),
			ConfigStateChecks: []statecheck.StateCheck{apiCheck(func() error {
				if n := len(testEmails(env)); n != 0 {
					return fmt.Errorf("%d test emails sent through a shared server", n)
				}
				return nil
			})},
		},
	))
}

func TestAccActionSendTestEmail_refusesProjectModeAtPlan(t *testing.T) {
	env := newAccEnv(t) // project mode
	withIntegration(t, env)
	resource.Test(t, actionTestCase(env,
		resource.TestStep{
			Config:             env.config(triggeredEmailServer(env.ProjectID, "standard", "Example")),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ExpectError:        matchInOrder("Unable to plan the test email", `auth_api = "project"`, `auth_api = "branch"`),
		},
	))
}

func TestAccActionSendTestEmail_smtpSettingsAllOrNone(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	resource.Test(t, actionTestCase(env,
		resource.TestStep{
			Config: env.config(fmt.Sprintf(`
action "neon_auth_send_test_email" "partial" {
  config {
    project_id      = %q
    recipient_email = "ops@example.com"
    host            = "smtp.example.com"
  }
}
`, env.ProjectID)),
			PlanOnly:    true,
			ExpectError: matchInOrder("Missing SMTP setting for the test email", "`port` is required when any SMTP setting is given"),
		},
	))
}

func TestAccActionSendTestEmail_refusesStackAuthAtPlan(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	withIntegrationOf(t, env, apiclient.AuthProviderStack)
	resource.Test(t, actionTestCase(env,
		resource.TestStep{
			// The action's arguments are known at plan (not taken from the
			// email server, whose branch_id is computed at creation).
			Config: env.config(strings.NewReplacer(
				"neon_auth_email_server.test.project_id", fmt.Sprintf("%q", env.ProjectID),
				`
    branch_id       = neon_auth_email_server.test.branch_id`, "",
			).Replace(triggeredEmailServer(env.ProjectID, "standard", "Example"))),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ExpectError:        matchInOrder("Unable to plan the test email", "is stack; only a better_auth integration", "SMTP settings"),
		},
	))
}

// failingMailServer answers every POST …/email_provider/test as a mail server
// that rejects the login would: success false, with its complaint.
func failingMailServer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/auth/email_provider/test") {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"success":false,"error_message":"535 5.7.8 authentication failed"}`)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestAccActionSendTestEmail_failsWithTheMailServersComplaint(t *testing.T) {
	env := newAccEnvWith(t, failingMailServer)
	env.Mode = authAPIBranch
	withIntegration(t, env)
	resource.Test(t, actionTestCase(env,
		resource.TestStep{
			Config:      env.config(triggeredEmailServer(env.ProjectID, "standard", "Example")),
			ExpectError: matchInOrder("Unable to send the test email", "ops@example.com", "not accepted", "535 5.7.8 authentication failed"),
		},
	))
}

// TestAccActionSendTestEmail_invokeThroughCLI runs the action on its own,
// with `terraform apply -invoke` (which terraform-plugin-testing cannot):
// through the saved server, then through SMTP settings not saved, whose
// password (from a sensitive variable) no output shows.
func TestAccActionSendTestEmail_invokeThroughCLI(t *testing.T) {
	env := newAccEnv(t)
	env.Mode = authAPIBranch
	cli := newCLIDir(t)
	skipUnless(t, cli, actions)
	withIntegration(t, env)
	const unsavedPassword = "unsaved-smtp-password-0b7e"
	cli.write("main.tf", requiredProviders+env.providerBlock()+fmt.Sprintf(`
resource "neon_auth_email_server" "test" {
  project_id   = %[1]q
  type         = "standard"
  host         = "smtp.example.com"
  port         = 587
  username     = "mailer"
  password     = "smtp-password-4e1d"
  sender_email = "noreply@example.com"
  sender_name  = "Example"
}

action "neon_auth_send_test_email" "saved" {
  config {
    project_id      = %[1]q
    recipient_email = "ops@example.com"
  }
}

# An action's schema cannot mark an argument sensitive: the password comes
# from a sensitive variable, so that the plan of the invocation hides it.
variable "smtp_password" {
  type      = string
  sensitive = true
  default   = %[2]q
}

action "neon_auth_send_test_email" "unsaved" {
  config {
    project_id      = %[1]q
    recipient_email = "dev@example.com"
    host            = "smtp.other.example"
    port            = 465
    username        = "other"
    password        = var.smtp_password
    sender_email    = "noreply@other.example"
    sender_name     = "Other"
  }
}
`, env.ProjectID, unsavedPassword))
	cli.must(0, "init", "-input=false")
	// Before the email server exists: nothing configured, refused before any
	// request.
	out := cli.must(1, "apply", "-input=false", "-auto-approve", "-invoke=action.neon_auth_send_test_email.saved")
	if !matchInOrder("No email server configured yet", "Unable to send the test email", "has no email server configured").MatchString(out) {
		t.Errorf("-invoke with no email server:\n%s", out)
	}
	if got := env.routeCount(env.authRoute(http.MethodPost, "/email_provider/test")); got != 0 {
		t.Errorf("%d requests to email_provider/test with no email server, want none", got)
	}
	cli.must(0, "apply", "-input=false", "-auto-approve")
	if n := len(testEmails(env)); n != 0 {
		t.Fatalf("%d test emails sent by a plain apply, want none (no trigger)", n)
	}

	out = cli.must(0, "apply", "-input=false", "-auto-approve", "-invoke=action.neon_auth_send_test_email.saved")
	for _, want := range []string{"Sending a test email to ops@example.com", "Test email to ops@example.com sent through the saved email server"} {
		if !strings.Contains(out, want) {
			t.Errorf("-invoke output lacks %q:\n%s", want, out)
		}
	}
	if got := testEmails(env); len(got) != 1 || got[0].Recipient != "ops@example.com" || !got[0].Saved {
		t.Fatalf("test emails after -invoke = %+v, want one to ops@example.com through the saved server", got)
	}
	if got := env.routeCount(env.authRoute(http.MethodPost, "/email_provider/test")); got != 1 {
		t.Errorf("%d requests to email_provider/test after one -invoke, want 1", got)
	}

	out = cli.must(0, "apply", "-input=false", "-auto-approve", "-invoke=action.neon_auth_send_test_email.unsaved")
	for _, want := range []string{"Test email to dev@example.com sent through the SMTP server smtp.other.example:465", "deprecated"} {
		if !strings.Contains(out, want) {
			t.Errorf("-invoke output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, unsavedPassword) {
		t.Errorf("-invoke output shows the SMTP password:\n%s", out)
	}
	got := testEmails(env)
	if len(got) != 2 || got[1].Recipient != "dev@example.com" || got[1].Saved || got[1].Host != "smtp.other.example" || got[1].Port != 465 {
		t.Fatalf("test emails after the second -invoke = %+v, want a second one to dev@example.com through smtp.other.example:465", got)
	}
}
