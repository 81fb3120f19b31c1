package apispec

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
)

// Overlays: cited JSON merge patches applied to Neon's OpenAPI document where
// the live service differs.

// overlay is one file of overlays/: a change to the vendored document that
// Neon made after publishing it, with where that change is known from.
type overlay struct {
	// Source names the public material the change comes from.
	Source string `json:"source"`
	// Facts are the changes, in words.
	Facts []string `json:"facts"`
	// Patch is a JSON Merge Patch (RFC 7386) of the document.
	Patch map[string]any `json:"patch"`
}

// withOverlays applies every overlays/*.json of fsys, in name order, to the
// JSON document doc.
func withOverlays(doc []byte, fsys fs.FS) ([]byte, error) {
	var target map[string]any
	if err := json.Unmarshal(doc, &target); err != nil {
		return nil, fmt.Errorf("apispec: read the OpenAPI document: %w", err)
	}
	names, err := fs.Glob(fsys, "overlays/*.json")
	if err != nil {
		return nil, fmt.Errorf("apispec: list the overlays: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("apispec: read overlay %s: %w", name, err)
		}
		var o overlay
		if err := json.Unmarshal(raw, &o); err != nil {
			return nil, fmt.Errorf("apispec: overlay %s is not JSON: %w", name, err)
		}
		if o.Source == "" || len(o.Facts) == 0 || len(o.Patch) == 0 {
			return nil, fmt.Errorf("apispec: overlay %s needs a source, its facts and a patch", path.Base(name))
		}
		patched, ok := mergePatch(target, o.Patch).(map[string]any)
		if !ok {
			return nil, fmt.Errorf("apispec: overlay %s does not leave the document an object", path.Base(name))
		}
		target = patched
	}
	return json.Marshal(target)
}

// mergePatch applies the JSON Merge Patch patch to target (RFC 7386 §2):
// an object patch merges member by member, a null member removes, anything
// else replaces.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}
