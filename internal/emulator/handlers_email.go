package emulator

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The email provider: GET/PATCH /projects/{project_id}/auth/email_server and
// GET/PATCH .../branches/{branch_id}/auth/email_provider, one configuration
// per Neon Auth. Writes take StandardEmailServer (every field optional) or
// SharedEmailServer; reads answer StandardEmailServerResponse (all six) or
// SharedEmailServer (internal/apispec/overlays/01-email-server-shapes.json).
// The test emails: POST .../auth/email_provider/test and the deprecated
// POST .../auth/send_test_email.

// emailFields are the fields of a standard configuration, in the order they
// are validated.
var emailFields = []string{"host", "port", "username", "password", "sender_email", "sender_name"}

// emailView is a configuration as the API shows it
// (NeonAuthEmailServerConfigResponse): a standard one with all six fields,
// the password blank (as in every read of an ordinary caller and in every
// PATCH response); a shared one with its sender fields, if set.
func emailView(cfg EmailServer) (neonapi.NeonAuthEmailServerConfigResponse, error) {
	var v neonapi.NeonAuthEmailServerConfigResponse
	if cfg.Type == emailStandard {
		return v, v.FromStandardEmailServerResponse(neonapi.StandardEmailServerResponse{Type: neonapi.StandardEmailServerResponseTypeStandard,
			Host: cfg.Host, Port: cfg.Port, Username: cfg.Username, SenderEmail: cfg.SenderEmail, SenderName: cfg.SenderName})
	}
	return v, v.FromSharedEmailServer(neonapi.SharedEmailServer{Type: neonapi.SharedEmailServerTypeShared,
		SenderEmail: nonEmpty(cfg.SenderEmail), SenderName: nonEmpty(cfg.SenderName)})
}

var errNoEmailProvider = &apiError{status: http.StatusNotFound, msg: "no email provider is configured"}

// getEmailProvider serves the GET of both families: 404 when none is
// configured (a fresh branch); a shared configuration reads as
// {"type":"shared"} (plus its sender fields, if set); a standard one with
// the password blank.
func (e *Emulator) getEmailProvider(c *call) error {
	return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
		if a.EmailProvider == nil {
			return nil, errNoEmailProvider
		}
		return emailView(*a.EmailProvider)
	})
}

// emailUpdate is a parsed write: the fields given, each valid.
type emailUpdate struct {
	cfg   EmailServer
	given map[string]bool
}

// updateEmailProvider serves the PATCH of both families. A Better Auth
// integration merges a partial standard update into a stored standard
// configuration; every other provider (and a switch from shared) needs all
// six fields (400 naming the first one missing). The answer has the
// password blank.
func (e *Emulator) updateEmailProvider(c *call) error {
	o, err := readBody(c, false, append([]string{"type"}, emailFields...)...)
	if err != nil {
		return err
	}
	u, err := parseEmailServer(o)
	if err != nil {
		return err
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		cfg := u.cfg
		if cfg.Type == emailStandard {
			if a.AuthProvider == authProviderBetterAuth && a.EmailProvider != nil && a.EmailProvider.Type == emailStandard {
				cfg = mergeEmailServer(*a.EmailProvider, u)
			}
			if missing := missingEmailField(cfg); missing != "" {
				if a.AuthProvider == authProviderBetterAuth {
					return nil, invalid(missing, "is required when the email provider becomes standard")
				}
				return nil, invalid(missing, "is required: %s integrations take the whole standard configuration", a.AuthProvider)
			}
		}
		a.EmailProvider = &cfg
		return emailView(cfg)
	})
}

// mergeEmailServer is stored with the fields of u given.
func mergeEmailServer(stored EmailServer, u emailUpdate) EmailServer {
	pick := func(name string, given, kept string) string {
		if u.given[name] {
			return given
		}
		return kept
	}
	out := EmailServer{
		Type:        emailStandard,
		Host:        pick("host", u.cfg.Host, stored.Host),
		Username:    pick("username", u.cfg.Username, stored.Username),
		Password:    pick("password", u.cfg.Password, stored.Password),
		SenderEmail: pick("sender_email", u.cfg.SenderEmail, stored.SenderEmail),
		SenderName:  pick("sender_name", u.cfg.SenderName, stored.SenderName),
		Port:        stored.Port,
	}
	if u.given["port"] {
		out.Port = u.cfg.Port
	}
	return out
}

// missingEmailField names the first field a standard configuration lacks.
func missingEmailField(cfg EmailServer) string {
	switch {
	case cfg.Host == "":
		return "host"
	case cfg.Port == 0:
		return "port"
	case cfg.Username == "":
		return "username"
	case cfg.Password == "":
		return "password"
	case cfg.SenderEmail == "":
		return "sender_email"
	case cfg.SenderName == "":
		return "sender_name"
	}
	return ""
}

