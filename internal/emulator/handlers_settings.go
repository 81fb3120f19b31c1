package emulator

import "net/http"

// Settings of a branch's Neon Auth, under
// /projects/{project_id}/branches/{branch_id}/auth/ (branch family only).

type allowLocalhostBody struct {
	AllowLocalhost bool `json:"allow_localhost"`
}

// getAllowLocalhost serves GET .../auth/allow_localhost.
func (e *Emulator) getAllowLocalhost(c *call) error {
	return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
		return allowLocalhostBody{a.AllowLocalhost}, nil
	})
}

// updateAllowLocalhost serves PATCH .../auth/allow_localhost
// {"allow_localhost": bool} (required).
func (e *Emulator) updateAllowLocalhost(c *call) error {
	o, err := readBody(c, false, "allow_localhost")
	if err != nil {
		return err
	}
	allow, present, err := o.boolean("allow_localhost")
	if err != nil {
		return err
	}
	if !present {
		return invalid("allow_localhost", "is required")
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		a.AllowLocalhost = allow
		return allowLocalhostBody{a.AllowLocalhost}, nil
	})
}

// updateConfig serves PATCH .../auth/config {"name"}: 1 to 256 characters.
func (e *Emulator) updateConfig(c *call) error {
	o, err := readBody(c, false, "name")
	if err != nil {
		return err
	}
	name, err := o.requiredStr("name")
	if err != nil {
		return err
	}
	if n := runeCount(name); n > 256 {
		return invalid("name", "must be 1 to 256 characters, got %d", n)
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		a.Name = name
		return map[string]string{"name": a.Name}, nil
	})
}
