package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/internal/watch"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/all"
	"github.com/ccc-checkpoint/ccc/state"
)

// ExitQueued is ccc sync's status when deliveries remain queued.
const ExitQueued = 75

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
80 columns), plain lines otherwise; --json does not apply.` + exitStatusHelp(
			"0  the outbox is empty (--watch: stopped by a signal)",
			"75 deliveries remain queued",
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
	cp, err := f.newCheckpoint(root, checkpoint.Automated, "", opts.Timeout, TrackerFlags{})
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
	if d.Remaining > 0 {
		return &exitError{code: ExitQueued}
	}
	if d.SetAside {
		// Said in the warning above; the status tells a script that
		// something queued was not delivered.
		return &exitError{code: 1}
	}
	return nil
}

// drainOptions redelivers every queued entry of cp's project, with the
// sinks built as a checkpoint builds them; entries set aside are warned
// about on stderr.
func (f *Factory) drainOptions(cp *checkpoint.Checkpoint) checkpoint.DrainOptions {
	return checkpoint.DrainOptions{
		NewSink: func(name string) (sinks.Sink, error) { return f.newSink(cp, name) },
		Warn:    f.warnOutbox,
	}
}

func (f *Factory) warnOutbox(err error) { fmt.Fprintf(f.IO.ErrOut, "Warning: %v\n", err) }

// newSink builds the sink a queued entry names, for cp's project.
func (f *Factory) newSink(cp *checkpoint.Checkpoint, name string) (sinks.Sink, error) {
	env, _ := f.sinkEnv(cp.Root, cp.Prefs, name) // checkpoints warn about bad preferences
	return all.Registry().New(name, env)
}

func printSync(io IOStreams, asJSON bool, d checkpoint.Drained) error {
	results, remaining := d.Entries, d.Remaining
	if asJSON {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if results == nil {
			results = []SyncEntry{}
		}
		return enc.Encode(struct {
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
		fmt.Fprintf(io.ErrOut, "%d queued update(s) remain in %s.\n", remaining, filepath.Join(state.Dir, state.OutboxDir))
	}
	return nil
}

// watchRun is the sync worker (internal/watch), reporting on a live line.
func watchRun(ctx context.Context, f *Factory, opts *SyncOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	line := newLiveLine(f.IO, func() int { return termWidth(f.IO.ErrOut, f.Getenv) })
	shown := false // the worker started: the live line ends with it
	show := func(format string, args ...any) { shown = true; line.show(format, args...) }
	defer func() {
		if shown {
			line.end()
		}
	}()
	newCheckpoint := func() (*checkpoint.Checkpoint, error) {
		return f.newCheckpoint(root, checkpoint.Automated, "", opts.Timeout, TrackerFlags{})
	}
	return watch.Run(ctx, watch.Options{
		Root:          root,
		Debounce:      opts.Debounce,
		RetryEvery:    opts.RetryEvery,
		NewCheckpoint: newCheckpoint,
		NewSink:       f.newSink,
		Now:           f.Now,
		Show:          show,
		Busy:          line.busy,
		Warn:          f.warnOutbox,
	})
}

// liveLine shows the worker's latest news: rewritten in place on a
// terminal, one plain line each otherwise.
type liveLine struct {
	io  IOStreams
	tty bool
	// width is the terminal's, asked at every draw so that a resized
	// window is followed: a line longer than that would wrap, and
	// "\r\x1b[K" clears only the last row of it.
	width func() int
	now   func() time.Time
}

func newLiveLine(io IOStreams, width func() int) *liveLine {
	return &liveLine{io: io, tty: io.ErrTTY, width: width, now: time.Now}
}

// termWidth is the width of the terminal w writes to (the live line's
// stderr), else $COLUMNS (shells set it for the programs they run when
// asked to), else 80: a guess that is too wide is what leaves debris.
func termWidth(w io.Writer, getenv func(string) string) int {
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	return 80
}

// show reports something that happened.
func (l *liveLine) show(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if l.tty {
		l.draw(msg)
		return
	}
	fmt.Fprintf(l.io.ErrOut, "ccc sync: %s\n", msg)
}

// busy reports work that has started, on a terminal only: the result that
// follows replaces it there, and in a log it would only double the lines.
func (l *liveLine) busy(format string, args ...any) {
	if l.tty {
		l.draw(fmt.Sprintf(format, args...))
	}
}

func (l *liveLine) draw(msg string) {
	stamp := l.now().Format("15:04:05") + " "
	// The last column stays free: a line that fills it leaves the cursor
	// on the next row on some terminals.
	fmt.Fprintf(l.io.ErrOut, "\r\x1b[K%s%s", stamp, clipLine(msg, l.width()-1-len(stamp)))
}

// clipLine makes msg one row of at most width characters: line breaks and
// tabs become spaces, and a longer message ends in "…".
func clipLine(msg string, width int) string {
	msg = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, msg)
	width = max(width, 1)
	if utf8.RuneCountInString(msg) <= width {
		return msg
	}
	runes := []rune(msg)
	return string(runes[:width-1]) + "…"
}

func (l *liveLine) end() {
	if l.tty {
		fmt.Fprintln(l.io.ErrOut)
	}
}
