package emulator

import (
	"net/http"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The email provider: GET/PATCH /projects/{project_id}/auth/email_server and
// GET/PATCH .../branches/{branch_id}/auth/email_provider, one configuration
// per Neon Auth. Writes take StandardEmailServer (every field optional) or
// SharedEmailServer; reads answer StandardEmailServerResponse (all six) or
// SharedEmailServer (internal/apispec/overlays/01-email-server-shapes.json).
// The test emails: POST .../auth/email_provider/test and the deprecated
// POST .../auth/send_test_email.

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

// updateEmailProvider serves the PATCH of both families. A Better Auth
// integration merges a partial standard update into a stored standard
// configuration; every other provider (and a switch from shared) needs all
// six fields (400 naming the first one missing). The answer has the
// password blank.
func (e *Emulator) updateEmailProvider(c *call) error {
	written, standard, err := readEmailServer(c)
	if err != nil {
		return err
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		cfg := written
		if standard != nil {
			if a.AuthProvider == authProviderBetterAuth && a.EmailProvider != nil && a.EmailProvider.Type == emailStandard {
				cfg = mergeEmailServer(*a.EmailProvider, standard)
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

// readEmailServer reads a write of the email provider
// (NeonAuthEmailServerConfig, which the reference has checked): the
// configuration it gives and, for a standard one, the fields it gives (nil
// for a shared one), which a merge into a stored configuration takes.
func readEmailServer(c *call) (EmailServer, *neonapi.StandardEmailServer, error) {
	var body neonapi.NeonAuthEmailServerConfig
	if _, err := c.decode(&body); err != nil {
		return EmailServer{}, nil, err
	}
	if kind, _ := body.Discriminator(); kind == emailShared {
		shared, err := body.AsSharedEmailServer()
		if err == nil {
			err = checkEmailServer(neonapi.StandardEmailServer{SenderEmail: shared.SenderEmail, SenderName: shared.SenderName})
		}
		var cfg EmailServer
		_ = convertShape(shared, &cfg) // type and sender fields, by name
		return cfg, nil, err
	}
	standard, err := body.AsStandardEmailServer()
	if err == nil {
		err = checkEmailServer(standard)
	}
	if err != nil {
		return EmailServer{}, nil, err
	}
	return mergeEmailServer(EmailServer{}, &standard), &standard, nil
}

// checkEmailServer refuses what the reference allows and the API does not:
// an empty field, a sender_email that is no address, a port out of range.
func checkEmailServer(f neonapi.StandardEmailServer) error {
	err := firstError(notEmpty("host", f.Host), notEmpty("username", f.Username), notEmpty("password", f.Password),
		notEmpty("sender_email", f.SenderEmail), notEmpty("sender_name", f.SenderName))
	switch {
	case err != nil:
		return err
	case f.SenderEmail != nil && !validEmail(*f.SenderEmail):
		return invalid("sender_email", "must be an email address")
	case f.Port != nil && (*f.Port < 1 || *f.Port > 65535):
		return invalid("port", "must be from 1 to 65535")
	}
	return nil
}

// mergeEmailServer is stored as a standard configuration with the fields
// of u given.
func mergeEmailServer(stored EmailServer, u *neonapi.StandardEmailServer) EmailServer {
	out := stored
	_ = convertShape(u, &out) // the fields given, by name
	out.Type = emailStandard
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

// testEmail is a test email "sent" now to a recipient through a
// configuration (saved: the branch's).
func testEmail(to string, cfg EmailServer, saved bool) TestEmail {
	return TestEmail{Recipient: to, Host: cfg.Host, Port: cfg.Port, Username: cfg.Username, SenderEmail: cfg.SenderEmail,
		SenderName: cfg.SenderName, Saved: saved, SentAt: now()}
}

// testEmailProvider serves POST .../auth/email_provider/test
// {"recipient_email"}: a test email through the configuration saved on the
// branch. Refused (400) when the integration is not Better Auth, when no
// provider is configured, or when it is the shared one.
func (e *Emulator) testEmailProvider(c *call) error {
	var req neonapi.SendNeonAuthEmailProviderTestJSONBody
	if _, err := c.decode(&req); err != nil {
		return err
	}
	to := string(req.RecipientEmail)
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
		a.TestEmails = append(a.TestEmails, testEmail(to, *a.EmailProvider, true))
		return neonapi.SendNeonAuthTestEmailResponse{Success: true}, nil
	})
}

// sendTestEmail serves the deprecated POST .../auth/send_test_email: the six
// SMTP fields (all required) and recipient_email; any auth provider; the
// saved configuration is not used nor changed.
func (e *Emulator) sendTestEmail(c *call) error {
	var req neonapi.SendNeonAuthTestEmailJSONBody
	if _, err := c.decode(&req); err != nil {
		return err
	}
	u := neonapi.StandardEmailServer{Host: &req.Host, Port: &req.Port, Username: &req.Username, Password: &req.Password,
		SenderEmail: &req.SenderEmail, SenderName: &req.SenderName}
	if err := checkEmailServer(u); err != nil {
		return err
	}
	to, cfg := string(req.RecipientEmail), mergeEmailServer(EmailServer{}, &u)
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		a.TestEmails = append(a.TestEmails, testEmail(to, cfg, false))
		return neonapi.SendNeonAuthTestEmailResponse{Success: true}, nil
	})
}
