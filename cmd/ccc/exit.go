package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/internal/ui"
)

// Exit statuses: every one ccc uses, in this one table (the root command's
// EXIT STATUS lists them; each command's lists its own).
const (
	ExitOK      = 0
	ExitFailed  = 1  // the command failed; checkpoint: nothing could run, or nothing was saved
	ExitUsage   = 2  // the command line cannot be run as given
	ExitPartial = 3  // checkpoint, post: a step or a tracker failed, the rest ran
	ExitStale   = 4  // status: at least one agent is STALE
	ExitQueued  = 75 // sync: deliveries remain queued (EX_TEMPFAIL)
)

// outcomeExit is a pipeline run's exit status.
var outcomeExit = map[checkpoint.Outcome]int{
	checkpoint.OutcomeOK:      ExitOK,
	checkpoint.OutcomeNothing: ExitFailed,
	checkpoint.OutcomeUsage:   ExitUsage,
	checkpoint.OutcomePartial: ExitPartial,
	checkpoint.OutcomeUnsaved: ExitFailed,
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

// reportExit is the error that ends a command with a pipeline run's exit
// status: nil when every step succeeded. The report says the rest.
func reportExit(r checkpoint.Report) error {
	if code := outcomeExit[r.Outcome()]; code != ExitOK {
		return &exitError{code: code}
	}
	return nil
}

// usageError is a command line that cannot be run as given.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// exitStatus maps the error a command line ended with to its exit status,
// in this one place, and reports it: one line on stderr and, when the
// command was asked for --json and printed nothing yet, an error object on
// stdout, so that a program reading stdout always gets one JSON value.
func exitStatus(f *Factory, found *cobra.Command, args []string, err error, wrote bool) int {
	var exit *exitError
	var usage *usageError
	code, msg := ExitFailed, ""
	switch {
	case err == nil:
		return ExitOK
	case hookCall(found, args):
		// Claude Code reads exit 2 from a hook as "block": a hook command
		// line ccc cannot parse lets the agent go on as if ccc had allowed it.
		first, _, _ := strings.Cut(err.Error(), "\n")
		fmt.Fprintf(f.IO.ErrOut, "ccc hook: %s; nothing done\n", first)
		return ExitOK
	case errors.As(err, &exit):
		code = exit.code
		if exit.err != nil {
			msg = exit.err.Error()
			fmt.Fprintf(f.IO.ErrOut, "ccc: %v\n", exit.err)
		}
	case errors.As(err, &usage) || isCobraUsage(err):
		code, msg = ExitUsage, err.Error()
		fmt.Fprintf(f.IO.ErrOut, "ccc: %v\nRun '%s --help' for usage.\n", err, helpPath(found))
	default:
		msg = err.Error()
		fmt.Fprintf(f.IO.ErrOut, "ccc: %v\n", err)
	}
	if msg != "" && !wrote && wantsJSON(found) {
		_ = ui.JSON(f.IO.Out, jsonError{Error: msg, ExitCode: code})
	}
	return code
}

// jsonError is what a command run with --json prints on stdout when it
// fails before it has anything else to print.
type jsonError struct {
	Error    string `json:"error"`
	ExitCode int    `json:"exitCode"`
}

// wantsJSON says whether the command has --json and it was set.
func wantsJSON(found *cobra.Command) bool {
	if found == nil {
		return false
	}
	fl := found.Flags().Lookup("json")
	return fl != nil && fl.Value.String() == "true"
}

// jsonErrorHelp is the EXIT STATUS line of a command that has --json.
const jsonErrorHelp = `With --json, a failure that leaves nothing else to print prints
     {"error": "...", "exitCode": N} on stdout (the message is on stderr too).`
