package emulator

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"

	"github.com/google/uuid"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/neonapi"
)

// A seed is a declarative starting state: projects, their branches, API keys
// with a fixed token, and each branch's Neon Auth, in HCL (.hcl) or in HCL's
// JSON form (.json). The blocks and attributes are the hcl tags of Seed's
// types, for example
//
//	project "app" {
//	  id = "app-project-00000001"      # optional; generated otherwise
//	  branch "main" {                   # the default branch
//	    neon_auth {                     # auth_provider: better_auth (default), stack or mock
//	      domains = ["https://app.example.com"]
//	    }
//	    data_api "neondb" {             # the Data API of its database (neon_auth, or external
//	      auth_provider = "neon_auth"   # with jwks_url); branches made from it get a copy
//	    }
//	  }
//	  branch "preview" {                # a child of parent (default "main") with a copy of
//	    parent = "main"                 # its Better Auth, as on Neon; neon_auth pre-sets
//	    neon_auth {                     # domains on the copy
//	      domains = ["https://pr-1.preview.example.com"]
//	    }
//	  }
//	  branch "schema" { init_source = "schema-only" } # a root branch: no parent, no copy
//	  jwks "Clerk" {                    # a JWKS the project trusts (its provider's name)
//	    jwks_url = "https://example.clerk.accounts.dev/.well-known/jwks.json"
//	    branch   = "preview"            # optional: that branch only
//	  }
//	}
//	api_key "ci" {
//	  token   = "..."                   # 16 characters or more
//	  type    = "project"               # personal, organization or project
//	  project = "app"                   # the project's label (type project only)
//	}
//
// ParseSeed reports every mistake with its file, line and column.

// Seed is a parsed, validated seed file. Its types are decoded by gohcl
// from their struct tags; the ranges say where each value was written, for
// the errors.
type Seed struct {
	Projects []SeedProject `hcl:"project,block"`
	Keys     []SeedKey     `hcl:"api_key,block"`
}

// SeedProject is a project of a seed.
type SeedProject struct {
	Name     string       `hcl:"name,label"`
	ID       string       `hcl:"id,optional"` // "" → generated
	Branches []SeedBranch `hcl:"branch,block"`
	JWKS     []SeedJWKS   `hcl:"jwks,block"`

	NameRange hcl.Range `hcl:"name,label_range"`
	IDRange   hcl.Range `hcl:"id,attr_value_range"`
}

// SeedBranch is a branch of a seed project. The one named "main" is the
// default branch; others are created from Parent as the API creates them:
// a child gets a copy of the parent's Better Auth (a neon_auth block then
// adds domains to the copy), and a schema-only branch is a root branch
// without Neon Auth unless its own neon_auth block enables one.
type SeedBranch struct {
	Name       string        `hcl:"name,label"`
	ID         string        `hcl:"id,optional"`          // "" → generated
	Parent     string        `hcl:"parent,optional"`      // a branch name; "" → "main"
	InitSource string        `hcl:"init_source,optional"` // "", "parent-data" or "schema-only"
	NeonAuth   *SeedNeonAuth `hcl:"neon_auth,block"`
	DataAPIs   []SeedDataAPI `hcl:"data_api,block"`

	NameRange       hcl.Range `hcl:"name,label_range"`
	IDRange         hcl.Range `hcl:"id,attr_value_range"`
	ParentRange     hcl.Range `hcl:"parent,attr_value_range"`
	InitSourceRange hcl.Range `hcl:"init_source,attr_value_range"`
}

// SeedNeonAuth enables Neon Auth on a branch, or on a branch that inherits
// its parent's, adds domains to the copy.
type SeedNeonAuth struct {
	AuthProvider string   `hcl:"auth_provider,optional"` // "" → better_auth
	Domains      []string `hcl:"domains,optional"`       // canonical origins once parsed

	AuthProviderRange hcl.Range `hcl:"auth_provider,attr_value_range"`
	DomainsRange      hcl.Range `hcl:"domains,attr_value_range"`
}

// SeedDataAPI is the Data API of a database of a seed branch (seed branches
// have the database neondb): active from the start, with the settings'
// defaults.
type SeedDataAPI struct {
	Database     string `hcl:"database,label"`
	AuthProvider string `hcl:"auth_provider,optional"` // "", neon_auth or external
	JWKSURL      string `hcl:"jwks_url,optional"`      // external only, and required there
	ProviderName string `hcl:"provider_name,optional"` // external only

	DatabaseRange     hcl.Range `hcl:"database,label_range"`
	AuthProviderRange hcl.Range `hcl:"auth_provider,attr_value_range"`
	JWKSURLRange      hcl.Range `hcl:"jwks_url,attr_value_range"`
}

