package provider

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// Actions (`action_trigger`, `terraform apply -invoke`): Terraform 1.14; no
// OpenTofu release has them.
var actions = acctest.Capability{Name: "actions (action_trigger, terraform apply -invoke)", Terraform: tfversion.Version1_14_0}

// triggeredEmailServer is a neon_auth_email_server "test" on the test's
// branch of the given type and sender name (standard: as
// standardEmailServerArgs sets it) that triggers
// action.neon_auth_send_test_email.check after create and update, and that
// action.
func triggeredEmailServer(env *acctest.Env, typ, senderName string) string {
	settings := `type = "shared"`
	if typ == "standard" {
		settings = fmt.Sprintf(standardEmailServerArgs, "smtp.example.com", senderName, `password = "smtp-password-4e1d"`)
	}
	return env.Resource("neon_auth_email_server", "test", settings, `
  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.neon_auth_send_test_email.check]
    }
  }`) + `
action "neon_auth_send_test_email" "check" {
  config {
    project_id      = neon_auth_email_server.test.project_id
    branch_id       = neon_auth_email_server.test.branch_id
    recipient_email = "ops@example.com"
  }
}
`
}

// invokedActions is a standard email server on project %[1]q, branch %[2]q,
// and two actions to invoke by hand: one through it, one through SMTP
// settings not saved, whose password is %[3]q.
const invokedActions = `
resource "neon_auth_email_server" "test" {
  project_id   = %[1]q
  branch_id    = %[2]q
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
    branch_id       = %[2]q
    recipient_email = "ops@example.com"
  }
}

# An action's schema cannot mark an argument sensitive: the password comes
# from a sensitive variable, so that the plan of the invocation hides it.
variable "smtp_password" {
  type      = string
  sensitive = true
  default   = %[3]q
}

action "neon_auth_send_test_email" "unsaved" {
  config {
    project_id      = %[1]q
    branch_id       = %[2]q
    recipient_email = "dev@example.com"
    host            = "smtp.other.example"
    port            = 465
    username        = "other"
    password        = var.smtp_password
    sender_email    = "noreply@other.example"
    sender_name     = "Other"
  }
}
`

// The action runs after the email server is created and after it is
// updated, never on a run without change; a shared server it refuses before
// any request.
func TestAccActionSendTestEmail_triggeredAfterCreateAndUpdate(t *testing.T) {
	env := acctest.NewEmulatorEnv(t, "it reads the test emails the emulator recorded (no API lists the mail a server sent) and counts requests", nil)
	env.Mode = authAPIBranch
	env.EnableAuth() // better_auth
	// sent checks the test emails recorded: want of them, each to
	// ops@example.com through the saved configuration, and as many requests
	// to send one.
	sent := func(want int) []statecheck.StateCheck {
		return []statecheck.StateCheck{acctest.APICheck(func() error {
			a, _ := env.Emu.BranchAuth(env.ProjectID, env.BranchID)
			if n := env.RouteCount("POST /auth/email_provider/test"); len(a.TestEmails) != want || n != want {
				return fmt.Errorf("%d test emails sent in %d requests, want %d: %+v", len(a.TestEmails), n, want, a.TestEmails)
			}
			for _, m := range a.TestEmails {
				if m.Recipient != "ops@example.com" || !m.Saved || m.Host != "smtp.example.com" {
					return fmt.Errorf("test email %+v, want one to ops@example.com through the saved smtp.example.com", m)
				}
			}
			return nil
		})}
	}
	tc := env.TestCase(
		resource.TestStep{Config: env.Config(triggeredEmailServer(env, "standard", "Example")), ConfigStateChecks: sent(1)},
		// No change: no trigger, no email.
		resource.TestStep{
			Config:            env.Config(triggeredEmailServer(env, "standard", "Example")),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: sent(1),
		},
		resource.TestStep{Config: env.Config(triggeredEmailServer(env, "standard", "Example Ops")), ConfigStateChecks: sent(2)},
		resource.TestStep{
			Config:      env.Config(triggeredEmailServer(env, "shared", "")),
			ExpectError: acctest.MatchInOrder("Unable to send the test email", "uses the shared email server, which cannot be tested"),
		},
		// Nothing was sent: the refusal came before any request.
		resource.TestStep{Config: env.Config(triggeredEmailServer(env, "shared", "")), ConfigStateChecks: sent(2)},
	)
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, actions)
	resource.Test(t, tc)
}

