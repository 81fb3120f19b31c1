package neonauth

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
)

// Every part of a branch's Better Auth configuration, read at once, costs
// one GET …/auth/plugins. An answer without the parts (every member is
// optional in the reference) makes each part read from its own endpoint,
// which says the same; the plugins that have no endpoint of their own are
// then an error that says so.
func TestUnitBundle_everyPartFromOneReadOrItsOwnEndpoint(t *testing.T) {
	var empty atomic.Bool
	var emptied atomic.Int32 // empty answers given
	env := newTestEnv(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if empty.Load() && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/auth/plugins") {
				emptied.Add(1)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte("{}"))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	ctx := context.Background()
	s := env.production(apiclient.FamilyBranch, apiclient.AuthProviderBetterAuth)
	env.enable(s)
	// Values other than the defaults, so that a part read from the wrong
	// place would show.
	seeds := map[string]string{
		betterauth.EmailAndPassword.Name: `{"require_email_verification": true}`,
		betterauth.Organization.Name:     `{"enabled": true, "organization_limit": 3}`,
		betterauth.MagicLink.Name:        `{"enabled": true, "expires_in": 15}`,
		betterauth.PhoneNumber.Name:      `{"enabled": true, "otp_expires_in": 120}`,
	}
	for _, set := range betterauth.Settings {
		if !set.Bundled {
			continue
		}
		var patch map[string]any
		if err := json.Unmarshal([]byte(seeds[set.Name]), &patch); err != nil {
			t.Fatalf("seed of %s: %v", set.Name, err)
		}
		if _, err := apiclient.WriteSetting[map[string]any](ctx, env.client, s.Scope, set, patch); err != nil {
			t.Fatalf("seeding %s: %v", set.Name, err)
		}
	}
	if _, err := env.client.UpdateEmailServer(ctx, s.Scope, apiclient.SharedEmailServer()); err != nil {
		t.Fatal(err)
	}
	if _, err := env.client.AddOAuthProvider(ctx, s.Scope, apiclient.AddOAuthProviderRequest{ID: "github"}); err != nil {
		t.Fatal(err)
	}

	// readAll reads every part of the bundle through a new Service, all at
	// once, and gives each as JSON (or "error: …").
	readAll := func() map[string]string {
		svc := env.service(apiclient.FamilyBranch, DefaultReadMaxAge)
		reads := map[string]func() (any, error){
			"email_provider":  func() (any, error) { return svc.EmailServer(ctx, s) },
			"oauth_providers": func() (any, error) { return svc.OAuthProviders(ctx, s) },
			"allow_localhost": func() (any, error) { return svc.AllowLocalhost(ctx, s) },
		}
		for _, set := range betterauth.Settings {
			if set.Bundled {
				reads[set.Name] = func() (any, error) { return ReadSetting[map[string]any](ctx, svc, s, set) }
			}
		}
		out := map[string]string{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for name, read := range reads {
			wg.Go(func() {
				v, err := read()
				text, jerr := json.Marshal(v)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					out[name] = "error: " + err.Error()
				case jerr != nil:
					out[name] = "error: " + jerr.Error()
				default:
					out[name] = string(text)
				}
			})
		}
		wg.Wait()
		return out
	}

	env.emu.ResetStats()
	bundled := readAll()
	if n := env.emu.Stats().Total; n != 1 || env.routeCount(pluginsRoute) != 1 {
		t.Errorf("%d requests %v, want one GET …/auth/plugins", n, env.emu.Stats().Requests)
	}
	for part, v := range bundled {
		if strings.HasPrefix(v, "error") {
			t.Errorf("%s from the bundle: %s", part, v)
		}
	}
	// What the emulator holds, by setting, as JSON with its keys in order.
	a, _ := env.emu.BranchAuth(s.ProjectID, s.BranchID)
	raw, err := json.Marshal(a.Settings)
	if err != nil {
		t.Fatal(err)
	}
	var held map[string]json.RawMessage
	if err := json.Unmarshal(raw, &held); err != nil {
		t.Fatal(err)
	}
	for _, set := range betterauth.Settings {
		if !set.Bundled {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(held[set.Name], &v); err != nil {
			t.Fatalf("%s held by the emulator: %v", set.Name, err)
		}
		want, _ := json.Marshal(v)
		if bundled[set.Name] != string(want) {
			t.Errorf("%s from the bundle = %s, the emulator holds %s", set.Name, bundled[set.Name], want)
		}
		var seed map[string]any
		_ = json.Unmarshal([]byte(seeds[set.Name]), &seed)
		for k, sv := range seed {
			if sj, _ := json.Marshal(sv); !strings.Contains(bundled[set.Name], `"`+k+`":`+string(sj)) {
				t.Errorf("%s from the bundle = %s, want %s = %s as seeded", set.Name, bundled[set.Name], k, sj)
			}
		}
	}

	empty.Store(true)
	env.emu.ResetStats()
	own := readAll()
	if n := emptied.Load(); n != 1 {
		t.Errorf("%d GET …/auth/plugins, want 1", n)
	}
	endpoints := map[string]string{"email_provider": "email_provider", "oauth_providers": "oauth_providers", "allow_localhost": "allow_localhost"}
	for _, set := range betterauth.Settings {
		switch {
		case set.Bundled && set.Read:
			endpoints[set.Name] = set.Path
		case set.Bundled:
			if want := "error: " + ErrPluginNotReported.Error(); own[set.Name] != want {
				t.Errorf("%s missing from the bundle = %s, want %q", set.Name, own[set.Name], want)
			}
		}
	}
	for part, ep := range endpoints {
		if n := env.routeCount("GET /projects/{project_id}/branches/{branch_id}/auth/" + ep); n != 1 {
			t.Errorf("%d GET …/auth/%s, want 1", n, ep)
		}
		if own[part] != bundled[part] {
			t.Errorf("%s: the bundle says %s, its own endpoint %s", part, bundled[part], own[part])
		}
	}
}
