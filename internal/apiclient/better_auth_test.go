package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// bundleScope is a branch of the branch-scoped family: GET …/auth/plugins
// exists only there.
var bundleScope = Scope{ProjectID: "p", BranchID: "br-a", Family: FamilyBranch}

// getBundle decodes body as the answer of GET …/auth/plugins.
func getBundle(t *testing.T, body string) *Plugins {
	t.Helper()
	c := newStubClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/projects/p/branches/br-a/auth/plugins") {
			http.Error(w, `{"message":"unexpected `+r.Method+" "+r.URL.Path+`"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	})
	p, err := c.GetPlugins(context.Background(), bundleScope)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A whole bundle, as the reference's NeonAuthPluginConfigs with the
// response shape of the email provider (password redacted): every part is
// decoded, and the OAuth providers' listed credentials are kept out of
// their printed form.
func TestGetPluginsDecodesTheWholeBundle(t *testing.T) {
	p := getBundle(t, `{
  "organization": {"enabled": true, "organization_limit": 5, "membership_limit": 50, "creator_role": "owner", "send_invitation_email": true},
  "magic_link": {"enabled": true, "expires_in": 15, "disable_sign_up": false},
  "phone_number": {"enabled": true, "otp_expires_in": 120},
  "email_provider": {"type": "standard", "host": "smtp.example.com", "port": 587, "username": "mailer", "password": "",
                     "sender_email": "noreply@example.com", "sender_name": "Example"},
  "email_and_password": {"enabled": true, "email_verification_method": "otp", "require_email_verification": true,
                         "auto_sign_in_after_verification": false, "send_verification_email_on_sign_up": true,
                         "send_verification_email_on_sign_in": false, "disable_sign_up": true},
  "oauth_providers": [{"id": "google", "type": "standard", "client_id": "cid", "client_secret": "listed-secret"}, {"id": "github", "type": "shared"}],
  "allow_localhost": false
}`)
	if p.Organization == nil || *p.Organization != (OrganizationPlugin{Enabled: true, OrganizationLimit: 5, MembershipLimit: 50, CreatorRole: "owner", SendInvitationEmail: true}) {
		t.Errorf("organization = %+v", p.Organization)
	}
	if p.MagicLink == nil || *p.MagicLink != (MagicLinkPlugin{Enabled: true, ExpiresIn: 15}) {
		t.Errorf("magic_link = %+v", p.MagicLink)
	}
	if p.PhoneNumber == nil || !p.PhoneNumber.Enabled || p.PhoneNumber.OTPExpiresIn == nil || *p.PhoneNumber.OTPExpiresIn != 120 {
		t.Errorf("phone_number = %+v", p.PhoneNumber)
	}
	wantEmail := EmailServer{Type: TypeStandard, Host: "smtp.example.com", Port: 587, Username: "mailer", SenderEmail: "noreply@example.com", SenderName: "Example"}
	if p.EmailProvider == nil || *p.EmailProvider != wantEmail {
		t.Errorf("email_provider = %v, want %v", p.EmailProvider, wantEmail)
	}
	wantEP := EmailAndPassword{Enabled: true, EmailVerificationMethod: "otp", RequireEmailVerification: true,
		SendVerificationEmailOnSignUp: true, DisableSignUp: true}
	if p.EmailAndPassword == nil || *p.EmailAndPassword != wantEP {
		t.Errorf("email_and_password = %+v, want %+v", p.EmailAndPassword, wantEP)
	}
	if len(p.OAuthProviders) != 2 || p.OAuthProviders[0].ID != "google" || p.OAuthProviders[0].Type != TypeStandard ||
		p.OAuthProviders[1].ID != "github" || p.OAuthProviders[1].Type != TypeShared {
		t.Errorf("oauth_providers = %v", p.OAuthProviders)
	}
	if printed := fmt.Sprintf("%v %+v %#v", p.OAuthProviders, p.OAuthProviders, p.OAuthProviders); strings.Contains(printed, "listed-secret") {
		t.Errorf("the listed client secret is printed: %s", printed)
	}
	if p.AllowLocalhost == nil || *p.AllowLocalhost {
		t.Errorf("allow_localhost = %v, want a reported false", p.AllowLocalhost)
	}
}

// Every member of NeonAuthPluginConfigs is optional: a part the answer does
// not carry is nil, never a zero value that would read as "disabled", and an
// empty list of OAuth providers is reported (empty, not nil).
func TestGetPluginsTellsAbsentPartsFromZeroValues(t *testing.T) {
	p := getBundle(t, `{"organization": {"enabled": false, "organization_limit": 1, "membership_limit": 1, "creator_role": "admin", "send_invitation_email": false}}`)
	if p.Organization == nil {
		t.Error("organization: reported but decoded as absent")
	}
	if p.MagicLink != nil || p.PhoneNumber != nil || p.EmailProvider != nil || p.EmailAndPassword != nil || p.AllowLocalhost != nil {
		t.Errorf("absent parts decoded as values: %+v", p)
	}
	if p.OAuthProviders != nil {
		t.Errorf("absent oauth_providers = %v, want nil", p.OAuthProviders)
	}

	p = getBundle(t, `{"oauth_providers": [], "email_provider": {"type": "shared"}, "allow_localhost": true}`)
	if p.OAuthProviders == nil || len(p.OAuthProviders) != 0 {
		t.Errorf(`"oauth_providers": [] = %#v, want empty and not nil`, p.OAuthProviders)
	}
	if p.EmailProvider == nil || *p.EmailProvider != (EmailServer{Type: TypeShared}) {
		t.Errorf("shared email_provider = %v", p.EmailProvider)
	}
	if p.AllowLocalhost == nil || !*p.AllowLocalhost {
		t.Errorf("allow_localhost = %v, want a reported true", p.AllowLocalhost)
	}
}
