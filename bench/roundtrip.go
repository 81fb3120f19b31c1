package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/neon-auth/terraform-provider-neon/internal/emulator"
)

// The roundtrip section (runs where users are, under each reading of the
// limits): the whitelist of one branch with its integration and two OAuth
// providers, its N domains declared as N neon_auth_domain or as one
// neon_auth_domains, applied, re-planned and destroyed against an emulator at
// the documented limits that holds every request for a round trip
// (-latency). From a CI runner or a laptop a run's wall time is decided by how
// many requests stand one after another, and by how fast the limits let them
// through: each phase reports its critical path and its ideal schedule under
// either reading beside its wall time, requests and 429s.
//
// Beside this provider, the same configuration can run on another build of
// it (-before) and on kenchan0130/terraform-provider-neon (-peer, its own
// resource types on the same branch): each on a project of its own on one
// emulator, taking turns phase after phase, so that the machine's load
// weighs on all alike.

// rtVariant is one configuration of the section, and the build that runs it.
type rtVariant struct {
	name   string
	build  string // buildThis, buildBefore or buildPeer
	config func(n int, t rtTarget) string
}

// The builds the section can measure.
const (
	buildThis   = "this"
	buildBefore = "before"
	buildPeer   = "peer"
)

// rtTarget is where a variant's configuration lives.
type rtTarget struct{ baseURL, projectID, branchID string }

func perDomain(n int, t rtTarget) string {
	return rtHead(t.projectID) + fmt.Sprintf(`
resource "neon_auth_domain" "d" {
  count      = %d
  project_id = neon_auth_integration.this.project_id
  branch_id  = neon_auth_integration.this.branch_id
  domain     = "https://app${count.index}.example.com"
}
`, n)
}

func wholeList(n int, t rtTarget) string {
	return rtHead(t.projectID) + fmt.Sprintf(`
resource "neon_auth_domains" "all" {
  project_id = neon_auth_integration.this.project_id
  branch_id  = neon_auth_integration.this.branch_id
  domains    = [for i in range(%d) : "https://app${i}.example.com"]
}
`, n)
}

// rtHead is this provider's integration on the project's production branch,
// which it names by omitting branch_id, and two OAuth providers.
func rtHead(projectID string) string {
	return providerBlock("") + fmt.Sprintf(`
resource "neon_auth_integration" "this" {
  project_id = %q
}

resource "neon_auth_oauth_provider" "github" {
  project_id  = neon_auth_integration.this.project_id
  branch_id   = neon_auth_integration.this.branch_id
  provider_id = "github"
}

resource "neon_auth_oauth_provider" "google" {
  project_id  = neon_auth_integration.this.project_id
  branch_id   = neon_auth_integration.this.branch_id
  provider_id = "google"
}
`, projectID)
}

// peerConfig is the same shape in kenchan0130/terraform-provider-neon's
// types, which need the branch's id.
func peerConfig(n int, t rtTarget) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    neon = { source = %q }
  }
}

provider "neon" {
  base_url = %q
}

resource "neon_branch_neon_auth" "this" {
  project_id    = %q
  branch_id     = %q
  auth_provider = "better_auth"
}

resource "neon_branch_neon_auth_oauth_provider" "github" {
  project_id = neon_branch_neon_auth.this.project_id
  branch_id  = neon_branch_neon_auth.this.branch_id
  id         = "github"
}

resource "neon_branch_neon_auth_oauth_provider" "google" {
  project_id = neon_branch_neon_auth.this.project_id
  branch_id  = neon_branch_neon_auth.this.branch_id
  id         = "google"
}

