// Command ccc keeps an AI coding session's progress safe across context
// boundaries: it saves .ccc-progress.md, snapshots in-scope files into git,
// keeps one status comment on the tracking issue, and prints the
// continuation prompt for the next session.
package main

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:], systemFactory()))
}

// run executes one command line and returns its exit status (exitStatus
// maps the error); runTree does so on the tree that tree builds for it.
func run(args []string, f *Factory) int { return runTree(args, f, NewCmdRootFor) }
func runTree(args []string, f *Factory, tree func(*Factory, []string) *cobra.Command) int {
	out := &wroteWriter{w: f.IO.Out}
	fc := *f
	fc.IO.Out = out
	cmd := tree(&fc, args)
	cmd.SetArgs(args)
	// One command is one process: what git says about the repository is
	// asked once and shared by every step (internal/gitrepo.WithCache).
	found, err := cmd.ExecuteContextC(gitrepo.WithCache(context.Background()))
	return exitStatus(f, found, args, err, out.wrote)
}

// wroteWriter remembers whether anything was written through it.
type wroteWriter struct {
	w     io.Writer
	wrote bool
}

func (w *wroteWriter) Write(p []byte) (int, error) {
	w.wrote = w.wrote || len(p) > 0
	return w.w.Write(p)
}

// helpPath names the command whose --help a usage error points to: the
// one cobra found, else the root.
func helpPath(found *cobra.Command) string {
	if found == nil {
		return "ccc"
	}
	return found.CommandPath()
}

// hookCall reports whether a command line that failed was meant for `ccc
// hook`: cobra found a hook command, or "hook" is the first word that is
// neither a flag nor possibly a flag's value (`ccc --bogus hook stop` makes
// cobra take "hook" for the value of --bogus).
func hookCall(found *cobra.Command, args []string) bool {
	for c := found; c != nil && c.HasParent(); c = c.Parent() {
		if c.Name() == "hook" && !c.Parent().HasParent() {
			return true
		}
	}
	afterFlag := false
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case strings.HasPrefix(a, "-"):
			afterFlag = !strings.Contains(a, "=")
		case a == "hook":
			return true
		case afterFlag:
			afterFlag = false // a flag's value
		default:
			return false // another command
		}
	}
	return false
}
