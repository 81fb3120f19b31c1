// Command othernames counts, for each Go file named, the distinct names it
// uses that other files of this module define: what a reader must look up
// elsewhere to follow the file. Type-checked, so a method reached through an
// embedded field, a field of a struct declared elsewhere and a name of
// another package of the module each count once.
//
//	go run ./scripts/othernames internal/provider/auth_domain_resource.go …
//
// With -v it lists the names and the files that define them.
package main

import (
	"flag"
	"fmt"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	verbose := flag.Bool("v", false, "list the names and where each is defined")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/othernames [-v] FILE.go …")
		os.Exit(2)
	}
	if err := run(flag.Args(), *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "othernames:", err)
		os.Exit(1)
	}
}

func run(files []string, verbose bool) error {
	dirs := map[string]bool{}
	for i, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return err
		}
		files[i] = abs
		dirs["./"+filepath.ToSlash(mustRel(filepath.Dir(f)))] = true
	}
	patterns := make([]string, 0, len(dirs))
	for d := range dirs {
		patterns = append(patterns, d)
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
		packages.NeedTypesInfo | packages.NeedModule}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := count(pkgs, f, verbose); err != nil {
			return err
		}
	}
	return nil
}

func mustRel(dir string) string {
	wd, _ := os.Getwd()
	abs, _ := filepath.Abs(dir)
	rel, err := filepath.Rel(wd, abs)
	if err != nil {
		return dir
	}
	return rel
}

func count(pkgs []*packages.Package, file string, verbose bool) error {
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return fmt.Errorf("%s: %w", p.PkgPath, p.Errors[0])
		}
		for _, syntax := range p.Syntax {
			if p.Fset.Position(syntax.Pos()).Filename != file {
				continue
			}
			module := p.Module.Path
			seen := map[types.Object]string{}
			for id, obj := range p.TypesInfo.Uses {
				if p.Fset.Position(id.Pos()).Filename != file || obj.Pkg() == nil || !inModule(obj.Pkg().Path(), module) {
					continue
				}
				at := p.Fset.Position(obj.Pos())
				if at.Filename == file || at == (token.Position{}) {
					continue
				}
				seen[obj] = filepath.Base(at.Filename)
			}
			from := map[string]bool{}
			var lines []string
			for obj, where := range seen {
				from[where] = true
				lines = append(lines, fmt.Sprintf("  %-40s %s", qualified(obj), where))
			}
			fmt.Printf("%s: %d names from %d other files\n", mustRel(file), len(seen), len(from))
			if verbose {
				sort.Strings(lines)
				fmt.Println(strings.Join(lines, "\n"))
			}
			return nil
		}
	}
	return fmt.Errorf("%s: not a file of the packages loaded", file)
}

func inModule(pkg, module string) bool { return pkg == module || strings.HasPrefix(pkg, module+"/") }

func qualified(obj types.Object) string {
	name := obj.Name()
	if fn, ok := obj.(*types.Func); ok {
		if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
			recv := sig.Recv()
			return types.TypeString(recv.Type(), func(*types.Package) string { return "" }) + "." + name
		}
	}
	if v, ok := obj.(*types.Var); ok && v.IsField() {
		return "(field) " + name
	}
	return obj.Pkg().Name() + "." + name
}