resource "neon_branch_neon_auth_trusted_domain" "d" {
  count      = %d
  project_id = neon_branch_neon_auth.this.project_id
  branch_id  = neon_branch_neon_auth.this.branch_id
  domain     = "https://app${count.index}.example.com"
}
`, peerSource, strings.TrimSuffix(t.baseURL, "/"), t.projectID, t.branchID, n)
}

// rtVariants are the section's configurations: this provider's two, the
// same on the -before build, and the peer's.
func rtVariants(builds map[string]string) []rtVariant {
	vs := []rtVariant{
		{name: "N × neon_auth_domain", build: buildThis, config: perDomain},
		{name: "one neon_auth_domains", build: buildThis, config: wholeList},
	}
	if builds[buildBefore] != "" {
		vs = append(vs, rtVariant{name: "before: N × neon_auth_domain", build: buildBefore, config: perDomain},
			rtVariant{name: "before: one neon_auth_domains", build: buildBefore, config: wholeList})
	}
	if builds[buildPeer] != "" {
		vs = append(vs, rtVariant{name: "peer: N × neon_branch_neon_auth_trusted_domain", build: buildPeer, config: peerConfig})
	}
	return vs
}

var rtPhases = []string{"apply", "plan (refresh)", "destroy"}

// rtResult is one case: a reading, a round trip, a size and a variant; its
// rounds of each phase.
type rtResult struct {
	reading emulator.RateLimitReading
	latency time.Duration
	n       int
	variant rtVariant
	rounds  map[string][]phase
}

// median is the round of the phase with the median wall time.
func (r rtResult) median(ph string) phase {
	rs := slices.SortedFunc(slices.Values(r.rounds[ph]), func(a, b phase) int { return cmp.Compare(a.wall, b.wall) })
	return rs[len(rs)/2]
}

// refused is the 429s of the phase over every round, and its requests.
func (r rtResult) refused(ph string) (n429, requests int) {
	for _, p := range r.rounds[ph] {
		n429, requests = n429+p.count429(), requests+p.total()
	}
	return n429, requests
}

// rtRounds is how many rounds a case of n domains runs.
func rtRounds(n int, o options) int {
	if n <= rtSmall {
		return o.rtRepeat
	}
	return o.rtRepeatLarge
}

// rtSmall is the largest N that runs -roundtrip-repeat rounds.
const rtSmall = 10

func benchRoundTrip(work string, builds map[string]string, o options) ([]rtResult, error) {
	var out []rtResult
	for _, reading := range o.readings {
		for _, latency := range o.latencies {
			for _, n := range o.rtSizes {
				fmt.Fprintf(os.Stderr, "-- %s, round trip %s, N = %d --\n", reading, latency, n)
				dir := filepath.Join(work, fmt.Sprintf("roundtrip-%s-%s-%d", reading, latency, n))
				rs, err := benchRoundTripCase(dir, builds, reading, latency, n, o)
				if err != nil {
					return nil, fmt.Errorf("%s, round trip %s, N = %d: %w", reading, latency, n, err)
				}
				out = append(out, rs...)
			}
		}
	}
	return out, nil
}

// rtRun is one variant of a case, ready to run.
type rtRun struct {
	dir string
	env []string
}

// benchRoundTripCase runs every variant on one emulator, each on a project of
// its own with an API key of its own (so that what this provider remembers
// of the account's reading is each variant's own), the variants taking turns
// phase after phase, their order reversed every other round. Before each
// phase the emulator's limits are refilled: each starts as a run of its own.
func benchRoundTripCase(dir string, builds map[string]string, reading emulator.RateLimitReading, latency time.Duration, n int, o options) ([]rtResult, error) {
	variants := rtVariants(builds)
	s, err := serve(emulator.Options{Latency: latency, RateLimitReading: reading, SeedProjects: len(variants)})
	if err != nil {
		return nil, err
	}
	defer s.stop()
	runs, results := make([]rtRun, len(variants)), make([]rtResult, len(variants))
	for i, v := range variants {
		if runs[i], err = prepareRoundTrip(filepath.Join(dir, fmt.Sprint(i)), s, s.emu.ProjectIDs()[i], v, n); err != nil {
			return nil, err
		}
		results[i] = rtResult{reading: reading, latency: latency, n: n, variant: v, rounds: map[string][]phase{}}
	}
	par := fmt.Sprintf("-parallelism=%d", o.parallelism)
	args := map[string][]string{
		"apply":          {"apply", "-auto-approve", "-input=false", par},
		"plan (refresh)": planArgs(par, true),
		"destroy":        {"destroy", "-auto-approve", "-input=false", par},
	}
	for round := range rtRounds(n, o) {
		order := make([]int, len(variants))
		for i := range order {
			order[i] = i
		}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, ph := range rtPhases {
			for _, i := range order {
				s.emu.RefillRateLimits()
				name := fmt.Sprintf("%s, round trip %s, N=%d, %s: %s #%d", reading, latency, n, variants[i].name, ph, round+1)
				p, err := terraform(runs[i].dir, builds[variants[i].build], runs[i].env, s, name, args[ph], okExits(variants[i].build))
				if err != nil {
					return nil, err
				}
				results[i].rounds[ph] = append(results[i].rounds[ph], p)
			}
		}
	}
	return results, nil
}

// okExits are the exit codes of a phase the section goes on after: this
// provider's (and before's) must succeed, with an empty plan; the peer's
// failures (retries given up under 429s) and plans with changes are
// reported, not fatal.
func okExits(build string) []int {
	if build == buildPeer {
		return []int{0, 1, 2}
	}
	return []int{0}
}

// prepareRoundTrip writes a variant's configuration for the project and
// makes its API key.
func prepareRoundTrip(dir string, s *server, projectID string, v rtVariant, n int) (rtRun, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return rtRun{}, err
	}
	branchID, err := s.emu.DefaultBranchID(projectID)
	if err != nil {
		return rtRun{}, err
	}
	key, err := s.emu.CreateKey(emulator.KeyPersonal, "")
	if err != nil {
		return rtRun{}, err
	}
	config := v.config(n, rtTarget{baseURL: s.baseURL, projectID: projectID, branchID: branchID})
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o644); err != nil {
		return rtRun{}, err
	}
	return rtRun{dir: dir, env: []string{"NEON_API_KEY=" + key, "NEON_API_BASE_URL=" + s.baseURL}}, nil
}
