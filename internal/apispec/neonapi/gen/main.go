// Command gen writes package neonapi from the API reference: it applies the
// overlays to Neon's OpenAPI document (apispec.ReferenceJSON) and runs
// oapi-codegen, the tool pinned in go.mod, with ../oapi-codegen.yaml.
// go generate runs it in the package's directory.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

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
	cmd := exec.CommandContext(context.Background(), "go", "tool", "oapi-codegen",
		"-config", "oapi-codegen.yaml", "-o", "neonapi.gen.go", reference)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}
