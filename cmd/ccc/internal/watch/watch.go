// Package watch is the sync worker behind `ccc sync --watch`: it watches
// .ccc-progress.md, turns a burst of writes into one automated checkpoint,
// and retries the queued tracker updates that are due.
package watch

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state/outbox"
)

// Options are what the worker needs from its command.
type Options struct {
	Root string
	// Debounce is the quiet time that ends a burst of writes (the command
	// resolves --debounce over the preference sync.debounce).
	Debounce time.Duration
	// RetryEvery is how often the worker looks for due queued deliveries.
	RetryEvery time.Duration
	// NewCheckpoint prepares one automated checkpoint, deadline included.
	NewCheckpoint func() (*checkpoint.Context, error)
	// NewSink builds the sink a queued entry names, for cp's project.
	NewSink func(cp *checkpoint.Context, name string) (sinks.Sink, error)
	// Now dates the checkpoint lines.
	Now func() time.Time
	// Show reports what happened; Busy reports work that has started
	// (on a terminal only); Warn reports queued entries set aside.
	Show, Busy func(format string, args ...any)
	Warn       func(error)
	// Publish, when set, publishes the checkpoint branch at each retry
	// round (it keeps its own backoff) and says what it did, "" for
	// nothing.
	Publish func(ctx context.Context, now time.Time) string
}

// Run is the sync worker. It returns nil when ctx ends or SIGINT or
// SIGTERM arrive, after the work in flight and one last checkpoint of the
// writes still inside their quiet time.
func Run(ctx context.Context, opts Options) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Once the first signal is in, the next one gets the default action:
	// a person who presses Ctrl-C twice does not wait for a hung tracker.
	context.AfterFunc(ctx, stop)
	root := opts.Root
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
	// The content as of the last checkpoint, read before the worker says
	// it watches: an edit made as soon as it says so is one to checkpoint.
	path := filepath.Join(root, progress.FileName)
	last := fileHash(path)
	opts.Show("watching %s (debounce %s)", progress.FileName, opts.Debounce)
	checkpointNow := func(ctx context.Context, what string) {
		opts.Busy("%s…", what)
		opts.Show("%s", opts.runCheckpoint(ctx))
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
			opts.Show("stopped")
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
				opts.Show("watch error: %v", err)
			}
		case <-debounce.C:
			if h := fileHash(path); h == last || h == "" {
				continue // ccc's own write, or the file is gone
			}
			checkpointNow(work, "checkpointing")
		case <-retry.C:
			opts.retry(ctx, work)
			if opts.Publish != nil && ctx.Err() == nil {
				if line := opts.Publish(work, opts.Now()); line != "" {
					opts.Show("%s", line)
				}
			}
		}
	}
}

// retry delivers the queued updates that are due. After a signal (ctx
// done) the entry in flight finishes; the rest wait for the next run.
func (opts Options) retry(ctx, work context.Context) {
	cp, err := opts.NewCheckpoint()
	if err != nil {
		opts.Show("outbox: %v", err)
		return
	}
	if err := cp.LoadProgress(); err != nil {
		opts.Show("outbox: %v", err)
	}
	d, _ := checkpoint.Drain(work, cp, checkpoint.DrainOptions{
		DueOnly: true,
		Before: func(e outbox.Entry) bool {
			if ctx.Err() != nil {
				return false
			}
			opts.Busy("delivering the queued update for %s %s (agent %s)…", e.Sink, e.Target, e.Agent)
			return true
		},
		NewSink: func(name string) (sinks.Sink, error) { return opts.NewSink(cp, name) },
		Warn:    opts.Warn,
	})
	for _, r := range d.Entries {
		opts.Show("%s", r.Line())
	}
	if len(d.Entries) > 0 {
		opts.Show("outbox: %d queued", d.Remaining)
	}
}

// runCheckpoint runs the automated profile and sums it up in one line.
func (opts Options) runCheckpoint(ctx context.Context) string {
	cp, err := opts.NewCheckpoint()
	if err != nil {
		return "checkpoint: " + err.Error()
	}
	r := checkpoint.Run(ctx, cp, checkpoint.Automated.Steps(cp))
	lines := r.Lines()
	return "checkpoint " + opts.Now().Format("15:04:05") + ": " + strings.Join(lines, " ")
}

func fileHash(path string) string {
	data, err := projectfs.ReadProjectFile(filepath.Dir(path), path, progress.MaxSize)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return string(sum[:])
}
