package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
)

var testNow = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

// worker runs Run on a scratch project with no trackers, its lines on a
// channel; stop cancels it and waits for its return.
type worker struct {
	root  string
	lines chan string
	stop  func() error
}

func start(t *testing.T, retryEvery time.Duration, newCP func(root string) (*checkpoint.Context, error)) *worker {
	t.Helper()
	w := &worker{root: t.TempDir(), lines: make(chan string, 100)}
	require.NoError(t, os.WriteFile(filepath.Join(w.root, progress.FileName), []byte("# Progress\n\n## Current Task\n\nstart\n"), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	show := func(format string, args ...any) { w.lines <- fmt.Sprintf(format, args...) }
	go func() {
		done <- Run(ctx, Options{
			Root:          w.root,
			Debounce:      50 * time.Millisecond,
			RetryEvery:    retryEvery,
			NewCheckpoint: func() (*checkpoint.Context, error) { return newCP(w.root) },
			NewSink: func(*checkpoint.Context, string) (sinks.Sink, error) {
				return nil, errors.New("no sinks here")
			},
			Now:  func() time.Time { return testNow },
			Show: show,
			Busy: func(string, ...any) {},
			Warn: func(error) {},
		})
	}()
	w.stop = func() error { cancel(); return <-done }
	t.Cleanup(func() { cancel() })
	w.expect(t, "watching "+progress.FileName)
	return w
}

// expect waits for the next line that starts with prefix.
func (w *worker) expect(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	var seen []string
	for {
		select {
		case l := <-w.lines:
			if strings.HasPrefix(l, prefix) {
				return l
			}
			seen = append(seen, l)
		case <-timeout:
			t.Fatalf("no line starting %q; saw %q", prefix, seen)
		}
	}
}

func plain(root string) (*checkpoint.Context, error) {
	return &checkpoint.Context{Root: root, Now: testNow, Profile: checkpoint.Automated, Tracker: checkpoint.TrackerOptions{Skip: true}}, nil
}

// TestBurstIsOneCheckpoint: writes inside the quiet time make one
// checkpoint, dated by Now, and the checkpoint's own write none.
func TestBurstIsOneCheckpoint(t *testing.T) {
	t.Parallel()
	calls := 0
	w := start(t, time.Hour, func(root string) (*checkpoint.Context, error) { calls++; return plain(root) })
	path := filepath.Join(w.root, progress.FileName)
	for i := range 3 {
		require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf("# Progress\n\n## Current Task\n\nstep %d\n", i)), 0o644))
	}
	assert.Contains(t, w.expect(t, "checkpoint "), "checkpoint 13:45:00: ")
	require.NoError(t, w.stop())
	assert.Equal(t, "stopped", w.expect(t, "stopped"))
	assert.Equal(t, 1, calls, "one checkpoint for the burst, none for its own write")
}

// TestStopCheckpointsTheLastWrites: a write still inside its quiet time is
// checkpointed when the worker stops, not dropped.
func TestStopCheckpointsTheLastWrites(t *testing.T) {
	t.Parallel()
	w := start(t, time.Hour, func(root string) (*checkpoint.Context, error) {
		return nil, errors.New("project unreadable")
	})
	require.NoError(t, os.WriteFile(filepath.Join(w.root, progress.FileName), []byte("# Progress\n\nedited\n"), 0o644))
	require.NoError(t, w.stop())
	assert.Equal(t, "checkpoint: project unreadable", w.expect(t, "checkpoint"))
}

// TestRetryReportsOnlyWork: a retry round over an empty outbox says
// nothing; one that cannot prepare its checkpoint says why.
func TestRetryReportsOnlyWork(t *testing.T) {
	t.Parallel()
	rounds := make(chan struct{}, 10)
	w := start(t, 20*time.Millisecond, func(root string) (*checkpoint.Context, error) {
		rounds <- struct{}{}
		if len(rounds) > 1 {
			return nil, errors.New("gone")
		}
		return plain(root)
	})
	assert.Equal(t, "outbox: gone", w.expect(t, "outbox"), "the first round, empty, said nothing")
	require.NoError(t, w.stop())
}

func TestFileHash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, progress.FileName)
	assert.Empty(t, fileHash(path), "no file")
	require.NoError(t, os.WriteFile(path, []byte("a"), 0o644))
	a := fileHash(path)
	require.NoError(t, os.WriteFile(path, []byte("b"), 0o644))
	assert.NotEqual(t, a, fileHash(path))
	assert.NotEmpty(t, a)
}
