package emulator

import (
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The configuration of a branch's Neon Auth, under
// /projects/{project_id}/branches/{branch_id}/auth/ (branch family only):
// allow_localhost, the application name, the Better Auth settings (read and
// written generically, see settings.go) and GET …/plugins, which reports
// most of it at once.

// getAllowLocalhost serves GET .../auth/allow_localhost.
func (e *Emulator) getAllowLocalhost(c *call) error {
	return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
		return neonapi.NeonAuthAllowLocalhostResponse{AllowLocalhost: a.AllowLocalhost}, nil
	})
}

// updateAllowLocalhost serves PATCH .../auth/allow_localhost
// (UpdateNeonAuthAllowLocalhostRequest).
func (e *Emulator) updateAllowLocalhost(c *call) error {
	var req neonapi.UpdateNeonAuthAllowLocalhostRequest
	if _, err := c.decode(&req); err != nil {
		return err
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		a.AllowLocalhost = req.AllowLocalhost
		return neonapi.NeonAuthAllowLocalhostResponse{AllowLocalhost: a.AllowLocalhost}, nil
	})
}

// updateConfig serves PATCH .../auth/config (NeonAuthConfigUpdate): the
// application name.
func (e *Emulator) updateConfig(c *call) error {
	var req neonapi.NeonAuthConfigUpdate
	if _, err := c.decode(&req); err != nil {
		return err
	}
	return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
		a.Name = req.Name
		return neonapi.NeonAuthConfigResponse{Name: a.Name}, nil
	})
}

// newSettingValue is base with the members of body set over its own,
// checked by the rules the reference cannot express.
func newSettingValue(base reflect.Value, body map[string]json.RawMessage) (reflect.Value, error) {
	v, err := overlay(base, body)
	if err == nil {
		err = checkSetting(v)
	}
	return v, err
}

// readSetting serves GET …/auth/<path> of a setting: its stored value.
func readSetting(st betterauth.Setting) handlerFunc {
	return func(e *Emulator, c *call) error {
		return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
			return a.setting(st).Interface(), nil
		})
	}
}

// writeSetting serves the write of a setting and answers its new value. A
// PATCH changes the fields given; a PUT replaces the value, the fields it
// omits at their defaults. The body is checked before the branch is looked
// up (400 before 404), and a PUT's new value too, since it does not depend
// on the stored one.
func writeSetting(st betterauth.Setting) handlerFunc {
	return func(e *Emulator, c *call) error {
		var body map[string]json.RawMessage
		if _, err := c.decode(&body); err != nil {
			return err
		}
		var replacement reflect.Value
		if st.Write == http.MethodPut {
			defaults := defaultSettings()
			var err error
			if replacement, err = newSettingValue(defaults.setting(st), body); err != nil {
				return err
			}
		}
		return e.changeAuth(c, http.StatusOK, func(_ authScope, a *BranchAuth) (any, error) {
			f, v := a.setting(st), replacement
			if !v.IsValid() {
				var err error
				if v, err = newSettingValue(f, body); err != nil {
					return nil, err
				}
			}
			f.Set(v)
			return v.Interface(), nil
		})
	}
}

// getPlugins serves GET .../auth/plugins (NeonAuthPluginConfigs): the
// bundled settings of betterauth.Settings, the email provider (absent when
// none is configured), the OAuth providers and allow_localhost, each part
// exactly what its own read answers.
func (e *Emulator) getPlugins(c *call) error {
	return e.readAuth(c, func(_ authScope, a *BranchAuth) (any, error) {
		views := oauthViews(true, a.OAuthProviders...)
		p := neonapi.NeonAuthPluginConfigs{OauthProviders: &views, AllowLocalhost: &a.AllowLocalhost}
		if a.EmailProvider != nil {
			view, err := emailView(*a.EmailProvider)
			if err != nil {
				return nil, err
			}
			p.EmailProvider = &view
		}
		bundled := map[string]any{}
		for _, st := range betterauth.Settings {
			if st.Bundled {
				bundled[st.Name] = a.setting(st).Interface()
			}
		}
		return p, convertShape(bundled, &p)
	})
}
