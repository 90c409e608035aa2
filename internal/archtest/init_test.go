package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// startupExempt are files whose package-level regexps may stay, each with
// its reason (none today).
var startupExempt = map[string]bool{}

// TestNoRegexpCompiledAtInit: every ccc process pays for what package init
// does, including a hook that decides nothing and --version, so the
// packages in ccc's binary compile their regular expressions on first use
// (sync.OnceValue), not in a package-level var (issue 14).
func TestNoRegexpCompiledAtInit(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}} {{.Dir}}{{end}}", module+"/cmd/ccc").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var bad []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(line, " ")
		r := rel(path)
		if r == "" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || startupExempt[r+"/"+filepath.Base(f)] {
				continue
			}
			bad = append(bad, initRegexps(t, r, f)...)
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("%d regexp(s) compiled or table(s) built at package init; wrap them in sync.OnceValue:\n  %s", len(bad), strings.Join(bad, "\n  "))
	}
}

// initRegexps lists the package-level vars of file that call
// regexp.MustCompile or regexp.Compile directly (not inside a func literal),
// or that call a func literal (a table built by a function at init).
func initRegexps(t *testing.T, pkg, file string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	var found []string
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			for _, v := range spec.(*ast.ValueSpec).Values {
				ast.Inspect(v, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.FuncLit:
						return false // runs when called, not at init
					case *ast.CallExpr:
						if _, ok := n.Fun.(*ast.FuncLit); ok {
							found = append(found, pkg+"/"+filepath.Base(file)+":"+fset.Position(n.Pos()).String()[len(file)+1:]+" (func literal called at init)")
						}
					case *ast.SelectorExpr:
						if id, ok := n.X.(*ast.Ident); ok && id.Name == "regexp" && strings.HasSuffix(n.Sel.Name, "Compile") {
							found = append(found, pkg+"/"+filepath.Base(file)+":"+fset.Position(n.Pos()).String()[len(file)+1:])
						}
					}
					return true
				})
			}
		}
	}
	return found
}
