package emulator

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"
	"github.com/zclconf/go-cty/cty"
)

// A seed is a declarative starting state: projects, their branches, API keys
// with a fixed token, and each branch's Neon Auth. It is written in HCL
// (.hcl) or in HCL's JSON form (.json), for example
//
//	project "app" {
//	  id = "app-project-00000001"        # optional; generated otherwise
//	  branch "main" {                     # the default branch (always "main")
//	    neon_auth {
//	      auth_provider = "better_auth"    # default; also stack (deprecated) and mock (tests only)
//	      domains       = ["https://app.example.com"]
//	    }
//	  }
//	  branch "preview" {                  # a child of parent (default "main"), with
//	    parent = "main"                   # a copy of its Better Auth, as on Neon
//	    neon_auth {                       # optional: domains pre-set on the copy
//	      domains = ["https://pr-1.preview.example.com"]
//	    }
//	  }
//	  branch "schema" {                   # init_source = "schema-only": a root
//	    init_source = "schema-only"       # branch, no parent, no Neon Auth copied
//	  }
//	}
//
//	api_key "ci" {
//	  token   = "..."                     # fixed token, 16 characters or more
//	  type    = "project"                 # personal, organization or project
//	  project = "app"                     # the project label (type project only)
//	}
//
// In JSON: {"project": {"app": {"branch": {"main": {"neon_auth": {}}}}},
// "api_key": {"ci": {"token": "...", "type": "personal"}}}.
// ParseSeed reports every mistake with its file, line and column.

// Seed is a parsed, validated seed file.
type Seed struct {
	Projects []SeedProject
	Keys     []SeedKey
}

// SeedProject is a project of a seed.
type SeedProject struct {
	Name     string
	ID       string // "" → generated
	Branches []SeedBranch
}

// SeedBranch is a branch of a seed project. The one named "main" is the
// default branch; others are created from Parent as the API creates them:
// a child gets a copy of the parent's Better Auth (a neon_auth block then
// adds domains to the copy), and a schema-only branch is a root branch
// without Neon Auth unless its own neon_auth block enables one.
type SeedBranch struct {
	Name       string
	ID         string // "" → generated
	Parent     string // a branch name; "" → "main"
	InitSource string // "", "parent-data" or "schema-only"
	NeonAuth   *SeedNeonAuth
}

// SeedNeonAuth enables Neon Auth on a branch, or on a branch that inherits
// its parent's, adds domains to the copy.
type SeedNeonAuth struct {
	AuthProvider string
	Domains      []string // canonical origins

	providerRange hcl.Range // of auth_provider, for errors
}

// SeedKey is an API key with a fixed token.
type SeedKey struct {
	Name    string
	Token   string
	Kind    KeyKind
	Project string // project label (KeyProject only)
}

// minSeedTokenLength keeps seeded tokens from being trivially guessable.
const minSeedTokenLength = 16

var (
	seedSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "project", LabelNames: []string{"name"}},
		{Type: "api_key", LabelNames: []string{"name"}},
	}}
	seedProjectSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "id"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "branch", LabelNames: []string{"name"}}},
	}
	seedBranchSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "id"}, {Name: "parent"}, {Name: "init_source"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "neon_auth"}},
	}
	seedAuthSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "auth_provider"}, {Name: "domains"}}}
	seedKeySchema  = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "token", Required: true}, {Name: "type", Required: true}, {Name: "project"},
	}}
)

// SeedError lists the mistakes of a seed file, each with file:line:column.
type SeedError struct{ Diags hcl.Diagnostics }

func (e *SeedError) Error() string {
	var lines []string
	for _, d := range e.Diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		where := "seed"
		if d.Subject != nil {
			where = fmt.Sprintf("%s:%d:%d", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		lines = append(lines, where+": "+msg)
	}
	return "invalid seed file:\n  " + strings.Join(lines, "\n  ")
}

// ParseSeed parses and validates a seed; filename decides the syntax (.json
// is JSON, anything else HCL) and names the file in errors.
func ParseSeed(filename string, src []byte) (*Seed, error) {
	var f *hcl.File
	var diags hcl.Diagnostics
	if strings.EqualFold(filepath.Ext(filename), ".json") {
		f, diags = hcljson.Parse(src, filename)
	} else {
		f, diags = hclsyntax.ParseConfig(src, filename, hcl.Pos{Line: 1, Column: 1})
	}
	if diags.HasErrors() {
		return nil, &SeedError{diags}
	}
	d := &seedDecoder{}
	s := d.file(f.Body)
	if d.diags.HasErrors() {
		return nil, &SeedError{d.diags}
	}
	return s, nil
}

// seedDecoder collects every mistake rather than stopping at the first.
type seedDecoder struct{ diags hcl.Diagnostics }

func (d *seedDecoder) errorf(rng hcl.Range, summary, format string, args ...any) {
	r := rng
	d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: &r})
}

