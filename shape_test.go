package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a non-test function may be, counted from the
// line of its body's opening brace to the line of its closing brace. A
// longer one is split where its parts have names; long table-driven tests
// are fine.
const maxFuncLines = 80

// TestShape_noLongFunctions keeps every non-test function of internal/ and
// cmd/ within maxFuncLines.
func TestShape_noLongFunctions(t *testing.T) {
	for _, root := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				if n := fset.Position(fn.Body.Rbrace).Line - fset.Position(fn.Body.Lbrace).Line + 1; n > maxFuncLines {
					t.Errorf("%s: %s is %d lines long, more than %d: split it where its parts have names",
						fset.Position(fn.Pos()), fn.Name.Name, n, maxFuncLines)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
