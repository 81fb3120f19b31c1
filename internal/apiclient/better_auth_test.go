package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
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

// part decodes a part of the bundle as T, failing when the answer lacks it.
func part[T any](t *testing.T, p *Plugins, name string) T {
	t.Helper()
	var v T
	ok, err := p.Part(name, &v)
	if err != nil || !ok {
		t.Fatalf("part %s: reported %v, %v", name, ok, err)
	}
	return v
}

// A whole bundle, as the reference's NeonAuthPluginConfigs with the
// response shape of the email provider (password redacted): every part
// decodes into its reference type, and the OAuth providers' listed
// credentials are kept out of their printed form.
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
	if got := part[neonapi.NeonAuthOrganizationConfig](t, p, betterauth.Organization.Name); got != (neonapi.NeonAuthOrganizationConfig{
		Enabled: true, OrganizationLimit: 5, MembershipLimit: 50, CreatorRole: "owner", SendInvitationEmail: true}) {
		t.Errorf("organization = %+v", got)
	}
	if got := part[neonapi.NeonAuthMagicLinkConfig](t, p, betterauth.MagicLink.Name); got != (neonapi.NeonAuthMagicLinkConfig{Enabled: true, ExpiresIn: 15}) {
		t.Errorf("magic_link = %+v", got)
	}
	if got := part[neonapi.NeonAuthPhoneNumberConfig](t, p, betterauth.PhoneNumber.Name); !got.Enabled || Deref(got.OTPExpiresIn) != 120 {
		t.Errorf("phone_number = %+v", got)
	}
	email := part[EmailServer](t, p, PartEmailProvider)
	if string(email.Type) != TypeStandard || Deref(email.Host) != "smtp.example.com" || Deref(email.Port) != 587 || Deref(email.Username) != "mailer" ||
		Deref(email.SenderEmail) != "noreply@example.com" || Deref(email.SenderName) != "Example" || Deref(email.Password) != "" {
		t.Errorf("email_provider = %v", email)
	}
	wantEP := neonapi.NeonAuthEmailAndPasswordConfig{Enabled: true, EmailVerificationMethod: "otp", RequireEmailVerification: true,
		SendVerificationEmailOnSignUp: true, DisableSignUp: true}
	if got := part[neonapi.NeonAuthEmailAndPasswordConfig](t, p, betterauth.EmailAndPassword.Name); got != wantEP {
		t.Errorf("email_and_password = %+v, want %+v", got, wantEP)
	}
	oauth := part[[]OAuthProvider](t, p, PartOAuthProviders)
	if len(oauth) != 2 || oauth[0].ID != "google" || string(oauth[0].Type) != TypeStandard || oauth[1].ID != "github" || string(oauth[1].Type) != TypeShared {
		t.Errorf("oauth_providers = %v", oauth)
	}
	if printed := fmt.Sprintf("%v %+v %#v", oauth, oauth, oauth); strings.Contains(printed, "listed-secret") {
		t.Errorf("the listed client secret is printed: %s", printed)
	}
	if allow := part[bool](t, p, PartAllowLocalhost); allow {
		t.Error("allow_localhost = true, want the reported false")
	}
}

// Every member of NeonAuthPluginConfigs is optional: a part the answer does
// not carry is reported missing, never a zero value that would read as
// "disabled", and an empty list of OAuth providers is reported (empty).
func TestGetPluginsTellsAbsentPartsFromZeroValues(t *testing.T) {
	p := getBundle(t, `{"organization": {"enabled": false, "organization_limit": 1, "membership_limit": 1, "creator_role": "admin", "send_invitation_email": false}}`)
	part[neonapi.NeonAuthOrganizationConfig](t, p, betterauth.Organization.Name)
	for _, name := range []string{betterauth.MagicLink.Name, betterauth.PhoneNumber.Name, PartEmailProvider, betterauth.EmailAndPassword.Name,
		PartAllowLocalhost, PartOAuthProviders} {
		var v any
		if ok, err := p.Part(name, &v); ok || err != nil {
			t.Errorf("absent part %s reported (%v, %v)", name, ok, err)
		}
	}

	p = getBundle(t, `{"oauth_providers": [], "email_provider": {"type": "shared"}, "allow_localhost": true}`)
	if oauth := part[[]OAuthProvider](t, p, PartOAuthProviders); oauth == nil || len(oauth) != 0 {
		t.Errorf(`"oauth_providers": [] = %#v, want empty and not nil`, oauth)
	}
	if email := part[EmailServer](t, p, PartEmailProvider); string(email.Type) != TypeShared || email.Host != nil {
		t.Errorf("shared email_provider = %v", email)
	}
	if !part[bool](t, p, PartAllowLocalhost) {
		t.Error("allow_localhost = false, want the reported true")
	}
}
