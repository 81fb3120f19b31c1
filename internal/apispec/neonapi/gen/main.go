// Command gen writes package neonapi from the API reference: it applies the
// overlays to Neon's OpenAPI document (apispec.ReferenceJSON) and runs
// oapi-codegen, the tool pinned in go.mod, with ../oapi-codegen.yaml, whose
// list of operations it extends with every operation of a branch's Neon
// Auth (apispec.BranchAuthOperationIDs). go generate runs it in the package's
// directory.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/neon-auth/terraform-provider-neon/internal/apispec"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "neonapi/gen:", err)
		os.Exit(1)
	}
}

func run() error {
	doc, err := apispec.ReferenceJSON()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "neonapi-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	reference := filepath.Join(dir, "reference.json")
	if err := os.WriteFile(reference, doc, 0o600); err != nil {
		return err
	}
	config := filepath.Join(dir, "oapi-codegen.yaml")
	if err := writeConfig(config); err != nil {
		return err
	}
	cmd := exec.CommandContext(context.Background(), "go", "tool", "oapi-codegen",
		"-config", config, "-o", "neonapi.gen.go", reference)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// includeList opens the list of operations in oapi-codegen.yaml.
const includeList = "  include-operation-ids:\n"

// writeConfig writes oapi-codegen.yaml with a branch's Neon Auth operations
// added to its list (the templates it names are found in the working directory).
func writeConfig(path string) error {
	cfg, err := os.ReadFile("oapi-codegen.yaml")
	if err != nil {
		return err
	}
	head, tail, ok := strings.Cut(string(cfg), includeList)
	if !ok {
		return fmt.Errorf("oapi-codegen.yaml has no line %q", strings.TrimSpace(includeList))
	}
	ids, err := apispec.BranchAuthOperationIDs()
	if err != nil {
		return err
	}
	var branchAuth strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&branchAuth, "    - %s\n", id)
	}
	return os.WriteFile(path, []byte(head+includeList+branchAuth.String()+tail), 0o600)
}
