package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/machines"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/watch"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/all"
	"github.com/ccc-checkpoint/ccc/state/outbox"
)

// SyncOptions is `ccc sync` as parsed.
type SyncOptions struct {
	Dir  string
	JSON bool
	// Timeout is the deadline of one sync; with Watch, of each checkpoint
	// and each retry round (0: the preference checkpoint.automated_timeout).
	Timeout time.Duration
	Watch   bool
	// Debounce is the quiet time that ends a burst of writes (0: the
	// preference sync.debounce).
	Debounce time.Duration
	// RetryEvery is how often the watcher looks for due queued deliveries.
	RetryEvery time.Duration
}

// NewCmdSync builds `ccc sync`.
func NewCmdSync(f *Factory, dir *string, runF func(*SyncOptions) error) *cobra.Command {
	opts := &SyncOptions{}
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Deliver the queued tracker updates now, or keep watching (--watch)",
		Long: `A tracker update that fails (after its retries, or past its deadline) is
kept in .ccc/outbox/, one entry per sink, target and agent (a newer status
replaces an older one). Every later checkpoint, post or hook run first tries
the entries that are due. ccc sync delivers every entry now, without waiting
for its backoff, and reports on each.

With --watch it is the sync worker: it watches .ccc-progress.md, gathers a
burst of writes (--debounce, preference sync.debounce, default 2s) into one
automated checkpoint, and every --retry-every retries the queued updates
whose backoff has passed. --timeout is then the deadline of each checkpoint
and each retry round (default: preference checkpoint.automated_timeout,
10s). SIGINT or SIGTERM stop it: the delivery in flight finishes, writes
still inside their quiet time get one last checkpoint, then it exits 0 (a
second signal stops it at once). It shows what it does on stderr: a live
line on a terminal (clipped to the terminal's width, else $COLUMNS, else
80 columns), plain lines otherwise; --json does not apply.

With the checkpoint branch on (preference handoff.remote, or
CCC_HANDOFF_REMOTE), ccc sync also pushes the branch to that remote. A push
refused because another machine pushed first is fetched, merged by tree
(each agent's entry from the side that wrote it last) and pushed again; the
branch is never forced but to roll its epoch: when its history since the
last roll holds more than handoff.keep commits (1000) or is older than
handoff.keep_for (90d), ccc sync fetches, merges, replaces the history by
one commit holding every agent's latest entry, and pushes it with
--force-with-lease on the tip it fetched. The --watch worker pushes it at
each --retry-every round when it moved, backing off 30s doubling to 30m
after a failure.` + exitStatusHelp(
			"0  the outbox is empty (--watch: stopped by a signal)",
			"75 deliveries remain queued, or the checkpoint branch could not be pushed",
			"1  the project cannot be read, or a queued entry was set aside (unsigned, misnamed)",
			"2  usage error"),
		Example: `  ccc sync
  ccc sync --json
  ccc sync --watch --debounce 5s &`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Dir = *dir
			if err := checkSyncFlags(cmd.Flags(), opts); err != nil {
				return &usageError{err}
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.Watch {
				return watchRun(cmd.Context(), f, opts)
			}
			return syncRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	durationVar(fl, &opts.Timeout, "timeout", 30*time.Second, "deadline for all deliveries of one sync, retries included (with --watch: of each checkpoint and retry round; default the preference checkpoint.automated_timeout)")
	fl.BoolVar(&opts.Watch, "watch", false, "keep running: checkpoint when .ccc-progress.md changes and retry queued updates")
	durationVar(fl, &opts.Debounce, "debounce", 0, "with --watch: quiet time that ends a burst of writes (default: preference sync.debounce, 2s)")
	durationVar(fl, &opts.RetryEvery, "retry-every", 15*time.Second, "with --watch: how often to look for due queued updates")
	return cmd
}

// checkSyncFlags rejects the flag combinations the worker cannot honour, and
// under --watch leaves an unset --timeout to the preference, as the
// worker's checkpoints are the automated profile's.
func checkSyncFlags(fl *pflag.FlagSet, opts *SyncOptions) error {
	if opts.Timeout < 0 {
		return errors.New("--timeout must not be negative")
	}
	if !opts.Watch {
		for _, name := range []string{"debounce", "retry-every"} {
			if fl.Changed(name) {
				return fmt.Errorf("--%s needs --watch", name)
			}
		}
		return nil
	}
	switch {
	case opts.JSON:
		return errors.New("--json does not combine with --watch: the worker reports on stderr as it goes")
	case fl.Changed("debounce") && opts.Debounce <= 0:
		return errors.New("--debounce must be longer than zero")
	case opts.RetryEvery <= 0:
		return errors.New("--retry-every must be longer than zero")
	}
	if !fl.Changed("timeout") {
		opts.Timeout = 0
	}
	return nil
}

// SyncEntry is one queued delivery's outcome in `ccc sync --json`.
type SyncEntry = checkpoint.Redelivery

func syncRun(ctx context.Context, f *Factory, opts *SyncOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	cp, err := f.newCheckpoint(root, checkpoint.Automated, runFlags{Timeout: opts.Timeout})
	if err != nil {
		return err
	}
	if err := cp.LoadProgress(); err != nil {
		fmt.Fprintf(f.IO.ErrOut, "Warning: %v\n", err)
	}
	d, err := checkpoint.Drain(ctx, cp, f.drainOptions(cp))
	if err != nil {
		return err
	}
	if err := printSync(f.IO, opts.JSON, d); err != nil {
		return err
	}
	published := true
	if remote := cp.Handoff.Remote; remote != "" {
		published = machines.Publish(ctx, f.IO.ErrOut, root, remote, machines.Rule(f.settings().Project(root)), cp.Now)
	}
	if d.Remaining > 0 || !published {
		return &exitError{code: ExitQueued}
	}
	if d.SetAside {
		// Said in the warning above; the status tells a script that
		// something queued was not delivered.
		return &exitError{code: ExitFailed}
	}
	return nil
}

// drainOptions redelivers every queued entry of cp's project, with the
// sinks built as a checkpoint builds them; entries set aside are warned
// about on stderr.
func (f *Factory) drainOptions(cp *checkpoint.Context) checkpoint.DrainOptions {
	return checkpoint.DrainOptions{
		NewSink: func(name string) (sinks.Sink, error) { return f.newSink(cp, name) },
		Warn:    f.warnOutbox,
	}
}

func (f *Factory) warnOutbox(err error) { fmt.Fprintf(f.IO.ErrOut, "Warning: %v\n", err) }

// newSink builds the sink a queued entry names, for cp's project.
func (f *Factory) newSink(cp *checkpoint.Context, name string) (sinks.Sink, error) {
	prefs := f.settings().Project(cp.Root).Prefs
	env, _ := f.sinkEnv(cp.Root, prefs, name) // checkpoints warn about bad preferences
	return all.Registry().New(name, env)
}

func printSync(io IOStreams, asJSON bool, d checkpoint.Drained) error {
	results, remaining := d.Entries, d.Remaining
	if asJSON {
		if results == nil {
			results = []SyncEntry{}
		}
		return ui.JSON(io.Out, struct {
			Entries   []SyncEntry `json:"entries"`
			Remaining int         `json:"remaining"`
		}{results, remaining})
	}
	for _, r := range results {
		fmt.Fprintln(io.ErrOut, r.Line())
	}
	switch {
	case len(results) == 0 && remaining == 0:
		fmt.Fprintln(io.ErrOut, "Outbox empty: nothing to deliver.")
	case remaining == 0:
		fmt.Fprintf(io.ErrOut, "Outbox empty: %d queued update(s) delivered.\n", len(results))
	default:
		fmt.Fprintf(io.ErrOut, "%d queued update(s) remain in %s.\n", remaining, filepath.Join(projectfs.Dir, outbox.Dir))
	}
	return nil
}

// watchRun is the sync worker (cmd/ccc/internal/watch), reporting on a live line.
func watchRun(ctx context.Context, f *Factory, opts *SyncOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	line := ui.NewLiveLine(f.IO.ErrOut, f.IO.ErrTTY, "ccc sync: ", func() int { return ui.TermWidth(f.IO.ErrOut, f.env().Columns) })
	shown := false // the worker started: the live line ends with it
	show := func(format string, args ...any) { shown = true; line.Show(format, args...) }
	defer func() {
		if shown {
			line.End()
		}
	}()
	// The worker runs for hours: each checkpoint, and each redelivery,
	// reads the repository's preferences as they are then.
	rereading := func() *Factory { each, s := *f, f.settings().Reread(); each.cfg = &s; return &each }
	return watch.Run(ctx, watch.Options{
		Publish:    machines.WorkerPublish(root, f.settings().Project(root)),
		Root:       root,
		Debounce:   cmp.Or(opts.Debounce, time.Duration(f.settings().Project(root).Prefs.Sync.Debounce)),
		RetryEvery: opts.RetryEvery,
		NewCheckpoint: func() (*checkpoint.Context, error) {
			return rereading().newCheckpoint(root, checkpoint.Automated, runFlags{Timeout: opts.Timeout})
		},
		NewSink: func(cp *checkpoint.Context, name string) (sinks.Sink, error) { return rereading().newSink(cp, name) },
		Now:     f.Now,
		Show:    show,
		Busy:    line.Busy,
		Warn:    f.warnOutbox,
	})
}