// SeedJWKS is a JWKS a seed project trusts, labelled with its provider's
// name: for every branch, or for one (a branch label of the project).
type SeedJWKS struct {
	ProviderName string `hcl:"provider_name,label"`
	URL          string `hcl:"jwks_url"`
	Branch       string `hcl:"branch,optional"`

	URLRange    hcl.Range `hcl:"jwks_url,attr_value_range"`
	BranchRange hcl.Range `hcl:"branch,attr_value_range"`
}

// SeedKey is an API key with a fixed token.
type SeedKey struct {
	Name    string  `hcl:"name,label"`
	Token   string  `hcl:"token"`
	Kind    KeyKind `hcl:"type"`
	Project string  `hcl:"project,optional"` // project label (KeyProject only)

	DefRange     hcl.Range `hcl:",def_range"`
	TokenRange   hcl.Range `hcl:"token,attr_value_range"`
	KindRange    hcl.Range `hcl:"type,attr_value_range"`
	ProjectRange hcl.Range `hcl:"project,attr_value_range"`
}

// minSeedTokenLength keeps seeded tokens from being trivially guessable.
const minSeedTokenLength = 16

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
	s := &Seed{}
	c := &seedChecker{diags: gohcl.DecodeBody(f.Body, nil, s)}
	c.check(s)
	if c.diags.HasErrors() {
		return nil, &SeedError{c.diags}
	}
	return s, nil
}

// seedChecker checks what a seed's types cannot say, collecting every
// mistake rather than stopping at the first.
type seedChecker struct {
	diags hcl.Diagnostics
	ids   map[string]hcl.Range // project and branch ids, which are unique
}

func (c *seedChecker) errorf(rng hcl.Range, summary, format string, args ...any) {
	c.diags = append(c.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng.Ptr()})
}

func (c *seedChecker) check(s *Seed) {
	c.ids = map[string]hcl.Range{}
	projects := map[string]hcl.Range{}
	for i := range s.Projects {
		p := &s.Projects[i]
		if prev, dup := projects[p.Name]; dup {
			c.errorf(p.NameRange, "Duplicate project", "project %q is already defined at line %d", p.Name, prev.Start.Line)
			continue
		}
		projects[p.Name] = p.NameRange
		c.id(p.ID, p.IDRange, "project")
		branches := map[string]hcl.Range{}
		for j := range p.Branches {
			c.branch(&p.Branches[j], p.Name, branches)
		}
		c.checkInheritance(*p)
		for _, j := range p.JWKS {
			c.jwks(j, p.Name, branches)
		}
	}
	tokens := map[string]hcl.Range{}
	for _, k := range s.Keys {
		c.key(k, projects, tokens)
	}
}

func (c *seedChecker) key(k SeedKey, projects, tokens map[string]hcl.Range) {
	switch {
	case k.TokenRange == (hcl.Range{}): // missing: reported by the decoder
	case len(k.Token) < minSeedTokenLength:
		c.errorf(k.TokenRange, "Invalid token", "api_key %q: the token must be at least %d characters", k.Name, minSeedTokenLength)
	case strings.ContainsAny(k.Token, " \t\r\n"):
		c.errorf(k.TokenRange, "Invalid token", "api_key %q: the token must not contain spaces", k.Name)
	}
	if prev, dup := tokens[k.Token]; dup && k.Token != "" {
		c.errorf(k.TokenRange, "Duplicate token", "api_key %q has the same token as the key at line %d", k.Name, prev.Start.Line)
	}
	tokens[k.Token] = k.TokenRange
	switch k.Kind {
	case KeyPersonal, KeyOrganization:
		if k.Project != "" {
			c.errorf(k.ProjectRange, "Unexpected project", "api_key %q: only keys of type \"project\" have a project", k.Name)
		}
	case KeyProject:
		if _, ok := projects[k.Project]; !ok {
			c.errorf(cmp.Or(k.ProjectRange, k.DefRange), "Unknown project",
				"api_key %q of type \"project\" needs project = the label of a project block (%s)", k.Name, quotedKeys(projects))
		}
	default:
		if k.KindRange != (hcl.Range{}) {
			c.errorf(k.KindRange, "Invalid type", "api_key %q: type must be \"personal\", \"organization\" or \"project\", got %q", k.Name, k.Kind)
		}
	}
}

