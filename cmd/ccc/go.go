package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
)

// GoOptions is `ccc go` as parsed from its flags.
type GoOptions struct {
	Dir   string
	Agent string
	JSON  bool
	// Yes resumes without asking, as happens anyway when no one can answer.
	Yes bool
	// From resumes agent[@machine] from the checkpoint branch, fetched
	// from Remote; Force restores an unverified entry.
	From, Remote string
	Force        bool
}

// NewCmdGo builds `ccc go`, the /ccc:go resume.
func NewCmdGo(f *Factory, dir *string, runF func(*GoOptions) error) *cobra.Command {
	opts := &GoOptions{}
	cmd := &cobra.Command{
		Use:   "go",
		Short: "Print the continuation prompt to resume from the last checkpoint",
		Long: `Print the project's continuation prompt (the ## Continuation Prompt section of
.ccc-progress.md) on stdout, for the first message of the next session. On
stderr, say how old the checkpoint is and whether the branch or HEAD moved
since it was taken; a checkpoint older than checkpoint.stale_after (24h) or
from another branch is flagged, and so is a prompt that names another
current task than the Current Task section, or another next action than
the **Next Action:** field.

On a terminal it first asks: (r)esume, (s)tart fresh (a fresh start is
announced), (v)iew details, or (d)elete (nothing printed). Starting fresh and
deleting both set the checkpoint aside, losing nothing: the progress file
goes to .ccc/backups, this agent's record to its history (ccc list), and the
plan (taskIndex, totalTasks) and ccc's checkpoint entry leave .ccc-state.json
(its other keys stay); the next ccc go finds nothing to resume until the
next checkpoint. End of input at the question (Ctrl-D) cancels: nothing is
printed on stdout or set aside, and the exit status is 1. --yes, --json, or
a stdin that is not a terminal resume without asking.

If .ccc-progress.md is missing or unreadable, the prompt comes from the next
source that has one: .ccc-state.json when it holds a plan (totalTasks); this
agent's record (--agent, else $CCC_AGENT, else main), else the newest record
made on this worktree's branch; then the progress file's backups. ccc says
which it used, and rebuilds a missing progress file from it. Another agent's
record on another branch is never resumed: ccc names it instead. The age is
the checkpoint's own time (its record, its **Session:** line, the state's
checkpoint entry), never that of a file just rebuilt.

--from AGENT[@MACHINE] resumes an agent of any machine from the checkpoint
branch (see ccc status --all), on any clone, a fresh one too: it fetches the
branch (--remote, default the handoff remote, else origin), restores that
agent's progress file and state here as ccc restore does (the current files
backed up first, an invalid copy refused), prints its prompt, and says when
the commit the checkpoint was taken at is not in this clone yet. An entry
not signed by a trusted key (.ccc-signers, or this machine's own) is
refused unless --force.` + exitStatusHelp(
			"0  the prompt was printed",
			"1  no progress file, state, record or backup to resume from, or the",
			"   question was cancelled (end of input, Ctrl-D): nothing changed",
			"2  usage error",
			jsonErrorHelp),
		Example: `  ccc go
  ccc go --json | jq -r .prompt
  ccc go --from main@laptop-3f2a9c1b`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Dir = *dir
			if opts.From == "" && (opts.Force || opts.Remote != "") {
				return &usageError{errors.New("--force and --remote need --from")}
			}
			if strings.HasPrefix(opts.Remote, "-") {
				return &usageError{fmt.Errorf("--remote %q is not a remote name", opts.Remote)}
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.From != "" {
				return goFromRun(cmd.Context(), f, opts)
			}
			return goRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the prompt and the checkpoint's details as JSON")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "resume without asking")
	cmd.Flags().StringVar(&opts.From, "from", "", "resume AGENT[@MACHINE] from the checkpoint branch (any machine's)")
	cmd.Flags().StringVar(&opts.Remote, "remote", "", "with --from: the remote to fetch the branch from (default: the handoff remote, else origin)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "with --from: restore an entry that is not signed by a trusted key")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "whose record stands in for a missing progress file (default $CCC_AGENT, else main)")
	return cmd
}

func goRun(ctx context.Context, f *Factory, opts *GoOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	project := f.settings().Project(root)
	prefs := project.Prefs
	if perr := project.Problems.Commands; perr != nil {
		fmt.Fprintf(f.IO.ErrOut, "Warning: %v; using defaults\n", perr)
	}
	now := f.Now()
	agent := config.Agent(opts.Agent, f.env())
	r, err := checkpoint.LoadResumeWith(ctx, root, now, checkpoint.ResumeOptions{
		Agent: agent, StaleAfter: time.Duration(prefs.Checkpoint.StaleAfter)})
	if errors.Is(err, checkpoint.ErrNoProgress) {
		return &exitError{code: ExitFailed, err: err}
	}
	if err != nil {
		return err
	}
	r.Warnings = append(r.Warnings, r.DriftWarnings(time.Duration(prefs.Checkpoint.StaleAfter))...)
	if opts.JSON {
		return ui.JSON(f.IO.Out, r)
	}
	fmt.Fprintln(f.IO.ErrOut, r.Summary())
	for _, w := range r.Warnings {
		fmt.Fprintln(f.IO.ErrOut, "Warning: "+w)
	}
	if f.IO.InTTY && !opts.Yes && r.Source == progress.FileName {
		return askResume(ctx, f, root, agent, r)
	}
	fmt.Fprintln(f.IO.Out, r.Prompt)
	return nil
}

// askResume offers seed 001's choices for an existing checkpoint.
func askResume(ctx context.Context, f *Factory, root, agent string, r checkpoint.Resume) error {
	in := bufio.NewReader(f.IO.In)
	path := filepath.Join(root, progress.FileName)
	for asked := 0; ; asked++ {
		fmt.Fprintf(f.IO.ErrOut, `Options:
  (r)esume - continue from task %d of %d
  (s)tart fresh - set the checkpoint aside and start over
  (v)iew details - show %s
  (d)elete - set the checkpoint aside without starting
Choice [r/s/v/d]: `, r.TaskN, r.TaskM, progress.FileName)
		answer, err := in.ReadString('\n')
		choice := strings.ToLower(strings.TrimSpace(answer))
		if err != nil && choice == "" {
			// End of input (Ctrl-D) is "never mind", not an answer:
			// nothing is printed for the session and nothing is set aside.
			fmt.Fprintln(f.IO.ErrOut)
			return &exitError{code: ExitFailed, err: errors.New("go: cancelled (end of input): nothing was printed or changed; run ccc go again to choose")}
		}
		if asked == 5 {
			choice = "r" // no usable answer after six tries: resume, the safe choice
		}
		switch choice {
		case "", "r", "resume":
			fmt.Fprintln(f.IO.Out, r.Prompt)
			return nil
		case "v", "view":
			data, err := projectfs.ReadProjectFile(root, path, progress.MaxSize)
			if err != nil {
				return err
			}
			fmt.Fprintf(f.IO.ErrOut, "\n%s\n", data)
		case "s", "start", "d", "delete":
			c, err := checkpoint.ClearResume(ctx, root, agent, f.Now())
			if err != nil {
				return fmt.Errorf("go: set the checkpoint aside: %w", err)
			}
			aside := c.Progress
			if c.Record != "" {
				aside += " and " + c.Record
			}
			if len(c.State) > 0 {
				fmt.Fprintf(f.IO.ErrOut, "Removed %s from %s.\n", strings.Join(c.State, ", "), state.FileName)
			}
			if choice[0] == 's' {
				fmt.Fprintf(f.IO.ErrOut, "Checkpoint set aside as %s; starting fresh.\n", aside)
				what := "the session"
				if r.Issue != "" {
					what = r.Issue
				}
				fmt.Fprintf(f.IO.Out, "Start %s from the beginning: there is no earlier checkpoint to resume.\n", what)
			} else {
				fmt.Fprintf(f.IO.ErrOut, "Checkpoint deleted; a copy is in %s.\n", aside)
			}
			return nil
		default:
			fmt.Fprintf(f.IO.ErrOut, "Please answer r, s, v or d.\n")
		}
	}
}

// driftWarnings are the hook's too (hook.ResumeEnv.Drift).
var driftWarnings = checkpoint.Resume.DriftWarnings
