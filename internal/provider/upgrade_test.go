package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// Upgrades from the 0.1 development builds, through the Terraform CLI, from the states that
// release wrote: testdata/upgrade-0.1 holds its terraform.tfstate files, the
// emulator state they describe and the configurations, as generate.sh wrote
// them with the 0.1 binary (commit 426f609).

const (
	upgradeFixtures   = "testdata/upgrade-0.1"
	upgradeFixtureKey = "upgrade-fixture-key" // the bootstrap key generate.sh gave the emulator
)

// stateFile is the part of a terraform.tfstate the upgrade tests read.
type stateFile struct {
	Resources []struct {
		Type      string `json:"type"`
		Name      string `json:"name"`
		Instances []struct {
			SchemaVersion int            `json:"schema_version"`
			Attributes    map[string]any `json:"attributes"`
		} `json:"instances"`
	} `json:"resources"`
}

func readStateFile(t *testing.T, path string) stateFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s stateFile
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// idAfterUpgrade are, per resource type, the attributes that follow
// `<project_id>/<branch_id>` in its id from 0.2 on: what names the object on
// its branch.
var idAfterUpgrade = map[string][]string{
	"neon_auth_integration":        {"auth_provider"},
	"neon_auth_ownership_transfer": {"auth_provider"},
	"neon_auth_sdk_keys":           {"auth_provider", "created_at"},
	"neon_auth_domain":             {"domain"},
	"neon_auth_oauth_provider":     {"provider_id"},
	"neon_auth_user":               {"user_id"},
}