func (d *seedDecoder) content(body hcl.Body, schema *hcl.BodySchema) *hcl.BodyContent {
	c, diags := body.Content(schema)
	d.diags = append(d.diags, diags...)
	return c
}

// str reads an optional string attribute; "" when absent.
func (d *seedDecoder) str(c *hcl.BodyContent, name string) (string, hcl.Range) {
	a, ok := c.Attributes[name]
	if !ok {
		return "", hcl.Range{}
	}
	v, diags := a.Expr.Value(nil)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return "", a.Expr.Range()
	}
	if v.IsNull() || !v.Type().Equals(cty.String) {
		d.errorf(a.Expr.Range(), "Invalid "+name, "%s must be a string", name)
		return "", a.Expr.Range()
	}
	return v.AsString(), a.Expr.Range()
}

func (d *seedDecoder) strList(c *hcl.BodyContent, name string) ([]string, hcl.Range) {
	a, ok := c.Attributes[name]
	if !ok {
		return nil, hcl.Range{}
	}
	v, diags := a.Expr.Value(nil)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return nil, a.Expr.Range()
	}
	if v.IsNull() || !v.Type().IsTupleType() && !v.Type().IsListType() {
		d.errorf(a.Expr.Range(), "Invalid "+name, "%s must be a list of strings", name)
		return nil, a.Expr.Range()
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || !e.Type().Equals(cty.String) {
			d.errorf(a.Expr.Range(), "Invalid "+name, "%s must be a list of strings", name)
			return nil, a.Expr.Range()
		}
		out = append(out, e.AsString())
	}
	return out, a.Expr.Range()
}

func (d *seedDecoder) file(body hcl.Body) *Seed {
	s := &Seed{}
	c := d.content(body, seedSchema)
	if c == nil {
		return s
	}
	projects := map[string]hcl.Range{}
	ids := map[string]hcl.Range{}
	for _, b := range c.Blocks.OfType("project") {
		name := b.Labels[0]
		if prev, dup := projects[name]; dup {
			d.errorf(b.LabelRanges[0], "Duplicate project", "project %q is already defined at line %d", name, prev.Start.Line)
			continue
		}
		projects[name] = b.DefRange
		p := d.project(b, ids)
		s.Projects = append(s.Projects, p)
	}
	tokens := map[string]hcl.Range{}
	for _, b := range c.Blocks.OfType("api_key") {
		k := SeedKey{Name: b.Labels[0]}
		kc := d.content(b.Body, seedKeySchema)
		if kc == nil {
			continue
		}
		var tokenRng, typeRng, projRng hcl.Range
		k.Token, tokenRng = d.str(kc, "token")
		var kind string
		kind, typeRng = d.str(kc, "type")
		k.Kind = KeyKind(kind)
		k.Project, projRng = d.str(kc, "project")
		switch {
		case tokenRng == (hcl.Range{}):
			// missing: reported by the schema
		case len(k.Token) < minSeedTokenLength:
			d.errorf(tokenRng, "Invalid token", "api_key %q: the token must be at least %d characters", k.Name, minSeedTokenLength)
		case strings.ContainsAny(k.Token, " \t\r\n"):
			d.errorf(tokenRng, "Invalid token", "api_key %q: the token must not contain spaces", k.Name)
		}
		if prev, dup := tokens[k.Token]; dup && k.Token != "" {
			d.errorf(tokenRng, "Duplicate token", "api_key %q has the same token as the key at line %d", k.Name, prev.Start.Line)
		}
		tokens[k.Token] = tokenRng
		switch k.Kind {
		case KeyPersonal, KeyOrganization:
			if k.Project != "" {
				d.errorf(projRng, "Unexpected project", "api_key %q: only keys of type \"project\" have a project", k.Name)
			}
		case KeyProject:
			if _, ok := projects[k.Project]; !ok {
				rng := projRng
				if k.Project == "" {
					rng = b.DefRange
				}
				d.errorf(rng, "Unknown project", "api_key %q of type \"project\" needs project = the label of a project block (%s)",
					k.Name, strings.Join(sortedKeys(projects), ", "))
			}
		default:
			if typeRng != (hcl.Range{}) {
				d.errorf(typeRng, "Invalid type", "api_key %q: type must be \"personal\", \"organization\" or \"project\", got %q", k.Name, kind)
			}
		}
		s.Keys = append(s.Keys, k)
	}
	return s
}

