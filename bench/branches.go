package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"
	"time"
)

// The branches section (§3 of the targets in BASELINE.md, "a branch
// refreshes in 4 requests", and one more for the Data API of its database):
// every resource type of the provider, and the
// data sources that read the same endpoints, on three branches in branch
// mode — the production and a preview branch of one project with Better
// Auth, and the production branch of another with Stack Auth (the SDK keys
// and the ownership transfer exist only there) — applied at the documented
// limits, then a no-change plan (with refresh) counted per (branch, read
// endpoint). Then the same for project mode, which has no bundle: a
// project with the Stack Auth resources, and one with an email server as
// well. The configuration is the acceptance test's (internal/provider/testdata/every_resource_type.tf.tmpl).

// everyTypeTemplate is shared with TestAccRefresh_branchReadsEachEndpointOnce.
const everyTypeTemplate = "internal/provider/testdata/every_resource_type.tf.tmpl"

type everyTypeData struct {
	Name, ProjectID, BranchID string
	Domains                   bool
	// ProjectMode: the project-level endpoints, which lack the types only
	// the branch-scoped API has.
	ProjectMode bool
}

// scopeReads are the requests of one Neon Auth scope (a branch, or a
// project in project mode) by endpoint.
type scopeReads struct {
	label, scope string
	endpoints    map[string]int
	limit        int // the target: at most this many requests
}

func (r scopeReads) total() int {
	n := 0
	for _, c := range r.endpoints {
		n += c
	}
	return n
}

type branchesResult struct {
	mode        string
	apply, plan phase
	scopes      []scopeReads
	elsewhere   []string // requests outside every scope of the table
}

var (
	branchScopePath  = regexp.MustCompile(`^(GET|POST|PATCH|PUT|DELETE) /projects/([^/]+)/branches/([^/]+)/((?:auth|data-api)(?:/.*)?)$`)
	projectScopePath = regexp.MustCompile(`^(GET|POST|PATCH|PUT|DELETE) /projects/([^/]+)/auth(/.*)?$`)
)

// endpointsOf groups a phase's requests by scope ("<project>/<branch>" or
// "<project>") and endpoint ("GET …/auth/plugins"); anything else is
// returned by path.
func endpointsOf(p phase) (map[string]map[string]int, []string) {
	by := map[string]map[string]int{}
	var other []string
	for path, n := range p.seen.paths {
		scope, ep := "", ""
		if m := branchScopePath.FindStringSubmatch(path); m != nil {
			scope, ep = m[2]+"/"+m[3], m[1]+" …/"+m[4]
		} else if m := projectScopePath.FindStringSubmatch(path); m != nil {
			scope, ep = m[2], m[1]+" …/auth"+m[3]
		} else {
			other = append(other, fmt.Sprintf("`%s` ×%d", path, n))
			continue
		}
		if by[scope] == nil {
			by[scope] = map[string]int{}
		}
		by[scope][ep] += n
	}
	sort.Strings(other)
	return by, other
}

