package apispec

// The operations of the Better Auth settings, found in the reference from
// internal/apispec/betterauth's list: the generated types of package
// neonapi cover them without oapi-codegen.yaml naming each.

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec/betterauth"
)

// BranchAuthPath is the prefix of a setting's path (betterauth.Setting.Path).
const BranchAuthPath = "/projects/{project_id}/branches/{branch_id}/auth/"

// SettingsOperationIDs are the operation ids, sorted, of every setting's
// write and, where the setting is read at its own path, its read; an error
// names a setting the reference (with its overlays) lacks.
func SettingsOperationIDs() ([]string, error) {
	doc, err := Document()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, s := range betterauth.Settings {
		methods := []string{s.Write}
		if s.Read {
			methods = append(methods, http.MethodGet)
		}
		for _, method := range methods {
			item := doc.Paths.Find(BranchAuthPath + s.Path)
			if item == nil || item.GetOperation(method) == nil {
				return nil, fmt.Errorf("setting %s: the reference has no %s %s", s.Name, method, BranchAuthPath+s.Path)
			}
			ids = append(ids, item.GetOperation(method).OperationID)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
