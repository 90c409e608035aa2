package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/machines"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/status"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// StatusOptions is `ccc status` as parsed.
type StatusOptions struct {
	Dir      string
	JSON     bool
	Markdown bool
	// Output is the file --markdown writes ("" for stdout).
	Output   string
	Watch    bool
	Interval time.Duration
	// All shows every agent on every machine from the checkpoint branch,
	// fetched from Remote.
	All    bool
	Remote string
}

// NewCmdStatus builds `ccc status`, the supervisor's table of agents.
func NewCmdStatus(f *Factory, dir *string, runF func(*StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show every agent of the repository: task, progress, last update, health",
		Long: `Show one row per agent that has a checkpoint record in the repository's
shared .ccc/checkpoints (every worktree of the repository sees the same
agents): agent, issue and task, progress (N/M and %), the age of its last
checkpoint, its status, its health, and the tracker updates queued for it.

Health is judged when the command runs, from the record's last checkpoint or
heartbeat (ccc heartbeat), whichever is later:
  ACTIVE   within agents.warn_after (preference, default 30m)
  WARNING  quiet for longer than agents.warn_after: may be slow
  STALE    quiet for longer than agents.stale_after (default 60m): likely
           crashed; ccc takeover hands its work to another agent
  DRIFTED  added when the repository moved since the record: the HEAD of the
           agent's branch changed, or the branch is no longer checked out
  UNKNOWN  its record cannot be read (corrupt, or a newer schemaVersion):
           the row gives the reason; fix or restore the file (ccc restore)
A complete or failed agent has no health ("—"); a failed agent keeps its
row, with status failed, until ccc cleanup removes its record from
.ccc/checkpoints/failed/ (after --failed-max-age). The thresholds are the
preferences of the main worktree, where the records live, whichever
worktree the command runs in.

The table has colour and icons on a terminal. --json prints the same as one
object; --markdown prints the STATUS.md table (Agent | Task | Progress |
Last Update | Status | Health), its columns padded to line up in the raw
text too, or writes it atomically to --output FILE.
--watch redraws the table in place every --interval on a terminal, and
prints it again each time otherwise, until interrupted.

--all shows every agent on every machine instead, from the checkpoint
branch (preference handoff.remote): it fetches the branch from the remote
(--remote NAME, default the handoff remote, else origin) and lists each
agent with its machine, issue, task N of M, last checkpoint, status,
health, branch and commit, and whether its entry is signed by a trusted key
(.ccc-signers, or this machine's own); --json and --markdown print the same.

CCC_NOW (RFC 3339) sets the clock: a testing aid.` + exitStatusHelp(
			"0  no agent is STALE or UNKNOWN (--watch: stopped by a signal)",
			"4  at least one agent is STALE",
			"1  no agent is STALE but a record cannot be read (UNKNOWN), or the",
			"   project cannot be read",
			"2  usage error",
			jsonErrorHelp),
		Example: `  ccc status
  ccc status --json | jq -r '.agents[] | select(.health == "STALE") | .agent'
  ccc status --markdown --output progress/STATUS.md
  ccc status --watch
  ccc status --all
  ccc status --all --remote upstream --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case opts.JSON && opts.Markdown:
				return &usageError{errors.New("--json and --markdown are exclusive")}
			case opts.Output != "" && !opts.Markdown:
				return &usageError{errors.New("--output needs --markdown")}
			case opts.Watch && (opts.JSON || opts.Markdown):
				return &usageError{errors.New("--watch shows the table; it does not combine with --json or --markdown")}
			case opts.Interval <= 0:
				return &usageError{errors.New("--interval must be longer than zero")}
			case opts.Remote != "" && strings.HasPrefix(opts.Remote, "-"):
				return &usageError{fmt.Errorf("--remote %q is not a remote name", opts.Remote)}
			}
			opts.All = opts.All || opts.Remote != ""
			if opts.All && opts.Watch {
				return &usageError{errors.New("--all does not combine with --watch")}
			}
			opts.Dir = *dir
			if runF != nil {
				return runF(opts)
			}
			return statusRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.JSON, "json", false, "print the agents as JSON")
	fl.BoolVar(&opts.Markdown, "markdown", false, "print the STATUS.md Markdown table")
	fl.StringVarP(&opts.Output, "output", "o", "", "with --markdown: write the table to FILE (atomically) instead of stdout")
	fl.BoolVarP(&opts.Watch, "watch", "w", false, "redraw the table until interrupted")
	durationVar(fl, &opts.Interval, "interval", 5*time.Second, "with --watch: time between refreshes")
	fl.BoolVar(&opts.All, "all", false, "every agent on every machine, from the checkpoint branch (fetched)")
	fl.StringVar(&opts.Remote, "remote", "", "with --all: the remote to fetch the branch from (default: the handoff remote, else origin)")
	return cmd
}

// StatusReport is what `ccc status --json` prints.
type StatusReport = status.Report

func statusRun(ctx context.Context, f *Factory, opts *StatusOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	if opts.All {
		return statusAll(ctx, f, root, opts)
	}
	tty := f.IO.OutTTY
	if opts.Watch {
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		return statusWatch(ctx, f, root, opts, tty, sleepCtx)
	}
	rep, err := collectStatus(ctx, f, root)
	if err != nil {
		return err
	}
	if err := printStatus(f, opts, rep, tty); err != nil {
		return err
	}
	switch {
	case rep.Stale > 0:
		return &exitError{code: ExitStale}
	case rep.Unknown > 0:
		return &exitError{code: ExitFailed, err: fmt.Errorf("status: %d agent record(s) cannot be read", rep.Unknown)}
	}
	return nil
}

// printStatus prints the report as --json, --markdown or the table ask.
func printStatus(f *Factory, opts *StatusOptions, rep StatusReport, tty bool) error {
	if !opts.JSON {
		for _, w := range rep.Warnings {
			fmt.Fprintln(f.IO.ErrOut, "Warning: "+w)
		}
	}
	switch {
	case opts.JSON:
		if err := ui.JSON(f.IO.Out, rep); err != nil {
			return err
		}
	case opts.Markdown:
		md := status.Markdown(rep)
		if opts.Output == "" {
			if _, err := io.WriteString(f.IO.Out, md); err != nil {
				return err
			}
			break
		}
		path := opts.Output
		if !filepath.IsAbs(path) {
			cwd, err := f.Getwd()
			if err != nil {
				return fmt.Errorf("status: %w", err)
			}
			path = filepath.Join(cwd, path)
		}
		if err := projectfs.WriteFileAtomic(path, []byte(md), 0o644); err != nil {
			return fmt.Errorf("status: write %s: %w", opts.Output, err)
		}
		fmt.Fprintf(f.IO.ErrOut, "Wrote %s (%d agent(s)).\n", opts.Output, len(rep.Agents))
	default:
		if len(rep.Agents) == 0 {
			fmt.Fprintf(f.IO.ErrOut, "No agent records in %s.\n", rep.Dir)
			break
		}
		colour := tty && !f.env().NoColor
		if _, err := io.WriteString(f.IO.Out, status.Table(rep, colour)); err != nil {
			return err
		}
		if rep.Stale > 0 {
			fmt.Fprintln(f.IO.ErrOut, "Hint: ccc takeover AGENT --as NEW hands a stale agent's work to a new one.")
		}
	}
	return nil
}

// collectStatus reads every agent's record and queued deliveries at f.Now()
// (records.Collect), as --json prints them.
func collectStatus(ctx context.Context, f *Factory, root string) (StatusReport, error) {
	st, err := records.Collect(ctx, root, f.Now(), f.settings())
	if err != nil {
		return StatusReport{}, err
	}
	return status.FromRecords(st), nil
}

// statusWatch redraws the table every interval until ctx ends: in place
// on a terminal (ui.Redraw), so the table never blanks between frames;
// otherwise each frame is printed after the last.
func statusWatch(ctx context.Context, f *Factory, root string, opts *StatusOptions, tty bool,
	wait func(context.Context, time.Duration) error) error {
	colour := tty && !f.env().NoColor
	if tty {
		fmt.Fprint(f.IO.Out, "\x1b[?25l\x1b[H\x1b[2J") // hide the cursor, start on a clean screen
		defer fmt.Fprint(f.IO.Out, "\x1b[?25h")
	}
	for {
		now := f.Now()
		rep, err := collectStatus(ctx, f, root)
		frame := status.Frame(now, opts.Interval, rep, err, colour)
		if tty {
			fmt.Fprint(f.IO.Out, ui.Redraw(frame))
		} else if _, err := io.WriteString(f.IO.Out, frame+"\n"); err != nil {
			return err
		}
		if err := wait(ctx, opts.Interval); err != nil {
			return nil // interrupted: the normal way to stop watching
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// statusAll is `ccc status --all`: every agent on every machine
// (machines.Collect), printed as the flags ask.
func statusAll(ctx context.Context, f *Factory, root string, opts *StatusOptions) error {
	th := records.ThresholdsOf(f.settings().Project(root).Prefs.Agents)
	rep, err := machines.Collect(ctx, root, f.handoffRemote(root, opts.Remote), true, f.self(), f.Now(), th)
	if err != nil {
		return err
	}
	output := opts.Output
	if cwd, _ := f.Getwd(); output != "" && !filepath.IsAbs(output) {
		output = filepath.Join(cwd, output)
	}
	if err := machines.ShowReport(f.IO.Out, f.IO.ErrOut, rep, opts.JSON, opts.Markdown, output); err != nil {
		return err
	}
	if rep.Stale > 0 {
		return &exitError{code: ExitStale}
	}
	return nil
}
