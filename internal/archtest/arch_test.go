// Package archtest checks the import graph against the rooms ARCHITECTURE.md
// describes: the pipeline is driven only from the command, and the rooms
// that model files never reach up to the pipeline, a sink or a command.
package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/ccc-checkpoint/ccc"

// pkg is what `go list -json` says of one package of the module.
type pkg struct {
	ImportPath string
	Deps       []string // every package it needs to build, transitively
	Imports    []string // the packages its own files import
}

// rel is path without the module prefix ("checkpoint", "sinks/linear"); ""
// for a package outside the module.
func rel(path string) string {
	if path == module {
		return "."
	}
	r, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	return r
}

// under reports whether the module-relative path r is room or inside it.
func under(r, room string) bool {
	return r == room || strings.HasPrefix(r, room+"/")
}

// listPackages runs go list over the whole module (production code; test
// files may import what they test).
func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; the test is not looking at the module", len(pkgs))
	}
	return pkgs
}

// arrows returns "from → to" for every module package to that p depends on
// (transitively) and that forbidden says it must not.
func arrows(p pkg, forbidden func(to string) bool) []string {
	var out []string
	for _, d := range p.Deps {
		if to := rel(d); to != "" && forbidden(to) {
			out = append(out, rel(p.ImportPath)+" → "+to)
		}
	}
	return out
}

// TestImportGraph states the rooms' dependency rules; a failure lists each
// forbidden arrow (a transitive one names the package reached, not the
// path: `go list -deps` on the first package shows it).
func TestImportGraph(t *testing.T) {
	pkgs := listPackages(t)
	// The graph is read right only if the known arrow shows.
	for _, p := range pkgs {
		if rel(p.ImportPath) == "cmd/ccc" && len(arrows(p, func(to string) bool { return to == "checkpoint" })) == 0 {
			t.Fatal("cmd/ccc does not depend on checkpoint: go list's Deps are not what this test expects")
		}
	}
	rules := []struct {
		name      string
		applies   func(from string) bool
		forbidden func(to string) bool
	}{
		{
			// The drivers run the pipeline: the command, and the two
			// engines it hands events to (the agent's hooks, the sync
			// worker's file watch). Nothing below them may, or the
			// pipeline's steps run from places nobody looks.
			name: "only the drivers (cmd/ccc and its cmd/ccc/internal packages) use the pipeline (checkpoint)",
			applies: func(from string) bool {
				return !under(from, "cmd") && !under(from, "checkpoint")
			},
			forbidden: func(to string) bool { return under(to, "checkpoint") },
		},
		{
			// The file models are what the pipeline and the sinks are built
			// on; an arrow up makes a cycle in waiting and drags the network
			// into a parser.
			name: "progress, markdown, state and config use no sink, pipeline or command",
			applies: func(from string) bool {
				return under(from, "progress") || under(from, "markdown") || under(from, "state") || under(from, "config")
			},
			forbidden: func(to string) bool {
				return under(to, "sinks") || under(to, "checkpoint") || under(to, "cmd") || under(to, "internal/cmd")
			},
		},
		{
			// internal/ holds the primitives the rooms below the pipeline
			// use (projectfs, gitrepo, redact, comment, ui, the fakes):
			// an arrow from there up to a room that uses them is a cycle
			// in waiting. The drivers live under cmd/ccc/internal.
			name: "internal/ uses no pipeline, sink, state or command",
			applies: func(from string) bool {
				return under(from, "internal") && !under(from, "internal/cmd")
			},
			forbidden: func(to string) bool {
				return under(to, "checkpoint") || under(to, "sinks") || under(to, "state") || under(to, "cmd") || under(to, "internal/cmd")
			},
		},
		{
			// Commands are leaves: what two commands share belongs in a
			// package. Only a command uses its own cmd/<name>/internal.
			name:    "no package uses a command",
			applies: func(string) bool { return true },
			forbidden: func(to string) bool {
				return to == "cmd/ccc" || under(to, "internal/cmd")
			},
		},
	}
	for _, rule := range rules {
		t.Run(rule.name, func(t *testing.T) {
			var bad []string
			for _, p := range pkgs {
				if from := rel(p.ImportPath); rule.applies(from) {
					bad = append(bad, arrows(p, rule.forbidden)...)
				}
			}
			sort.Strings(bad)
			if len(bad) > 0 {
				t.Errorf("%d forbidden arrow(s):\n  %s", len(bad), strings.Join(bad, "\n  "))
			}
		})
	}
}
