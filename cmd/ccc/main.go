// Command ccc keeps an AI coding session's progress safe across context
// boundaries: it saves .ccc-progress.md, snapshots in-scope files into git,
// keeps one status comment on the tracking issue, and prints the
// continuation prompt for the next session.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:], systemFactory()))
}

// exitError carries an exit status other than 1 out of a command.
type exitError struct {
	code int
	err  error // nil: already reported
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError is a command line that cannot be run as given.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// run executes one command line and maps its error to the exit status, in
// this one place.
func run(args []string, f *Factory) int {
	cmd := NewCmdRoot(f)
	cmd.SetArgs(args)
	found, err := cmd.ExecuteC()
	var exit *exitError
	var usage *usageError
	switch {
	case err == nil:
		return 0
	case hookCall(found, args):
		// Claude Code reads exit 2 from a hook as "block": a hook command
		// line ccc cannot parse lets the agent go on as if ccc had allowed it.
		first, _, _ := strings.Cut(err.Error(), "\n")
		fmt.Fprintf(f.IO.ErrOut, "ccc hook: %s; nothing done\n", first)
		return 0
	case errors.As(err, &exit):
		if exit.err != nil {
			fmt.Fprintf(f.IO.ErrOut, "ccc: %v\n", exit.err)
		}
		return exit.code
	case errors.As(err, &usage) || isCobraUsage(err):
		fmt.Fprintf(f.IO.ErrOut, "ccc: %v\nRun '%s --help' for usage.\n", err, helpPath(found))
		return 2
	default:
		fmt.Fprintf(f.IO.ErrOut, "ccc: %v\n", err)
		return 1
	}
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
