package emulator

import (
	"fmt"
	"net/url"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// What a setting's new value must be beyond the API reference's schema,
// which already decides its fields and their values (types, enums, ranges):
// the rules the reference cannot express, by setting name. Only the
// webhooks have any: their URL is https and required when they are
// enabled, and each event is listed once.

// settingRules check a setting's new value, given as the setting's type.
var settingRules = map[string]func(value any) error{
	betterauth.Webhooks.Name: func(v any) error {
		w, ok := v.(neonapi.NeonAuthWebhookConfig)
		if !ok {
			return fmt.Errorf("emulator: the webhooks' rules were given a %T", v)
		}
		return checkWebhooks(w)
	},
}

func checkWebhooks(w neonapi.NeonAuthWebhookConfig) error {
	switch {
	case w.WebhookURL != nil && *w.WebhookURL == "":
		return invalid("webhook_url", "must not be empty")
	case w.WebhookURL != nil:
		if u, err := url.Parse(*w.WebhookURL); err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
			return invalid("webhook_url", "must be an https URL such as https://example.com/hooks/neon-auth")
		}
	case w.Enabled:
		return invalid("webhook_url", "is required when enabled is true")
	}
	if w.EnabledEvents == nil {
		return nil
	}
	events := *w.EnabledEvents
	for i, ev := range events {
		if slices.Contains(events[:i], ev) {
			return invalid(fmt.Sprintf("enabled_events[%d]", i), "%q is listed twice", ev)
		}
	}
	return nil
}
