package emulator

import (
	"fmt"
	"slices"
	"strings"
)

// Deviations: answers the emulator can give as another published
// description of the service says, where it differs from the reference.
// Off by default. They let a client, or this repository's live suite,
// rehearse a server that deviates from the reference, which Neon may do
// (neon-emulator -deviate).

// Deviation names one such answer.
type Deviation string

// DeviationOAuthProviderDelete204: DELETE …/auth/oauth_providers/{id} (both
// families) answers 204 No Content, as the auth API description says
// (internal/apispec/auth-api.md, endpoint 11) and as Neon's MCP server
// expects ("Delete returns 200/204"), instead of the reference's 200.
const DeviationOAuthProviderDelete204 Deviation = "oauth-provider-delete-204"

// deviations are every Deviation, for messages and flags.
var deviations = []Deviation{DeviationOAuthProviderDelete204}

// ParseDeviations reads a comma-separated list of deviation names ("" is
// none).
func ParseDeviations(s string) ([]Deviation, error) {
	var out []Deviation
	for name := range strings.SplitSeq(s, ",") {
		d := Deviation(strings.TrimSpace(name))
		switch {
		case d == "":
		case slices.Contains(deviations, d):
			out = append(out, d)
		default:
			return nil, fmt.Errorf("deviation %q: want one of %s", d, KnownDeviations())
		}
	}
	return out, nil
}

// KnownDeviations lists the names of every deviation, comma-separated.
func KnownDeviations() string {
	names := make([]string, len(deviations))
	for i, d := range deviations {
		names[i] = string(d)
	}
	return strings.Join(names, ", ")
}

// deviates reports whether the emulator gives the deviating answer d.
func (e *Emulator) deviates(d Deviation) bool { return slices.Contains(e.opts.Deviations, d) }
