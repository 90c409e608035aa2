package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fsnotify/fsnotify"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/all"
	"github.com/ccc-checkpoint/ccc/state/outbox"
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
type SyncEntry struct {
	checkpoint.SinkResult
	Agent    string `json:"agent"`
	Attempts int    `json:"attempts"`
}

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
	results, remaining, aside, err := drainAll(ctx, f, cp, false, nil)
	if err != nil {
		return err
	}
	if opts.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		if results == nil {
			results = []SyncEntry{}
		}
		if err := enc.Encode(struct {
			Entries   []SyncEntry `json:"entries"`
			Remaining int         `json:"remaining"`
		}{results, remaining}); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			fmt.Fprintln(f.IO.ErrOut, syncLine(r))
		}
		switch {
		case len(results) == 0 && remaining == 0:
			fmt.Fprintln(f.IO.ErrOut, "Outbox empty: nothing to deliver.")
		case remaining == 0:
			fmt.Fprintf(f.IO.ErrOut, "Outbox empty: %d queued update(s) delivered.\n", len(results))
		default:
			fmt.Fprintf(f.IO.ErrOut, "%d queued update(s) remain in %s.\n", remaining, filepath.Join(projectfs.Dir, outbox.Dir))
		}
	}
	if remaining > 0 {
		return &exitError{code: ExitQueued}
	}
	if aside {
		// Said in the warning above; the status tells a script that
		// something queued was not delivered.
		return &exitError{code: 1}
	}
	return nil
}

// drainAll retries queued deliveries within cp's deadline: every entry, or
// with dueOnly those whose backoff has passed. before, when not nil, is
// called before each delivery; false stops the round there. It returns what
// it did, how many entries remain, and whether some were set aside (not
// signed by this user's ccc, misnamed, unreadable: said in a warning).
func drainAll(ctx context.Context, f *Factory, cp *checkpoint.Checkpoint, dueOnly bool, before func(outbox.Entry) bool) ([]SyncEntry, int, bool, error) {
	entries, err := outbox.Trusted(cp.Root, cp.Key, cp.Now)
	aside := err != nil
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "Warning: %v\n", err)
	}
	if cp.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = sinks.WithTimeout(ctx, cp.Timeout)
		defer cancel()
	}
	reg := all.Registry()
	var results []SyncEntry
	for _, e := range entries {
		if dueOnly && e.NextAttempt.After(cp.Now) {
			continue
		}
		if before != nil && !before(e) {
			break
		}
		env, _ := f.sinkEnv(cp.Root, cp.Prefs, e.Sink) // checkpoints warn about bad preferences
		s, err := reg.New(e.Sink, env)
		if err != nil {
			results = append(results, SyncEntry{SinkResult: checkpoint.SinkResult{Sink: e.Sink, Title: e.Sink, Target: e.Target,
				Action: sinks.Skipped, Error: err.Error()}, Agent: e.Agent, Attempts: e.Attempts})
			continue
		}
		r := cp.Redeliver(ctx, s, e)
		attempts := e.Attempts
		if r.Action == sinks.Failed {
			attempts++
		}
		results = append(results, SyncEntry{SinkResult: r, Agent: e.Agent, Attempts: attempts})
	}
	left, err := outbox.List(cp.Root, cp.Now)
	return results, len(left), aside, err
}

func syncLine(r SyncEntry) string {
	what := fmt.Sprintf("%s %s (agent %s)", r.Title, r.Target, r.Agent)
	switch r.Action {
	case sinks.Created, sinks.Updated:
		return strings.TrimSpace(fmt.Sprintf("✓ %s: delivered — %s %s", what, r.Wrote, r.URL))
	case sinks.Unchanged:
		return fmt.Sprintf("✓ %s: already up to date", what)
	case sinks.Skipped:
		return fmt.Sprintf("! %s: still queued — %s", what, r.Error)
	default:
		return fmt.Sprintf("X %s: still queued — %s (attempt %d)", what, r.Error, r.Attempts)
	}
}