// A shared server cannot be tested: the action triggered by its creation
// fails, saying so; the server is created all the same, and a run without
// change triggers nothing.
func TestAccActionSendTestEmail_refusesSharedServer(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	env.EnableAuth()
	tc := env.TestCase(
		resource.TestStep{
			Config:      env.Config(triggeredEmailServer(env, "shared", "")),
			ExpectError: acctest.MatchInOrder("Unable to send the test email", "uses the shared email server, which cannot be tested"),
		},
		resource.TestStep{
			Config:           env.Config(triggeredEmailServer(env, "shared", "")),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
	)
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, actions)
	resource.Test(t, tc)
}

func TestAccActionSendTestEmail_refusesProjectModeAtPlan(t *testing.T) {
	env := acctest.NewProjectEnv(t) // project mode
	env.EnableAuth()
	tc := env.TestCase(resource.TestStep{
		Config:             env.Config(triggeredEmailServer(env, "standard", "Example")),
		PlanOnly:           true,
		ExpectNonEmptyPlan: true,
		ExpectError:        acctest.MatchInOrder("Unable to plan the test email", `auth_api = "project"`, `auth_api = "branch"`),
	})
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, actions)
	resource.Test(t, tc)
}

func TestAccActionSendTestEmail_smtpSettingsAllOrNone(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	tc := env.TestCase(resource.TestStep{
		Config: env.Config(fmt.Sprintf(`
action "neon_auth_send_test_email" "partial" {
  config {
    project_id      = %q
    branch_id       = %q
    recipient_email = "ops@example.com"
    host            = "smtp.example.com"
  }
}
`, env.ProjectID, env.BranchID)),
		PlanOnly:    true,
		ExpectError: acctest.MatchInOrder("Missing SMTP setting for the test email", "`port` is required when any SMTP setting is given"),
	})
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, actions)
	resource.Test(t, tc)
}

// A Stack Auth integration cannot test its saved server: the plan says so
// (the action's project_id and branch_id are known at plan, configured on
// the email server).
func TestAccActionSendTestEmail_refusesStackAuthAtPlan(t *testing.T) {
	env := acctest.NewProjectEnv(t) // Stack Auth needs a production branch
	env.Mode = authAPIBranch
	env.EnableAuth(apiclient.AuthProviderStack)
	tc := env.TestCase(resource.TestStep{
		Config:             env.Config(triggeredEmailServer(env, "standard", "Example")),
		PlanOnly:           true,
		ExpectNonEmptyPlan: true,
		ExpectError:        acctest.MatchInOrder("Unable to plan the test email", "is stack; only a better_auth integration", "SMTP settings"),
	})
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, actions)
	resource.Test(t, tc)
}

// A mail server that rejects the test email: the action fails with its
// complaint.
func TestAccActionSendTestEmail_failsWithTheMailServersComplaint(t *testing.T) {
	// Every POST …/email_provider/test is answered as a mail server that
	// rejects the login would: success false, with its complaint.
	failingMailServer := func(next http.Handler) http.Handler {
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
	env := acctest.NewEmulatorEnv(t, "it answers the test email as a mail server that rejects it", failingMailServer)
	env.Mode = authAPIBranch
	env.EnableAuth()
	tc := env.TestCase(resource.TestStep{
		Config:      env.Config(triggeredEmailServer(env, "standard", "Example")),
		ExpectError: acctest.MatchInOrder("Unable to send the test email", "ops@example.com", "not accepted", "535 5.7.8 authentication failed"),
	})
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, actions)
	resource.Test(t, tc)
}