// parseEmailServer validates a write: type "standard" takes any of the six
// fields, each valid; "shared" takes only the optional sender fields.
func parseEmailServer(o object) (emailUpdate, error) {
	u := emailUpdate{given: map[string]bool{}}
	typ, err := o.requiredStr("type")
	if err != nil {
		return u, err
	}
	switch typ {
	case emailShared:
		for _, f := range emailFields[:4] {
			if o.has(f) {
				return u, invalid(f, "must not be set when type is %q", emailShared)
			}
		}
	case emailStandard:
	default:
		return u, invalid("type", "must be %q or %q", emailShared, emailStandard)
	}
	u.cfg.Type = typ
	for _, f := range []struct {
		name string
		dst  *string
	}{{"host", &u.cfg.Host}, {"username", &u.cfg.Username}, {"password", &u.cfg.Password}, {"sender_email", &u.cfg.SenderEmail}, {"sender_name", &u.cfg.SenderName}} {
		v, present, err := o.nonEmptyStr(f.name)
		if err != nil {
			return u, err
		}
		*f.dst, u.given[f.name] = v, present
	}
	if u.cfg.SenderEmail != "" && !validEmail(u.cfg.SenderEmail) {
		return u, invalid("sender_email", "must be an email address")
	}
	if typ == emailStandard {
		if u.given["port"] = o.has("port"); u.given["port"] {
			if err := o.optInt("port", 1, 65535, &u.cfg.Port); err != nil {
				return u, err
			}
		}
	}
	return u, nil
}

// TestEmail is a test email the emulator "sent" (it sends nothing): through
// the saved configuration (POST .../auth/email_provider/test) or through the
// configuration in the request (the deprecated POST .../auth/send_test_email).
type TestEmail struct {
	Recipient   string    `json:"recipient"`
	Host        string    `json:"host"`
	Port        int       `json:"port"`
	Username    string    `json:"username"`
	SenderEmail string    `json:"sender_email"`
	SenderName  string    `json:"sender_name"`
	Saved       bool      `json:"saved"` // sent with the saved configuration
	SentAt      time.Time `json:"sent_at"`
}

// recipient validates recipient_email: required, an address of at most 256
// characters.
func recipient(o object) (string, error) {
	to, err := o.requiredStr("recipient_email")
	if err != nil {
		return "", err
	}
	if !validEmail(to) {
		return "", invalid("recipient_email", "must be an email address")
	}
	return to, nil
}

// testEmailProvider serves POST .../auth/email_provider/test
// {"recipient_email"}: a test email through the configuration saved on the
// branch. Refused (400) when the integration is not Better Auth, when no
// provider is configured, or when it is the shared one.
func (e *Emulator) testEmailProvider(c *call) error {
	o, err := readBody(c, false, "recipient_email")
	if err != nil {
		return err
	}
	to, err := recipient(o)
	if err != nil {
		return err
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		switch {
		case a.AuthProvider != authProviderBetterAuth:
			return nil, invalid("auth_provider", "testing the saved email provider needs a %s integration, this one is %s: "+
				"use POST .../auth/send_test_email with the whole SMTP configuration", authProviderBetterAuth, a.AuthProvider)
		case a.EmailProvider == nil:
			return nil, invalid("email_provider", "no email provider is configured: configure a standard one first")
		case a.EmailProvider.Type != emailStandard:
			return nil, invalid("email_provider", "the shared email provider cannot be tested: configure a standard one first")
		}
		cfg := a.EmailProvider
		a.TestEmails = append(a.TestEmails, TestEmail{Recipient: to, Host: cfg.Host, Port: cfg.Port, Username: cfg.Username,
			SenderEmail: cfg.SenderEmail, SenderName: cfg.SenderName, Saved: true, SentAt: now()})
		return neonapi.SendNeonAuthTestEmailResponse{Success: true}, nil
	})
}

// sendTestEmail serves the deprecated POST .../auth/send_test_email: the six
// SMTP fields (all required) and recipient_email; any auth provider; the
// saved configuration is not used nor changed.
func (e *Emulator) sendTestEmail(c *call) error {
	o, err := readBody(c, false, append([]string{"recipient_email"}, emailFields...)...)
	if err != nil {
		return err
	}
	to, err := recipient(o)
	if err != nil {
		return err
	}
	o["type"] = json.RawMessage(`"` + emailStandard + `"`)
	u, err := parseEmailServer(o)
	if err != nil {
		return err
	}
	if missing := missingEmailField(u.cfg); missing != "" {
		return invalid(missing, "is required")
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		cfg := u.cfg
		a.TestEmails = append(a.TestEmails, TestEmail{Recipient: to, Host: cfg.Host, Port: cfg.Port, Username: cfg.Username,
			SenderEmail: cfg.SenderEmail, SenderName: cfg.SenderName, SentAt: now()})
		return neonapi.SendNeonAuthTestEmailResponse{Success: true}, nil
	})
}
