// Package betterauth lists the settings of a branch's Better Auth
// configuration as the platform API v2 serves them: singletons under
// /projects/{project_id}/branches/{branch_id}/auth/, each at its own path,
// most also reported together by GET …/auth/plugins. The client, the
// emulator and the provider's settings resources all work from this list;
// internal/apispec checks it against the API reference.
package betterauth

import "net/http"

// Setting is one part of the configuration.
type Setting struct {
	// Name is its key in GET …/auth/plugins (NeonAuthPluginConfigs) and in
	// the emulator's state.
	Name string
	// Path is where it is read and written, under …/auth/.
	Path string
	// Read: GET <Path> answers it. Without, only the bundle reports it.
	Read bool
	// Write is PATCH (the fields given change) or PUT (the whole value is
	// replaced).
	Write string
	// Bundled: GET …/auth/plugins reports it under Name.
	Bundled bool
	// Title names it in messages ("the magic link plugin").
	Title string
}

// The settings.
var (
	EmailAndPassword = Setting{Name: "email_and_password", Path: "email_and_password", Read: true, Write: http.MethodPatch, Bundled: true,
		Title: "email and password sign-in"}
	Organization = Setting{Name: "organization", Path: "plugins/organization", Write: http.MethodPatch, Bundled: true,
		Title: "the organization plugin"}
	MagicLink = Setting{Name: "magic_link", Path: "plugins/magic-link", Write: http.MethodPatch, Bundled: true,
		Title: "the magic link plugin"}
	PhoneNumber = Setting{Name: "phone_number", Path: "plugins/phone-number", Read: true, Write: http.MethodPatch, Bundled: true,
		Title: "the phone number plugin"}
	Webhooks = Setting{Name: "webhooks", Path: "webhooks", Read: true, Write: http.MethodPut, Title: "the webhooks"}
)

// Settings are all of them.
var Settings = []Setting{EmailAndPassword, Organization, MagicLink, PhoneNumber, Webhooks}
