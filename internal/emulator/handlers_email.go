package emulator

import "net/http"

// emailFields are the fields of a standard configuration, in the order they
// are validated.
var emailFields = []string{"host", "port", "username", "password", "sender_email", "sender_name"}

// getEmailServer serves endpoint 15. A shared configuration reads as exactly
// {"type":"shared"}; a standard one without its password (secrets are not
// read back).
func (e *Emulator) getEmailServer(c *call) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, in, err := e.integrationFor(c, c.param("project_id"), authProviderStack)
	if err != nil {
		return err
	}
	cfg := in.Email
	cfg.Password = ""
	return c.json(http.StatusOK, cfg)
}

// updateEmailServer serves endpoint 16 and echoes the stored values,
// password included.
func (e *Emulator) updateEmailServer(c *call) error {
	o, err := readBody(c, false, append([]string{"type"}, emailFields...)...)
	if err != nil {
		return err
	}
	cfg, err := parseEmailServer(o)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, in, err := e.integrationFor(c, c.param("project_id"), authProviderStack)
	if err != nil {
		return err
	}
	in.Email = cfg
	if err := e.saveLocked(); err != nil {
		return err
	}
	return c.json(http.StatusOK, cfg)
}

func parseEmailServer(o object) (EmailServer, error) {
	typ, err := o.requiredStr("type")
	if err != nil {
		return EmailServer{}, err
	}
	switch typ {
	case emailShared:
		for _, f := range emailFields {
			if o.has(f) {
				return EmailServer{}, invalid(f, "must not be set when type is %q", emailShared)
			}
		}
		return EmailServer{Type: emailShared}, nil
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
