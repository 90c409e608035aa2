package all

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
)

func TestNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range Agents() {
		assert.False(t, seen[a.Name()], "%s listed twice", a.Name())
		seen[a.Name()] = true
		assert.Equal(t, strings.ToLower(a.Name()), a.Name())
	}
	assert.Equal(t, []string{"claude", "codex", "gemini"}, Names())
}

func TestLookup(t *testing.T) {
	for in, want := range map[string]string{"Codex": "codex", " gemini ": "gemini", "claude": "claude"} {
		a, err := Lookup(in)
		require.NoError(t, err)
		assert.Equal(t, want, a.Name())
	}
	a, err := Lookup("")
	require.NoError(t, err)
	assert.Nil(t, a)
	_, err = Lookup("copilot")
	assert.EqualError(t, err, `unknown agent "copilot" (claude, codex or gemini)`)
}

// Every agent that the hooks read or install for says so through a
// capability, not through its name.
func TestCapabilities(t *testing.T) {
	for _, a := range Agents() {
		_, inst := a.(agent.HookInstaller)
		assert.True(t, inst, "%s installs its hooks", a.Name())
		_, log := a.(agent.LogLister)
		_, tasks := a.(agent.TaskLister)
		assert.True(t, log || tasks, "%s has a checklist to capture", a.Name())
	}
}

// nameAllowed are the files outside cmd/ccc/internal/agent whose
// production code may hold an agent's name as a string literal, each with
// its reason. Empty today: a name outside the agent packages is a switch
// waiting to happen.
var nameAllowed = map[string]string{}

// importAllowed are the packages outside cmd/ccc/internal/agent that may
// import one agent's own package (agent/claudecode, agent/codex,
// agent/gemini), each with its reason: everyone else reaches an agent
// through agent/all and its capabilities.
var importAllowed = map[string]string{}

// TestNoAgentSwitchOutsideAgents: outside cmd/ccc/internal/agent, no
// production code in cmd/ccc compares an agent name ("claude", "codex",
// "gemini", in any case) or holds one as a literal, compares or switches on
// an agent's Name(), or imports one agent's own package (where a type
// switch on its Agent would start). Which agent it is is the agent
// packages' business; everyone else asks for a capability. The
// allow-lists above name each exception and why.
func TestNoAgentSwitchOutsideAgents(t *testing.T) {
	names := map[string]bool{}
	for _, n := range Names() {
		names[n] = true
	}
	own := map[string]bool{}
	for _, a := range Agents() {
		own[reflect.TypeOf(a).PkgPath()] = true
	}
	isName := func(e ast.Expr) bool {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return false
		}
		v, err := strconv.Unquote(lit.Value)
		return err == nil && names[strings.ToLower(v)]
	}
	// agentName is a call of Name() on something that names an agent
	// (in.Agent.Name(), agentOf(in).Name(), a.Name() for a of agent/all).
	agentName := func(e ast.Expr) bool {
		call, ok := e.(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Name" {
			return false
		}
		var recv strings.Builder
		_ = printer.Fprint(&recv, token.NewFileSet(), sel.X)
		return strings.Contains(strings.ToLower(recv.String()), "agent")
	}
	root := filepath.Join("..", "..", "..") // cmd/ccc
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == filepath.Join(root, "internal", "agent") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if own[p] && importAllowed[filepath.ToSlash(filepath.Dir(rel))] == "" {
				t.Errorf("%s: imports %s: reach the agent through agent/all and a capability", fset.Position(imp.Pos()), p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ImportSpec:
				return false
			case *ast.BasicLit:
				if isName(n) && nameAllowed[rel] == "" {
					t.Errorf("%s: the agent name %s outside the agent packages: use a capability of cmd/ccc/internal/agent", fset.Position(n.Pos()), n.Value)
				}
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (agentName(n.X) || agentName(n.Y)) {
					t.Errorf("%s: compares an agent's Name(): use a capability of cmd/ccc/internal/agent", fset.Position(n.Pos()))
				}
			case *ast.SwitchStmt:
				if n.Tag != nil && agentName(n.Tag) {
					t.Errorf("%s: switches on an agent's Name(): use a capability of cmd/ccc/internal/agent", fset.Position(n.Pos()))
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
}
