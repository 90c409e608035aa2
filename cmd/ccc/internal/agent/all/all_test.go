package all

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
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

// TestNoAgentSwitchOutsideAgents: outside cmd/ccc/internal/agent, no code
// compares an agent name ("claude", "codex", "gemini") or switches on one.
// Which agent it is is the agent packages' business; everyone else asks
// for a capability.
func TestNoAgentSwitchOutsideAgents(t *testing.T) {
	names := map[string]bool{}
	for _, n := range Names() {
		names[strconv.Quote(n)] = true
	}
	root := filepath.Join("..", "..", "..") // cmd/ccc
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "agent" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op == token.EQL || n.Op == token.NEQ {
					for _, side := range []ast.Expr{n.X, n.Y} {
						if lit, ok := side.(*ast.BasicLit); ok && names[lit.Value] {
							t.Errorf("%s: compares with the agent name %s: use a capability of cmd/ccc/internal/agent", fset.Position(n.Pos()), lit.Value)
						}
					}
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if lit, ok := e.(*ast.BasicLit); ok && names[lit.Value] {
						t.Errorf("%s: switches on the agent name %s: use a capability of cmd/ccc/internal/agent", fset.Position(n.Pos()), lit.Value)
					}
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
}
