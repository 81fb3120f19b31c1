package apispec

// The operations of a branch's Neon Auth, found in the reference (the
// Better Auth settings' among them): the generated types of package neonapi
// cover every one without oapi-codegen.yaml naming each.

import (
	"slices"
	"strings"
)

// BranchAuthPath is the prefix of a setting's path (betterauth.Setting.Path).
const BranchAuthPath = "/projects/{project_id}/branches/{branch_id}/auth/"

// BranchAuthOperationIDs are the operation ids, sorted, of every operation
// of a branch's Neon Auth (the paths under BranchAuthPath, and the Neon Auth
// of the branch itself), the settings' among them: package neonapi has
// types for every one without oapi-codegen.yaml naming each, so an endpoint
// the reference gains there needs only its emulator route and its client.
func BranchAuthOperationIDs() ([]string, error) {
	doc, err := Document()
	if err != nil {
		return nil, err
	}
	var ids []string
	for path, item := range doc.Paths.Map() {
		if path != strings.TrimSuffix(BranchAuthPath, "/") && !strings.HasPrefix(path, BranchAuthPath) {
			continue
		}
		for _, op := range item.Operations() {
			ids = append(ids, op.OperationID)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