// watchRun is the sync worker.
func watchRun(ctx context.Context, f *Factory, opts *SyncOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Once the first signal is in, the next one gets the default action:
	// a person who presses Ctrl-C twice does not wait for a hung tracker.
	context.AfterFunc(ctx, stop)
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	if opts.Debounce == 0 {
		prefs, _ := config.LoadPrefs(root)
		opts.Debounce = time.Duration(prefs.Sync.Debounce)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	// The directory, not the file: ccc and editors replace the file by
	// renaming over it, which a watch on the file itself would lose.
	if err := w.Add(root); err != nil {
		return fmt.Errorf("watch %s: %w", root, err)
	}
	line := newLiveLine(f.IO, func() int { return termWidth(f.IO.ErrOut, f.Getenv) })
	defer line.end()
	line.show("watching %s (debounce %s)", progress.FileName, opts.Debounce)

	path := filepath.Join(root, progress.FileName)
	last := fileHash(path) // the content as of the last checkpoint
	checkpointNow := func(ctx context.Context, what string) {
		line.busy("%s…", what)
		line.show("%s", watchCheckpoint(ctx, f, root, opts.Timeout))
		last = fileHash(path)
	}
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	retry := time.NewTicker(opts.RetryEvery)
	defer retry.Stop()
	// Work in flight finishes even after a signal; only waiting is cut short.
	work := context.WithoutCancel(ctx)
	for {
		select {
		case <-ctx.Done():
			// Writes still inside their quiet time (or made while the last
			// checkpoint ran) are not dropped: the person stopping the
			// worker right after an edit expects it on the tracker.
			if h := fileHash(path); h != last && h != "" {
				checkpointNow(work, "stopping: checkpointing the last writes")
			}
			line.show("stopped")
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if filepath.Base(ev.Name) == progress.FileName && ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename) != 0 {
				debounce.Reset(opts.Debounce)
			}
		case err, ok := <-w.Errors:
			if ok {
				line.show("watch error: %v", err)
			}
		case <-debounce.C:
			if h := fileHash(path); h == last || h == "" {
				continue // ccc's own write, or the file is gone
			}
			checkpointNow(work, "checkpointing")
		case <-retry.C:
			cp, err := f.newCheckpoint(root, checkpoint.Automated, "", opts.Timeout, TrackerFlags{})
			if err != nil {
				line.show("outbox: %v", err)
				continue
			}
			if err := cp.LoadProgress(); err != nil {
				line.show("outbox: %v", err)
			}
			// After a signal the entry in flight finishes; the rest wait
			// for the next run.
			results, remaining, _, _ := drainAll(work, f, cp, true, func(e outbox.Entry) bool {
				if ctx.Err() != nil {
					return false
				}
				line.busy("delivering the queued update for %s %s (agent %s)…", e.Sink, e.Target, e.Agent)
				return true
			})
			for _, r := range results {
				line.show("%s", syncLine(r))
			}
			if len(results) > 0 {
				line.show("outbox: %d queued", remaining)
			}
		}
	}
}

// watchCheckpoint runs the automated profile within timeout (0: the
// preference's) and sums it up in one line.
func watchCheckpoint(ctx context.Context, f *Factory, root string, timeout time.Duration) string {
	cp, err := f.newCheckpoint(root, checkpoint.Automated, "", timeout, TrackerFlags{})
	if err != nil {
		return "checkpoint: " + err.Error()
	}
	r := checkpoint.Run(ctx, cp, checkpoint.Automated.Steps(cp))
	lines := r.Lines()
	return "checkpoint " + f.Now().Format("15:04:05") + ": " + strings.Join(lines, " ")
}

func fileHash(path string) string {
	data, err := projectfs.ReadProjectFile(filepath.Dir(path), path, progress.MaxSize)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return string(sum[:])
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