// benchBranches measures one mode: "branch" or "project".
func benchBranches(work, rc, mode string, o options) (branchesResult, error) {
	r := branchesResult{mode: mode}
	dir := filepath.Join(work, "branches-"+mode)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	tmpl, err := template.ParseFiles(everyTypeTemplate)
	if err != nil {
		return r, fmt.Errorf("the configuration template (run the bench from the repository root): %w", err)
	}
	s, err := startEmulator(limitReading, 2, true, "")
	if err != nil {
		return r, err
	}
	defer s.stop()
	var parts []branchesPart
	if parts, r.scopes, err = branchesLayout(s, mode); err != nil {
		return r, err
	}

	var b strings.Builder
	b.WriteString(providerBlock(fmt.Sprintf("  auth_api = %q\n", mode)))
	for _, pt := range parts {
		if err := tmpl.ExecuteTemplate(&b, pt.template, pt.data); err != nil {
			return r, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(b.String()), 0o644); err != nil {
		return r, err
	}
	par := fmt.Sprintf("-parallelism=%d", o.parallelism)
	if r.apply, err = terraform(dir, rc, s.env(), s, "every type, "+mode+" mode: apply", []string{"apply", "-auto-approve", "-input=false", par}, []int{0}); err != nil {
		return r, err
	}
	// The plan is another provider process, which cannot know what the
	// apply spent of the account's bucket: let it refill, so that the
	// count is of reads, not of reads and their retries after a 429.
	time.Sleep(4 * time.Second)
	if r.plan, err = terraform(dir, rc, s.env(), s, "every type, "+mode+" mode: plan (refresh)", planArgs(par, true), []int{0}); err != nil {
		return r, err
	}
	r.countPlanReads()
	return r, nil
}

// branchesPart is one template of the configuration and what it is
// executed with.
type branchesPart struct {
	template string
	data     everyTypeData
}

// branchesLayout is what a mode configures on the emulator's two projects
// (adding the preview branch in branch mode), and the scopes whose reads
// are counted, each with its target.
func branchesLayout(s *server, mode string) (parts []branchesPart, scopes []scopeReads, err error) {
	p0, p1 := s.emu.ProjectIDs()[0], s.emu.ProjectIDs()[1]
	prod0, err := s.emu.DefaultBranchID(p0)
	if err != nil {
		return nil, nil, err
	}
	prod1, err := s.emu.DefaultBranchID(p1)
	if err != nil {
		return nil, nil, err
	}
	if mode == "branch" {
		preview, err := s.emu.AddBranch(p0, "preview")
		if err != nil {
			return nil, nil, err
		}
		stack := everyTypeData{Name: "stack", ProjectID: p1}
		parts = []branchesPart{
			{"better_auth", everyTypeData{Name: "prod", ProjectID: p0}},
			{"better_auth", everyTypeData{Name: "preview", ProjectID: p0, BranchID: preview, Domains: true}},
			{"stack", stack}, {"stack_email_server", stack},
		}
		scopes = []scopeReads{
			// 4 reads of Neon Auth, and one of the Data API of the branch's database.
			{label: "Better Auth, production branch: every Better Auth resource type, and the Data API", scope: p0 + "/" + prod0, limit: 5},
			{label: "Better Auth, preview branch: the same, with neon_auth_domains", scope: p0 + "/" + preview, limit: 5},
			{label: "Stack Auth, production branch: SDK keys, ownership transfer, user, OAuth, domain, email server", scope: p1 + "/" + prod1, limit: 4},
		}
	} else {
		two := everyTypeData{Name: "two", ProjectID: p1, ProjectMode: true}
		parts = []branchesPart{{"stack", everyTypeData{Name: "one", ProjectID: p0, ProjectMode: true}}, {"stack", two}, {"stack_email_server", two}}
		scopes = []scopeReads{
			{label: "Stack Auth project: SDK keys, ownership transfer, user, OAuth, domain", scope: p0, limit: 3},
			{label: "the same with an email server", scope: p1, limit: 4},
		}
	}
	return parts, scopes, nil
}

// countPlanReads sorts the plan's requests into the scopes of the table,
// and what falls outside every scope into elsewhere.
func (r *branchesResult) countPlanReads() {
	by, other := endpointsOf(r.plan)
	for i := range r.scopes {
		r.scopes[i].endpoints = by[r.scopes[i].scope]
		delete(by, r.scopes[i].scope)
	}
	r.elsewhere = other
	for scope, eps := range by {
		for ep, n := range eps {
			r.elsewhere = append(r.elsewhere, fmt.Sprintf("%s `%s` ×%d", scope, ep, n))
		}
	}
}

func writeBranchesReport(b *strings.Builder, results []branchesResult) {
	fmt.Fprintln(b, "\n## Requests per (branch, read endpoint): every resource type (§3)")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "The configuration of `internal/provider/testdata/every_resource_type.tf.tmpl` (also counted by "+
		"TestAccRefresh_branchReadsEachEndpointOnce and TestAccRefresh_projectModeReadsThreeEndpoints), applied at the documented "+
		"limits, then (4 s later, the account's bucket refilled) a no-change plan with refresh; requests counted by actual path by the benchmark's handler in front of the emulator.")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "| auth_api | scope | plan requests | target | read endpoints (requests) |")
	fmt.Fprintln(b, "|---|---|---|---|---|")
	var verdicts []verdict
	for _, r := range results {
		for _, sc := range r.scopes {
			eps := make([]string, 0, len(sc.endpoints))
			for ep, n := range sc.endpoints {
				eps = append(eps, fmt.Sprintf("`%s` ×%d", ep, n))
			}
			sort.Strings(eps)
			fmt.Fprintf(b, "| %s | %s | %d | ≤ %d | %s |\n", r.mode, sc.label, sc.total(), sc.limit, strings.Join(eps, "<br>"))
			verdicts = append(verdicts, verdict{ok: sc.total() <= sc.limit,
				what: fmt.Sprintf("%s mode, %s: %d requests (target ≤ %d)", r.mode, sc.label, sc.total(), sc.limit)})
		}
		if len(r.elsewhere) > 0 {
			verdicts = append(verdicts, verdict{what: fmt.Sprintf("%s mode: requests outside the scopes above: %s", r.mode, strings.Join(r.elsewhere, ", "))})
		}
		verdicts = append(verdicts, verdict{ok: r.plan.exit == 0, what: fmt.Sprintf("%s mode: the plan after apply is empty (exit %d)", r.mode, r.plan.exit)})
		verdicts = append(verdicts, verdict{ok: r.plan.count429() == 0, what: fmt.Sprintf("%s mode: the plan met no 429 (%d)", r.mode, r.plan.count429())})
	}
	fmt.Fprintln(b)
	writeVerdicts(b, verdicts)
	fmt.Fprintln(b)
	var phases []phase
	for _, r := range results {
		phases = append(phases, r.apply, r.plan)
	}
	writePhases(b, phases...)
	fmt.Fprintln(b, "\nNotes: in branch mode everything that reads a part of the Better Auth bundle (email and password, the plugins, "+
		"the email provider, the OAuth providers, allow_localhost) reads the branch's one shared `GET …/auth/plugins`; the "+
		"webhooks, the domains and the integration (with the SDK keys, users and ownership transfer, which read it) have "+
		"endpoints of their own, and so has the Data API of a database (`GET …/data-api/neondb`). Project mode has no bundle: its email server is a fourth endpoint. 429s: "+
		fmt.Sprint(sum429(results))+".")
}

func sum429(results []branchesResult) int {
	n := 0
	for _, r := range results {
		n += r.apply.count429() + r.plan.count429()
	}
	return n
}
