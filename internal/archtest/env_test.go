package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// envReaders are the files allowed to name os.Getenv, os.LookupEnv or
// os.Environ, each with its reason. Everything else takes the environment
// from config.Settings, read once by cmd/ccc (config.ReadEnv), so that
// config.Variables is the whole list of what ccc reads.
var envReaders = map[string]string{
	"cmd/ccc/factory.go": "the process's one source of the environment: Factory.Getenv = os.Getenv, read once into config.Settings",
	"internal/gitrepo/gitrepo.go": "git's subprocess environment is append(os.Environ(), LC_ALL=C, …): git must see " +
		"the user's HOME, PATH and GIT_* as `git commit` would; discovery reads .git's files itself only when " +
		"no GIT_* variable that git's discovery reads is there (readDiscoveryEnv), so it finds what git would",
	"internal/gitrepo/plumbing.go": "the checkpoint branch's git commands get the user's environment less the variables " +
		"git exports to a hook (GIT_DIR, GIT_INDEX_FILE, …), so a ccc run from a hook works on its own repository; ccc reads none of it",
	"state/records/dir.go":          "the same for its one git command (the main worktree's common directory)",
	"sinks/linear/oauth/browser.go": "the browser ccc linear login starts gets the user's environment (DISPLAY, its profile)",
	"internal/testutil/testutil.go": "test support: git fixtures run with the test's environment",
	"internal/redact/redact.go": "redact.Default is the fail-safe for a nil *Redactor: it takes the credentials from " +
		"the process itself, so that a redactor someone forgot to build never lets the process's own keys pass",
}

// sourceFiles are the module's non-test Go files, module-relative.
func sourceFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "../.." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			rel, _ := filepath.Rel("../..", path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("found %d Go files; the test is not looking at the module", len(files))
	}
	return files
}

// TestNoEnvironmentReadsOutsideSettings: no Go file outside the allow-list
// names os.Getenv, os.LookupEnv or os.Environ (a call or the function
// itself), and none but config/env.go asks a getenv function for a
// variable by name, so config.Variables stays the list of what ccc reads.
func TestNoEnvironmentReadsOutsideSettings(t *testing.T) {
	var bad []string
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, file := range sourceFiles(t) {
		f, err := parser.ParseFile(fset, filepath.Join("../..", file), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		osName := ""
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "os" {
				osName = "os"
				if imp.Name != nil {
					osName = imp.Name.Name
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && osName != "" && x.Name == osName {
					switch n.Sel.Name {
					case "Getenv", "LookupEnv", "Environ":
						if _, ok := envReaders[file]; ok {
							seen[file] = true
						} else {
							bad = append(bad, fset.Position(n.Pos()).String()+": os."+n.Sel.Name+" (take it from config.Settings)")
						}
					}
				}
			case *ast.CallExpr:
				if file == "config/env.go" || len(n.Args) != 1 {
					return true
				}
				lit, ok := n.Args[0].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				name := ""
				switch fn := n.Fun.(type) {
				case *ast.Ident:
					name = fn.Name
				case *ast.SelectorExpr:
					name = fn.Sel.Name
				}
				if strings.EqualFold(name, "getenv") {
					bad = append(bad, fset.Position(n.Pos()).String()+": "+name+"("+lit.Value+") (add it to config.Variables and read it in config.ReadEnv)")
				}
			}
			return true
		})
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("%d environment read(s) outside config.Settings:\n  %s", len(bad), strings.Join(bad, "\n  "))
	}
	for file := range envReaders {
		if !seen[file] {
			t.Errorf("%s is allowed to read the environment but does not: remove it from envReaders", file)
		}
	}
}

// sinkImportsAllowed are the sinks packages the commands may import: the
// contract (sinks) and the registry (sinks/all). A concrete sink is reached
// through the registry and the capability interfaces of sinks
// (Conversation, HealthChecker, Factory.CheckFlag), so that adding a sink
// never touches cmd.
var sinkImportsAllowed = map[string]string{
	"sinks":     "the contract and the capability interfaces",
	"sinks/all": "the registry",
	"sinks/linear/oauth": "the user's sign-in to Linear (ccc linear login/logout/whoami, the token store, its " +
		"secrets for the redactor): an auth library that the linear sinks use, not a sink",
}

// TestCommandsReachSinksThroughTheRegistry: cmd/ccc and cmd/ccc/internal/...
// import no sinks/<name> package but sinkImportsAllowed.
func TestCommandsReachSinksThroughTheRegistry(t *testing.T) {
	var bad []string
	for _, p := range listPackages(t) {
		from := rel(p.ImportPath)
		if from != "cmd/ccc" && !under(from, "cmd/ccc/internal") {
			continue
		}
		for _, imp := range p.Imports {
			to := rel(imp)
			if _, ok := sinkImportsAllowed[to]; under(to, "sinks") && !ok {
				bad = append(bad, from+" → "+to)
			}
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("%d command(s) import a concrete sink (use sinks/all's registry and a capability of sinks):\n  %s",
			len(bad), strings.Join(bad, "\n  "))
	}
}