// branch checks a branch block of project; branches are the ones above it.
func (c *seedChecker) branch(br *SeedBranch, project string, branches map[string]hcl.Range) {
	if prev, dup := branches[br.Name]; dup {
		c.errorf(br.NameRange, "Duplicate branch", "branch %q of project %q is already defined at line %d", br.Name, project, prev.Start.Line)
		return
	}
	if br.ID != "" && !strings.HasPrefix(br.ID, "br-") {
		c.errorf(br.IDRange, "Invalid id", "branch ids start with \"br-\", got %q", br.ID)
	}
	c.id(br.ID, br.IDRange, "branch")
	switch {
	case br.Name == defaultBranchName && br.Parent != "":
		c.errorf(br.ParentRange, "Unexpected parent", "branch %q is the default branch of project %q and has no parent", br.Name, project)
	case br.Name != defaultBranchName && br.Parent != "" && br.Parent != defaultBranchName:
		if _, ok := branches[br.Parent]; !ok {
			c.errorf(br.ParentRange, "Unknown parent", "branch %q: parent %q must be %q or a branch defined above it in project %q",
				br.Name, br.Parent, defaultBranchName, project)
		}
	}
	switch {
	case br.InitSourceRange == (hcl.Range{}):
	case br.Name == defaultBranchName:
		c.errorf(br.InitSourceRange, "Unexpected init_source", "branch %q is the default branch of project %q: it is not created from another branch", br.Name, project)
	case br.InitSource != initParentData && br.InitSource != initSchemaOnly:
		c.errorf(br.InitSourceRange, "Invalid init_source", "branch %q: init_source must be %q or %q, got %q", br.Name, initParentData, initSchemaOnly, br.InitSource)
	}
	branches[br.Name] = br.NameRange
	if a := br.NeonAuth; a != nil {
		c.neonAuth(a)
	}
	for _, d := range br.DataAPIs {
		c.dataAPI(d, br.Name)
	}
}

// dataAPI checks a data_api block of a branch, but for what depends on the
// branch's Neon Auth (checkInheritance).
func (c *seedChecker) dataAPI(d SeedDataAPI, branch string) {
	if d.Database != defaultDatabaseName {
		c.errorf(d.DatabaseRange, "Unknown database", "branch %q: a seed branch has the database %q only, not %q", branch, defaultDatabaseName, d.Database)
	}
	switch d.AuthProvider {
	case "", dataAPINeonAuth:
		if d.JWKSURL != "" || d.ProviderName != "" {
			c.errorf(d.JWKSURLRange, "Unexpected jwks_url", "branch %q: jwks_url and provider_name go with auth_provider = %q", branch, dataAPIExternal)
		}
	case dataAPIExternal:
		if err := checkJWKSURL(d.JWKSURL); err != nil {
			c.errorf(cmp.Or(d.JWKSURLRange, d.AuthProviderRange), "Invalid jwks_url", "branch %q: auth_provider %q needs jwks_url, an HTTPS URL", branch, dataAPIExternal)
		}
	default:
		c.errorf(d.AuthProviderRange, "Invalid auth_provider", "branch %q: auth_provider must be %q or %q, got %q", branch, dataAPINeonAuth, dataAPIExternal, d.AuthProvider)
	}
}

// jwks checks a jwks block of project, whose branches are known.
func (c *seedChecker) jwks(j SeedJWKS, project string, branches map[string]hcl.Range) {
	if err := checkJWKSURL(j.URL); err != nil {
		c.errorf(j.URLRange, "Invalid jwks_url", "jwks %q: jwks_url must be an absolute HTTPS URL, got %q", j.ProviderName, j.URL)
	}
	if _, ok := branches[j.Branch]; j.Branch != "" && j.Branch != defaultBranchName && !ok {
		c.errorf(j.BranchRange, "Unknown branch", "jwks %q: branch %q is no branch of project %q (%s)", j.ProviderName, j.Branch, project, quotedKeys(branches))
	}
}

// checkInheritance refuses a neon_auth block that names another auth
// provider than the Better Auth its branch inherits (such a block can only
// pre-set domains on the copy), a data_api block on a branch that inherits
// neondb's Data API from its parent, and one with auth_provider neon_auth
// on a branch without Neon Auth.
func (c *seedChecker) checkInheritance(p SeedProject) {
	provider := map[string]string{}
	dataAPI := map[string]bool{} // branch → has neondb's Data API
	for _, br := range seedCreationOrder(p.Branches) {
		parent := cmp.Or(br.Parent, defaultBranchName)
		child := br.Name != defaultBranchName && br.InitSource != initSchemaOnly
		inherited := br.Name != defaultBranchName && inheritsAuth(provider[parent], br.InitSource)
		switch {
		case inherited && br.NeonAuth != nil && br.NeonAuth.AuthProvider != authProviderBetterAuth:
			c.errorf(br.NeonAuth.AuthProviderRange, "Invalid auth_provider",
				"branch %q starts with a copy of the Better Auth of its parent %q, so its neon_auth block can only pre-set domains: "+
					"remove auth_provider, or set init_source = %q for a branch without the copy", br.Name, parent, initSchemaOnly)
		case inherited:
			provider[br.Name] = authProviderBetterAuth
		case br.NeonAuth != nil:
			provider[br.Name] = br.NeonAuth.AuthProvider
		}
		dataAPI[br.Name] = child && dataAPI[parent]
		for _, d := range br.DataAPIs {
			switch {
			case dataAPI[br.Name]:
				c.errorf(d.DatabaseRange, "Inherited Data API", "branch %q starts with a copy of the Data API of %s on its parent %q: "+
					"remove this block, or set init_source = %q for a branch without the copy", br.Name, d.Database, parent, initSchemaOnly)
			case d.AuthProvider == dataAPINeonAuth && provider[br.Name] == "":
				c.errorf(d.AuthProviderRange, "No Neon Auth", "branch %q has no Neon Auth for auth_provider = %q: add a neon_auth block "+
					"to it, or use auth_provider = %q", br.Name, dataAPINeonAuth, dataAPIExternal)
			}
			dataAPI[br.Name] = true
		}
	}
}

