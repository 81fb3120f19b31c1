package emulator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// The JWKS URLs a project trusts (GET/POST /projects/{project_id}/jwks,
// DELETE …/jwks/{jwks_id}) as the state holds them, and how an added URL
// is verified. They belong to the project, not to a branch's data: one
// without branch_id applies to every branch, and a new branch gets no copy
// of one scoped to its parent.

// defaultJWKSRoles are the roles a JWKS is mapped to when the request names
// none (the deprecated role_names), as Neon answers.
var defaultJWKSRoles = []string{"authenticator", "authenticated", "anonymous"}

// jwksFetchTimeout bounds the fetch of a JWKS URL (Options.FetchJWKS).
const jwksFetchTimeout = 10 * time.Second

// jwksNamed is the project's JWKS with the id, nil when there is none.
func (p *projectState) jwksNamed(id string) *neonapi.JWKS {
	if i := slices.IndexFunc(p.JWKS, func(j neonapi.JWKS) bool { return j.ID == id }); i >= 0 {
		return &p.JWKS[i]
	}
	return nil
}

// checkJWKSURL refuses a JWKS URL that is not an absolute HTTPS URL with a
// host: the reference says the URL must be a valid HTTPS URL that returns a
// JSON Web Key Set.
func checkJWKSURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "":
		return invalid("jwks_url", "must be an absolute URL such as https://example.com/.well-known/jwks.json")
	case u.Scheme != "https":
		return invalid("jwks_url", "must be an HTTPS URL")
	case u.User != nil || u.Fragment != "":
		return invalid("jwks_url", "must not carry credentials or a fragment")
	}
	return nil
}

// servedJWKS reports whether the URL is on a host whose JWKS the emulator
// itself stands for — Neon Auth's (<branch>.neonauth.…neon.tech) or the mock
// provider's — and, if so, whether an integration of the state publishes it.
// Such a URL is verified against the state, without the network: one of an
// integration that does not (or no longer) exist answers 404 where it
// really lives. Stack Auth's JWKS live at Stack Auth, as any other identity
// provider's.
func (s *state) servedJWKS(raw string) (served, exists bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return false, false
	}
	host := strings.ToLower(u.Hostname())
	neonAuth := strings.Contains(host, ".neonauth.") && strings.HasSuffix(host, ".neon.tech")
	if !neonAuth && host != "mock-auth.neon.invalid" {
		return false, false
	}
	for _, p := range s.Projects {
		for _, b := range p.Branches {
			if b.Auth != nil && b.Auth.JWKSURL == raw {
				return true, true
			}
		}
	}
	return true, false
}

// checkJWKSOffline is what the emulator can tell of a JWKS URL without
// fetching it: a URL it serves itself must be published by an integration
// (servedJWKS), and a bare origin (no path) serves a web page, not a key
// set. With Options.FetchJWKS the other URLs are then fetched (fetchJWKS).
func (s *state) checkJWKSOffline(raw string) (fetch bool, err error) {
	if served, exists := s.servedJWKS(raw); served {
		if !exists {
			return false, invalid("jwks_url", "does not answer a JSON Web Key Set (HTTP 404: no Neon Auth integration publishes it)")
		}
		return false, nil
	}
	if u, _ := url.Parse(raw); u.Path == "" || u.Path == "/" {
		return false, invalid("jwks_url", "does not answer a JSON Web Key Set: a bare origin serves no key set; give the URL of "+
			"the key set document, such as https://%s/.well-known/jwks.json", u.Host)
	}
	return true, nil
}

// fetchJWKS fetches a JWKS URL with client and refuses it unless it answers
// 200 with a JSON Web Key Set: an object whose keys are objects with a key
// type.
func fetchJWKS(ctx context.Context, client *http.Client, raw string) error {
	ctx, cancel := context.WithTimeout(ctx, jwksFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return invalid("jwks_url", "cannot be fetched: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return invalid("jwks_url", "cannot be fetched: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return invalid("jwks_url", "does not answer a JSON Web Key Set (HTTP %d)", resp.StatusCode)
	}
	var set struct {
		Keys []map[string]any `json:"keys"`
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err == nil {
		err = json.Unmarshal(body, &set)
	}
	if err != nil || len(set.Keys) == 0 || slices.ContainsFunc(set.Keys, func(k map[string]any) bool { return k["kty"] == nil }) {
		return invalid("jwks_url", "does not answer a JSON Web Key Set (an object whose keys each have a kty)")
	}
	return nil
}

// newJWKS is a JWKS entry of project p for the request, created at.
func newJWKS(p *projectState, req neonapi.AddProjectJWKSRequest, id string, at time.Time) neonapi.JWKS {
	roles := slices.Clone(defaultJWKSRoles)
	if req.RoleNames != nil && len(*req.RoleNames) > 0 {
		roles = slices.Clone(*req.RoleNames)
	}
	return neonapi.JWKS{ID: id, ProjectID: p.Project.ID, BranchID: req.BranchID, JWKSURL: req.JWKSURL, ProviderName: req.ProviderName,
		JwtAudience: req.JwtAudience, RoleNames: &roles, CreatedAt: at, UpdatedAt: at}
}

// jwksOperations are the operations adding a JWKS starts: the read-write
// compute of its branch, or of every branch for a JWKS of all branches,
// applies the configuration.
func jwksOperations(p *projectState, branchID *string) []neonapi.Operation {
	ops := []neonapi.Operation{}
	for _, b := range p.Branches {
		if branchID == nil || b.ID == *branchID {
			ops = append(ops, applyConfig(p, b)...)
		}
	}
	return ops
}

// describeJWKS names a JWKS in messages.
func describeJWKS(j neonapi.JWKS) string {
	scope := "every branch"
	if j.BranchID != nil {
		scope = "branch " + *j.BranchID
	}
	return fmt.Sprintf("JWKS %s (%s, for %s)", j.ID, j.JWKSURL, scope)
}