func (d *seedDecoder) project(b *hcl.Block, ids map[string]hcl.Range) SeedProject {
	p := SeedProject{Name: b.Labels[0]}
	c := d.content(b.Body, seedProjectSchema)
	if c == nil {
		return p
	}
	var idRng hcl.Range
	p.ID, idRng = d.str(c, "id")
	d.checkID(p.ID, idRng, ids, "project")
	branches := map[string]hcl.Range{}
	for _, bb := range c.Blocks.OfType("branch") {
		if br, ok := d.branch(bb, p.Name, branches, ids); ok {
			p.Branches = append(p.Branches, br)
		}
	}
	d.checkInheritance(p)
	return p
}

// branch decodes a branch block of project; branches are the ones above it.
func (d *seedDecoder) branch(bb *hcl.Block, project string, branches, ids map[string]hcl.Range) (SeedBranch, bool) {
	br := SeedBranch{Name: bb.Labels[0]}
	if prev, dup := branches[br.Name]; dup {
		d.errorf(bb.LabelRanges[0], "Duplicate branch", "branch %q of project %q is already defined at line %d", br.Name, project, prev.Start.Line)
		return br, false
	}
	bc := d.content(bb.Body, seedBranchSchema)
	if bc == nil {
		return br, false
	}
	var bidRng, parentRng, initRng hcl.Range
	br.ID, bidRng = d.str(bc, "id")
	if br.ID != "" && !strings.HasPrefix(br.ID, "br-") {
		d.errorf(bidRng, "Invalid id", "branch ids start with \"br-\", got %q", br.ID)
	}
	d.checkID(br.ID, bidRng, ids, "branch")
	br.Parent, parentRng = d.str(bc, "parent")
	br.InitSource, initRng = d.str(bc, "init_source")
	switch {
	case br.Name == defaultBranchName && br.Parent != "":
		d.errorf(parentRng, "Unexpected parent", "branch %q is the default branch of project %q and has no parent", br.Name, project)
	case br.Name != defaultBranchName && br.Parent != "" && br.Parent != defaultBranchName:
		if _, ok := branches[br.Parent]; !ok {
			d.errorf(parentRng, "Unknown parent", "branch %q: parent %q must be %q or a branch defined above it in project %q",
				br.Name, br.Parent, defaultBranchName, project)
		}
	}
	switch {
	case initRng == (hcl.Range{}):
	case br.Name == defaultBranchName:
		d.errorf(initRng, "Unexpected init_source", "branch %q is the default branch of project %q: it is not created from another branch", br.Name, project)
	case br.InitSource != initParentData && br.InitSource != initSchemaOnly:
		d.errorf(initRng, "Invalid init_source", "branch %q: init_source must be %q or %q, got %q", br.Name, initParentData, initSchemaOnly, br.InitSource)
	}
	branches[br.Name] = bb.DefRange
	if auth := bc.Blocks.OfType("neon_auth"); len(auth) > 0 {
		if len(auth) > 1 {
			d.errorf(auth[1].DefRange, "Duplicate neon_auth", "branch %q has more than one neon_auth block", br.Name)
		}
		br.NeonAuth = d.neonAuth(auth[0])
	}
	return br, true
}

// checkInheritance refuses a neon_auth block that names another auth
// provider than the Better Auth its branch inherits: such a block can only
// pre-set domains on the copy.
func (d *seedDecoder) checkInheritance(p SeedProject) {
	provider := map[string]string{}
	for _, br := range seedCreationOrder(p.Branches) {
		parent := cmp.Or(br.Parent, defaultBranchName)
		inherited := br.Name != defaultBranchName && br.InitSource != initSchemaOnly && provider[parent] == authProviderBetterAuth
		switch {
		case inherited && br.NeonAuth != nil && br.NeonAuth.AuthProvider != authProviderBetterAuth:
			d.errorf(br.NeonAuth.providerRange, "Invalid auth_provider",
				"branch %q starts with a copy of the Better Auth of its parent %q, so its neon_auth block can only pre-set domains: "+
					"remove auth_provider, or set init_source = %q for a branch without the copy", br.Name, parent, initSchemaOnly)
		case inherited:
			provider[br.Name] = authProviderBetterAuth
		case br.NeonAuth != nil:
			provider[br.Name] = br.NeonAuth.AuthProvider
		}
	}
}

