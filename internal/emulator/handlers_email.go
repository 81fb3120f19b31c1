package emulator

import "net/http"

// The email provider: GET/PATCH /projects/{project_id}/auth/email_server and
// GET/PATCH .../branches/{branch_id}/auth/email_provider, one configuration
// (NeonAuthEmailServerConfig) per Neon Auth.

// emailFields are the fields of a standard configuration, in the order they
// are validated.
var emailFields = []string{"host", "port", "username", "password", "sender_email", "sender_name"}

// maskedPassword stands for a stored password in reads.
const maskedPassword = "********"

// maskedEmail is a configuration as reads show it: a standard password masked.
func maskedEmail(cfg EmailServer) EmailServer {
	if cfg.Password != "" {
		cfg.Password = maskedPassword
	}
	return cfg
}

var errNoEmailProvider = &apiError{status: http.StatusNotFound, msg: "no email provider is configured"}

// getEmailProvider serves the GET of both families: 404 when none is
// configured; a shared configuration reads as {"type":"shared"} (plus its
// sender fields, if set); a standard one with the password masked.
func (e *Emulator) getEmailProvider(c *call) error {
	return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
		if a.EmailProvider == nil {
			return nil, errNoEmailProvider
		}
		return maskedEmail(*a.EmailProvider), nil
	})
}

// updateEmailProvider serves the PATCH of both families: the configuration
// is replaced and echoed as stored, password included.
func (e *Emulator) updateEmailProvider(c *call) error {
	o, err := readBody(c, false, append([]string{"type"}, emailFields...)...)
	if err != nil {
		return err
	}
	cfg, err := parseEmailServer(o)
	if err != nil {
		return err
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		a.EmailProvider = &cfg
		return cfg, nil
	})
}

// parseEmailServer validates a NeonAuthEmailServerConfig: type "standard"
// needs all six fields; "shared" takes only the optional sender fields.
func parseEmailServer(o object) (EmailServer, error) {
	typ, err := o.requiredStr("type")
	if err != nil {
		return EmailServer{}, err
	}
	switch typ {
	case emailShared:
		for _, f := range emailFields[:4] {
			if o.has(f) {
				return EmailServer{}, invalid(f, "must not be set when type is %q", emailShared)
			}
		}
		cfg := EmailServer{Type: emailShared}
		if cfg.SenderEmail, _, err = o.nonEmptyStr("sender_email"); err != nil {
			return EmailServer{}, err
		}
		if cfg.SenderEmail != "" && !validEmail(cfg.SenderEmail) {
			return EmailServer{}, invalid("sender_email", "must be an email address")
		}
		if cfg.SenderName, _, err = o.nonEmptyStr("sender_name"); err != nil {
			return EmailServer{}, err
		}
		return cfg, nil
	case emailStandard:
	default:
		return EmailServer{}, invalid("type", "must be %q or %q", emailShared, emailStandard)
	}
	cfg := EmailServer{Type: emailStandard}
	if cfg.Host, err = o.requiredStr("host"); err != nil {
		return EmailServer{}, err
	}
	port, hasPort, err := o.integer("port")
	if err != nil {
		return EmailServer{}, err
	}
	if !hasPort {
		return EmailServer{}, invalid("port", "is required")
	}
	if port < 1 || port > 65535 {
		return EmailServer{}, invalid("port", "must be from 1 to 65535")
	}
	cfg.Port = int(port)
	if cfg.Username, err = o.requiredStr("username"); err != nil {
		return EmailServer{}, err
	}
	if cfg.Password, err = o.requiredStr("password"); err != nil {
		return EmailServer{}, err
	}
	if cfg.SenderEmail, err = o.requiredStr("sender_email"); err != nil {
		return EmailServer{}, err
	}
	if !validEmail(cfg.SenderEmail) {
		return EmailServer{}, invalid("sender_email", "must be an email address")
	}
	if cfg.SenderName, err = o.requiredStr("sender_name"); err != nil {
		return EmailServer{}, err
	}
	return cfg, nil
}