// TestAccActionSendTestEmail_invokeThroughCLI runs the action on its own,
// with `terraform apply -invoke` (which terraform-plugin-testing cannot):
// refused before the email server exists, then through the saved server,
// then through SMTP settings not saved, whose password (from a sensitive
// variable) no output shows.
func TestAccActionSendTestEmail_invokeThroughCLI(t *testing.T) {
	env := acctest.NewBranchEnv(t)
	cli := env.CLI(nil, nil)
	if why := acctest.Lacks(t, actions); why != "" {
		t.Skip(why)
	}
	env.EnableAuth()
	const unsavedPassword = "unsaved-smtp-password-0b7e"
	cli.Write("main.tf", acctest.RequiredProviders+env.Config(fmt.Sprintf(invokedActions, env.ProjectID, env.BranchID, unsavedPassword)))
	cli.Must(0, "init", "-input=false")
	out := cli.Must(1, "apply", "-input=false", "-auto-approve", "-invoke=action.neon_auth_send_test_email.saved")
	if !acctest.MatchInOrder("No email server configured yet", "Unable to send the test email", "has no email server configured").MatchString(out) {
		t.Errorf("-invoke with no email server:\n%s", out)
	}
	cli.Must(0, "apply", "-input=false", "-auto-approve")

	// Whether the mail server takes the test email is the target's to say
	// (the emulator takes every one; Neon's reaches no server at these
	// hosts): the action reports either outcome.
	for _, c := range []struct{ action, to, through string }{
		{"saved", "ops@example.com", "the saved email server"},
		{"unsaved", "dev@example.com", "the SMTP server smtp.other.example:465"},
	} {
		code, out := cli.Run("apply", "-input=false", "-auto-approve", "-invoke=action.neon_auth_send_test_email."+c.action)
		outcome := acctest.MatchInOrder("Sending a test email to "+c.to+" through "+c.through, "Test email to "+c.to+" sent through "+c.through)
		if code != 0 {
			outcome = acctest.MatchInOrder("Sending a test email to "+c.to+" through "+c.through, "Test email to "+c.to+" failed",
				"Unable to send the test email", "The test email to "+c.to+" through "+c.through, "was not accepted")
		}
		if !outcome.MatchString(out) {
			t.Errorf("-invoke of %s exited %d; its output lacks the progress or the outcome:\n%s", c.action, code, out)
		}
		if c.action == "unsaved" && !strings.Contains(out, "deprecated") {
			t.Errorf("-invoke of %s does not warn of the deprecated endpoint:\n%s", c.action, out)
		}
		if strings.Contains(out, unsavedPassword) {
			t.Errorf("-invoke of %s shows the SMTP password:\n%s", c.action, out)
		}
	}
}

// The invocations of TestAccActionSendTestEmail_invokeThroughCLI send one
// test email each, through the server they name; the refused one sends no
// request, nor does a plain apply.
func TestAccActionSendTestEmail_invokeSendsOneEmailEach(t *testing.T) {
	env := acctest.NewEmulatorEnv(t, "it reads the test emails the emulator recorded (no API lists the mail a server sent) and counts requests", nil)
	env.Mode = authAPIBranch
	cli := env.CLI(nil, nil)
	if why := acctest.Lacks(t, actions); why != "" {
		t.Skip(why)
	}
	env.EnableAuth()
	cli.Write("main.tf", acctest.RequiredProviders+env.Config(fmt.Sprintf(invokedActions, env.ProjectID, env.BranchID, "unsaved-smtp-password-0b7e")))
	cli.Must(0, "init", "-input=false")
	cli.Must(1, "apply", "-input=false", "-auto-approve", "-invoke=action.neon_auth_send_test_email.saved")
	cli.Must(0, "apply", "-input=false", "-auto-approve")
	cli.Must(0, "apply", "-input=false", "-auto-approve", "-invoke=action.neon_auth_send_test_email.saved")
	cli.Must(0, "apply", "-input=false", "-auto-approve", "-invoke=action.neon_auth_send_test_email.unsaved")
	a, _ := env.Emu.BranchAuth(env.ProjectID, env.BranchID)
	if got := a.TestEmails; len(got) != 2 || got[0].Recipient != "ops@example.com" || !got[0].Saved || got[0].Host != "smtp.example.com" ||
		got[1].Recipient != "dev@example.com" || got[1].Saved || got[1].Host != "smtp.other.example" || got[1].Port != 465 {
		t.Fatalf("test emails = %+v, want one to ops@example.com through the saved smtp.example.com, then one to dev@example.com "+
			"through smtp.other.example:465", got)
	}
	if n := env.RouteCount("POST /auth/email_provider/test"); n != 1 {
		t.Errorf("%d requests to email_provider/test, want 1: the one -invoke through the saved server", n)
	}
}