// Every resource type, as 0.1 left it, upgrades in place: the new provider
// plans nothing — without sending a request when the plan does not refresh,
// and without a change when it does — both in the new default mode (branch,
// no auth_api in the configuration) and with the mode the state was written
// in named. Applying without a refresh writes the upgraded state, still
// without a request: each id names its branch (the user's own id is also in
// user_id), nothing else changed. A refreshing plan and apply are empty, and
// the refresh goes through the endpoints of the mode in effect.
func TestAccUpgrade_from01(t *testing.T) {
	for _, c := range []struct {
		fixture, authAPI string
		// branchRoutes: whether the refresh goes through the branch-scoped
		// endpoints (the mode actually used).
		branchRoutes bool
	}{
		{fixture: "project", authAPI: "", branchRoutes: true},
		{fixture: "project", authAPI: authAPIProject, branchRoutes: false},
		{fixture: "branch", authAPI: "", branchRoutes: true},
		{fixture: "branch", authAPI: authAPIBranch, branchRoutes: true},
	} {
		name := c.fixture + "/" + c.authAPI
		if c.authAPI == "" {
			name = c.fixture + "/default"
		}
		t.Run(name, func(t *testing.T) {
			// The emulator of the fixtures, on a copy of their state, and a
			// working directory holding a fixture's configuration and its
			// 0.1 state.
			if remoteRun != nil {
				t.Skip("runs only against the in-process emulator: it starts from the emulator state the 0.1 builds' fixtures describe")
			}
			cli := newCLIDir(t, New("test")(), nil)
			stateFile := filepath.Join(t.TempDir(), "emulator.json")
			copies := map[string]string{filepath.Join(upgradeFixtures, "emulator.json"): stateFile}
			for _, f := range []string{"main.tf", "project.auto.tfvars", "terraform.tfstate"} {
				copies[filepath.Join(upgradeFixtures, c.fixture, f)] = filepath.Join(cli.dir, f)
			}
			for from, to := range copies {
				data, err := os.ReadFile(from)
				if err == nil {
					err = os.WriteFile(to, data, 0o600)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			emu, err := emulator.New(emulator.Options{StateFile: stateFile, BootstrapKey: upgradeFixtureKey,
				AccountRequestsPerMinute: -1, RouteRequestsPerSecond: -1})
			if err != nil {
				t.Fatalf("loading the emulator state of 0.1: %v", err)
			}
			srv := httptest.NewServer(validated(t).Middleware(emu))
			t.Cleanup(func() {
				srv.Close()
				_ = emu.Close()
			})
			authAPILine := ""
			if c.authAPI != "" {
				authAPILine = fmt.Sprintf(`  auth_api            = %q`, c.authAPI)
			}
			cli.write("provider.tf", fmt.Sprintf("provider \"neon\" {\n  api_key = %q\n  base_url = %q\n  requests_per_minute = 100000\n%s\n}\n",
				upgradeFixtureKey, srv.URL+"/api/v2/", authAPILine))
			cli.must(0, "init", "-input=false")
			old := readStateFile(t, filepath.Join(cli.dir, "terraform.tfstate"))

			before := emu.Stats().Total
			cli.must(0, "plan", "-detailed-exitcode", "-refresh=false", "-input=false")
			if n := emu.Stats().Total - before; n != 0 {
				t.Fatalf("plan -refresh=false of the 0.1 state sent %d requests, want none: %v", n, emu.Stats().Requests)
			}
			// The upgrade alone, written to the state without a refresh.
			cli.must(0, "apply", "-auto-approve", "-refresh=false", "-input=false")
			if n := emu.Stats().Total - before; n != 0 {
				t.Fatalf("apply -refresh=false of the 0.1 state sent %d requests, want none: %v", n, emu.Stats().Requests)
			}
			// The state the upgrade made of 0.1's: the same resources, each
			// id naming its branch, the user's id also in user_id, and
			// nothing else changed.
			upgraded := readStateFile(t, filepath.Join(cli.dir, "terraform.tfstate"))
			if len(old.Resources) != len(upgraded.Resources) {
				t.Fatalf("%d resources after the upgrade, %d before", len(upgraded.Resources), len(old.Resources))
			}
			for i, r := range upgraded.Resources {
				o := old.Resources[i]
				addr := r.Type + "." + r.Name
				if o.Type+"."+o.Name != addr {
					t.Fatalf("resource %d is %s after the upgrade, %s.%s before", i, addr, o.Type, o.Name)
				}
				now, was := r.Instances[0].Attributes, o.Instances[0].Attributes
				want := fmt.Sprintf("%s/%s", now["project_id"], now["branch_id"])
				for _, attr := range idAfterUpgrade[r.Type] {
					want += fmt.Sprintf("/%s", now[attr])
				}
				if now["id"] != want {
					t.Errorf("%s: id %q after the upgrade, want %q (0.1: %q)", addr, now["id"], want, was["id"])
				}
				if !strings.HasPrefix(fmt.Sprint(now["id"]), fmt.Sprintf("%s/%s", was["project_id"], was["branch_id"])) {
					t.Errorf("%s: id %q does not name the branch %s that 0.1 recorded", addr, now["id"], was["branch_id"])
				}
				if r.Type == "neon_auth_user" && now["user_id"] != was["id"] {
					t.Errorf("%s: user_id %q, want the id 0.1 stored, %q", addr, now["user_id"], was["id"])
				}
				for k, v := range was {
					if k == "id" || slices.Contains(droppedSince01[r.Type], k) {
						continue
					}
					if nv, ok := now[k]; ok && fmt.Sprint(nv) != fmt.Sprint(v) {
						t.Errorf("%s: %s changed in the upgrade: %v → %v", addr, k, v, nv)
					}
				}
			}

			cli.must(0, "plan", "-detailed-exitcode", "-input=false")
			branchRoute := "GET /projects/{project_id}/branches/{branch_id}/auth"
			if got := len(emu.Stats().Requests[branchRoute]) > 0; got != c.branchRoutes {
				t.Fatalf("refresh used %s: %v, want %v (auth_api %q)", branchRoute, got, c.branchRoutes, c.authAPI)
			}
			cli.must(0, "apply", "-auto-approve", "-input=false")
			cli.must(0, "plan", "-detailed-exitcode", "-input=false")
		})
	}
}

// droppedSince01 are the attributes of 0.1 that a later schema dropped, with
// their values: Neon removed phone-number's allowed_attempts in June 2026
// (in the reference of 2026-07-13, internal/apispec), and the
// plugin's upgrader sets it null (TestAccAuthPhoneNumberPlugin_upgradeDropsAllowedAttempts).
var droppedSince01 = map[string][]string{
	"neon_auth_phone_number_plugin": {"allowed_attempts"},
}

// typesOf01 are the resource types of the 0.1 development builds (commit
// 426f609 and before): the ones a state written by them can hold. A type
// added since has no such state.
var typesOf01 = []string{
	"neon_auth_domain", "neon_auth_domains", "neon_auth_email_and_password", "neon_auth_email_server",
	"neon_auth_integration", "neon_auth_magic_link_plugin", "neon_auth_oauth_provider", "neon_auth_organization_plugin",
	"neon_auth_ownership_transfer", "neon_auth_phone_number_plugin", "neon_auth_sdk_keys", "neon_auth_user",
	"neon_auth_webhooks",
}

// The two fixtures hold every resource type of 0.1, each still a type of
// the provider, so that TestAccUpgrade_from01 upgrades each.
func TestUnitUpgradeFixturesCoverEveryResourceTypeOf01(t *testing.T) {
	inFixtures := map[string]bool{}
	for _, f := range []string{"project", "branch"} {
		for _, r := range readStateFile(t, filepath.Join(upgradeFixtures, f, "terraform.tfstate")).Resources {
			inFixtures[r.Type] = true
		}
	}
	p, ok := New("test")().(*neonProvider)
	if !ok {
		t.Fatal("New does not return *neonProvider")
	}
	types := map[string]bool{}
	for _, newResource := range p.Resources(context.Background()) {
		var md resource.MetadataResponse
		newResource().Metadata(context.Background(), resource.MetadataRequest{ProviderTypeName: "neon"}, &md)
		types[md.TypeName] = true
	}
	for _, typ := range typesOf01 {
		if !inFixtures[typ] {
			t.Errorf("%s is in no state of %s: add it to a configuration there and run generate.sh", typ, upgradeFixtures)
		}
		if !types[typ] {
			t.Errorf("%s, a resource type of 0.1, is no longer one of the provider's: its states cannot be upgraded", typ)
		}
	}
}
