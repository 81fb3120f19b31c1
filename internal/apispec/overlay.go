package apispec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"

	jsonpatch "github.com/evanphx/json-patch/v5"
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
	// Patch is a JSON Merge Patch (RFC 7386) of the document, an object:
	// its members as they are written.
	Patch map[string]json.RawMessage `json:"patch"`
}

// withOverlays applies every overlays/*.json of fsys, in name order, to the
// JSON document doc, an object. The merge is RFC 7386's (jsonpatch.MergePatch):
// an object member merges member by member, a null member removes, anything
// else replaces; the document's members keep their order, new ones follow.
func withOverlays(doc []byte, fsys fs.FS) ([]byte, error) {
	if !json.Valid(doc) || !bytes.HasPrefix(bytes.TrimSpace(doc), []byte("{")) {
		return nil, errors.New("apispec: the OpenAPI document is not a JSON object")
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
			return nil, fmt.Errorf("apispec: overlay %s is not JSON with an object as its patch: %w", name, err)
		}
		if o.Source == "" || len(o.Facts) == 0 || len(o.Patch) == 0 {
			return nil, fmt.Errorf("apispec: overlay %s needs a source, its facts and a patch", path.Base(name))
		}
		patch, err := json.Marshal(o.Patch)
		if err != nil {
			return nil, fmt.Errorf("apispec: overlay %s: %w", path.Base(name), err)
		}
		if doc, err = jsonpatch.MergePatch(doc, patch); err != nil {
			return nil, fmt.Errorf("apispec: apply overlay %s: %w", path.Base(name), err)
		}
	}
	return doc, nil
}