// seedCreationOrder is the order branches are created in: the default
// branch first (every other may be created from it), then the others as
// declared (a parent is declared above its children).
func seedCreationOrder(bs []SeedBranch) []SeedBranch {
	i := slices.IndexFunc(bs, func(b SeedBranch) bool { return b.Name == defaultBranchName })
	if i <= 0 {
		return bs
	}
	return slices.Concat(bs[i:i+1], bs[:i], bs[i+1:])
}

func (c *seedChecker) id(id string, rng hcl.Range, what string) {
	if id == "" {
		if rng != (hcl.Range{}) {
			c.errorf(rng, "Invalid id", "a %s id must not be empty; leave id out to have one generated", what)
		}
		return
	}
	if strings.ContainsAny(id, "/ \t?#%") {
		c.errorf(rng, "Invalid id", "%s id %q must not contain '/', spaces, '?', '#' or '%%'", what, id)
	}
	if prev, dup := c.ids[id]; dup {
		c.errorf(rng, "Duplicate id", "%s id %q is already used at line %d", what, id, prev.Start.Line)
	}
	c.ids[id] = rng
}

// neonAuth checks a neon_auth block, gives it its default auth provider and
// puts its domains in canonical form.
func (c *seedChecker) neonAuth(a *SeedNeonAuth) {
	if a.AuthProviderRange == (hcl.Range{}) {
		a.AuthProvider = authProviderBetterAuth
	} else if checkAuthProvider(a.AuthProvider) != nil {
		c.errorf(a.AuthProviderRange, "Invalid auth_provider", "auth_provider must be one of %s, got %q", authProviderList(), a.AuthProvider)
	}
	var domains []string
	for _, raw := range a.Domains {
		canonical, err := canonicalOrigin(raw)
		switch {
		case err != nil:
			c.errorf(a.DomainsRange, "Invalid domain", "domain %q %v", raw, err)
		case slices.Contains(domains, canonical):
			c.errorf(a.DomainsRange, "Duplicate domain", "domain %q is listed twice", canonical)
		default:
			domains = append(domains, canonical)
		}
	}
	a.Domains = domains
}

func quotedKeys(m map[string]hcl.Range) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, strconv.Quote(k))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// seedState builds a fresh state from a seed.
func seedState(s *Seed, at time.Time) *state {
	st := newState()
	projectIDs := map[string]string{}
	for _, sp := range s.Projects {
		p := st.addProject(sp.Name, at)
		if sp.ID != "" {
			p.Project.ID = sp.ID
			for _, b := range p.Branches {
				b.ProjectID = sp.ID
			}
		}
		projectIDs[sp.Name] = p.Project.ID
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
			if a := sb.NeonAuth; a != nil && b.Auth == nil { // a block on a copy pre-sets domains only
				b.Auth = newBranchAuth(p.Project, b.ID, a.AuthProvider, defaultDatabaseName, defaultRoleName, at)
			}
			for _, d := range orZero(sb.NeonAuth).Domains {
				b.Auth.addDomain(d)
			}
			for _, d := range sb.DataAPIs { // before the branches made from it, which copy them
				b.DataAPIs = append(b.DataAPIs, &DataAPI{DatabaseName: d.Database, AuthProvider: d.AuthProvider, JWKSURL: d.JWKSURL,
					ProviderName: d.ProviderName, AuthSchema: true, CreatedAt: at, ReadyAt: at, SchemaCacheRefreshedAt: at})
			}
		}
		for _, j := range sp.JWKS {
			var branchID *string
			if j.Branch != "" {
				branchID = &byName[j.Branch].ID
			}
			p.JWKS = append(p.JWKS, newJWKS(p, neonapi.AddProjectJWKSRequest{JWKSURL: j.URL, ProviderName: j.ProviderName, BranchID: branchID},
				uuid.NewString(), at))
		}
	}
	for _, k := range s.Keys {
		st.ensureKey(k.Token, k.Kind, projectIDs[k.Project], k.Name, at)
	}
	return st
}
