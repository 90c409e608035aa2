package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/history"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// TakeoverOptions is `ccc takeover` as parsed.
type TakeoverOptions struct {
	Dir   string
	Agent string
	As    string
	JSON  bool
}

// NewCmdTakeover builds `ccc takeover AGENT`.
func NewCmdTakeover(f *Factory, dir *string, runF func(*TakeoverOptions) error) *cobra.Command {
	opts := &TakeoverOptions{}
	cmd := &cobra.Command{
		Use:   "takeover AGENT [--as NEW]",
		Short: "Hand a crashed agent's work to a new session or agent",
		Long: `Take over a crashed agent's work. The agent's record
is renamed to .ccc/checkpoints/<agent>_crashed_<epoch>.json, where ccc list and
ccc show still find it, and a fresh record is written for the new owner (NEW,
or AGENT itself when --as is not given): a new session id, status
in_progress, the same issue, steps, files and continuation prompt. The old
record's continuation prompt is printed on stdout for the new session's
first message.

ccc status says which agents are STALE. Taking over an agent that still
looks alive is allowed, with a warning: make sure it has stopped.

An agent with no record here (AGENT, or AGENT@MACHINE) is looked up on the
checkpoint branch when it is on (ccc status --all lists those): its progress
file and state are restored here as ccc go --from does (a verified entry
only), and an entry for NEW naming the checkpoint it took over is written on
the branch, so every machine's ccc status --all shows the old agent taken
over once ccc sync has pushed it.` + exitStatusHelp(
			"0  the work was handed over",
			"1  AGENT has no record, NEW already has one, or the records cannot be written",
			"2  usage error",
			jsonErrorHelp),
		Example: `  ccc takeover c --as d
  ccc takeover c            # the same agent name, a new session
  ccc takeover main@laptop-3f2a9c1b --as cloud-main
  ccc takeover c --as d --json | jq -r .prompt`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{fmt.Errorf("takeover takes one AGENT, got %d arguments", len(args))}
			}
			opts.Agent, opts.Dir = args[0], *dir
			for _, a := range []string{opts.Agent, opts.As} {
				if a == "" {
					continue
				}
				if err := records.ValidAgent(a); err != nil {
					return &usageError{err}
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return takeoverRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.As, "as", "", "the new owner's agent name (default: AGENT, in a new session)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the old and new records and the prompt as JSON")
	return cmd
}

func takeoverRun(ctx context.Context, f *Factory, opts *TakeoverOptions) error {
	root, dir, err := f.recordsDir(ctx, opts.Dir)
	if err != nil {
		return err
	}
	now := f.Now()
	tk, err := records.TakeOver(ctx, dir, opts.Agent, opts.As, now)
	if errors.Is(err, records.ErrNoRecord) && (strings.Contains(opts.Agent, "@") || f.settings().Project(root).HandoffRemote != "") {
		return takeoverRemote(ctx, f, root, opts) // an agent of another machine, seen through the branch
	}
	if errors.Is(err, records.ErrNoRecord) {
		return fmt.Errorf("takeover: agent %s has no current record in %s (ccc status lists the agents)", opts.Agent, dir)
	}
	if err != nil {
		return fmt.Errorf("takeover: %w", err)
	}
	prompt := history.ResumePrompt(tk.Old)
	if opts.JSON {
		return ui.JSON(f.IO.Out, struct {
			*records.Takeover
			Prompt string `json:"prompt"`
		}{tk, prompt})
	}
	project := f.settings().Project(root)
	th := records.ThresholdsOf(project.Prefs.Agents)
	if terr := project.Problems.Agents; terr != nil {
		fmt.Fprintf(f.IO.ErrOut, "Warning: %v; using the defaults\n", terr)
	}
	if h := records.Assess(tk.Old, now, th, nil); h.Level == records.Active {
		fmt.Fprintf(f.IO.ErrOut, "Warning: %s was active %s ago: make sure it has stopped, or two agents will work on %s.\n",
			tk.Old.Agent, ui.Age(h.Idle), ui.Dash(tk.Old.Issue))
	}
	what := ui.Dash(tk.Old.Issue)
	if t := tk.Old.Subtasks; t.Total > 0 {
		what += fmt.Sprintf(", %d/%d done", t.Completed, t.Total)
	}
	fmt.Fprintf(f.IO.ErrOut, "Took over %s's work (%s) as %s, session %s.\n", tk.Old.Agent, what, tk.New.Agent, tk.New.SessionID)
	fmt.Fprintf(f.IO.ErrOut, "Old record kept as %s.\n", tk.CrashedPath)
	if tk.Old.ResumeInstructions == "" {
		fmt.Fprintln(f.IO.ErrOut, "Warning: the old record has no continuation prompt; this one is built from its steps.")
	}
	fmt.Fprintln(f.IO.Out, strings.TrimRight(prompt, "\n"))
	return nil
}