// seedCreationOrder is the order branches are created in: the default
// branch first (every other may be created from it), then the others as
// declared (a parent is declared above its children).
func seedCreationOrder(bs []SeedBranch) []SeedBranch {
	out := make([]SeedBranch, 0, len(bs))
	for _, br := range bs {
		if br.Name == defaultBranchName {
			out = append(out, br)
		}
	}
	for _, br := range bs {
		if br.Name != defaultBranchName {
			out = append(out, br)
		}
	}
	return out
}

func (d *seedDecoder) checkID(id string, rng hcl.Range, ids map[string]hcl.Range, what string) {
	if id == "" {
		if rng != (hcl.Range{}) {
			d.errorf(rng, "Invalid id", "a %s id must not be empty; leave id out to have one generated", what)
		}
		return
	}
	if strings.ContainsAny(id, "/ \t?#%") {
		d.errorf(rng, "Invalid id", "%s id %q must not contain '/', spaces, '?', '#' or '%%'", what, id)
	}
	if prev, dup := ids[id]; dup {
		d.errorf(rng, "Duplicate id", "%s id %q is already used at line %d", what, id, prev.Start.Line)
	}
	ids[id] = rng
}

func (d *seedDecoder) neonAuth(b *hcl.Block) *SeedNeonAuth {
	a := &SeedNeonAuth{AuthProvider: authProviderBetterAuth}
	c := d.content(b.Body, seedAuthSchema)
	if c == nil {
		return a
	}
	if v, rng := d.str(c, "auth_provider"); rng != (hcl.Range{}) {
		a.providerRange = rng
		if checkAuthProvider(v) != nil {
			d.errorf(rng, "Invalid auth_provider", "auth_provider must be one of %s, got %q", authProviderList(), v)
		}
		a.AuthProvider = v
	}
	domains, rng := d.strList(c, "domains")
	for _, raw := range domains {
		canonical, err := canonicalOrigin(raw)
		if err != nil {
			d.errorf(rng, "Invalid domain", "domain %q %v", raw, err)
			continue
		}
		if slices.Contains(a.Domains, canonical) {
			d.errorf(rng, "Duplicate domain", "domain %q is listed twice", canonical)
			continue
		}
		a.Domains = append(a.Domains, canonical)
	}
	return a
}

func sortedKeys(m map[string]hcl.Range) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, fmt.Sprintf("%q", k))
	}
	slices.Sort(out)
	return out
}

// seedState builds a fresh state from a seed.
func seedState(s *Seed, at time.Time) *state {
	st := newState()
	for _, sp := range s.Projects {
		p := st.addProject(sp.Name, at)
		if sp.ID != "" {
			p.Project.ID = sp.ID
			for _, b := range p.Branches {
				b.ProjectID = sp.ID
			}
		}
		byName := map[string]*branchState{defaultBranchName: p.defaultBranch()}
		for _, sb := range seedCreationOrder(sp.Branches) {
			b := byName[defaultBranchName]
			if sb.Name != defaultBranchName {
				b = st.addBranch(p, byName[cmp.Or(sb.Parent, defaultBranchName)], sb.Name, sb.InitSource, at)
				byName[sb.Name] = b
			}
			if sb.ID != "" {
				p.renameBranch(b, sb.ID)
			}
			if sb.NeonAuth != nil {
				seedAuth(p, b, sb.NeonAuth, at)
			}
		}
	}
	projectIDs := map[string]string{}
	for i, sp := range s.Projects {
		projectIDs[sp.Name] = st.Projects[i].Project.ID
	}
	for _, k := range s.Keys {
		st.ensureKey(k.Token, k.Kind, projectIDs[k.Project], at)
	}
	return st
}

// seedAuth enables a seed branch's Neon Auth, or adds the block's domains to
// the copy the branch inherited.
func seedAuth(p *projectState, b *branchState, sa *SeedNeonAuth, at time.Time) {
	if b.Auth == nil {
		b.Auth = newBranchAuth(p, b, sa.AuthProvider, defaultDatabaseName, defaultRoleName, at)
	}
	for _, dom := range sa.Domains {
		if b.Auth.domainIndex(dom) < 0 {
			b.Auth.addDomain(dom)
		}
	}
}
