package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state/outbox"
)

func TestSyncFlags(t *testing.T) {
	t.Parallel()
	const retry = 15 * time.Second
	for _, tt := range []struct {
		args []string
		want *SyncOptions
		err  string
	}{
		{[]string{"sync"}, &SyncOptions{Timeout: 30 * time.Second, RetryEvery: retry}, ""},
		{[]string{"sync", "--json", "--timeout", "5s"}, &SyncOptions{JSON: true, Timeout: 5 * time.Second, RetryEvery: retry}, ""},
		// The worker's checkpoints are automated ones: without --timeout
		// they take the preference's deadline, with it the flag's.
		{[]string{"sync", "--watch"}, &SyncOptions{Watch: true, RetryEvery: retry}, ""},
		{[]string{"sync", "--watch", "--timeout", "3s", "--debounce", "1s", "--retry-every", "2s"},
			&SyncOptions{Watch: true, Timeout: 3 * time.Second, Debounce: time.Second, RetryEvery: 2 * time.Second}, ""},
		{[]string{"sync", "--watch", "--retry-every", "0"}, nil, "--retry-every must be longer than zero"},
		{[]string{"sync", "--watch", "--retry-every", "-1s"}, nil, `"-1s" is not a duration`},
		{[]string{"sync", "--watch", "--debounce", "-1s"}, nil, `"-1s" is not a duration`},
		{[]string{"sync", "--watch", "--debounce", "0s"}, nil, "--debounce must be longer than zero"},
		{[]string{"sync", "--watch", "--json"}, nil, "--json does not combine with --watch"},
		{[]string{"sync", "--timeout", "-1s"}, nil, `"-1s" is not a duration`},
		{[]string{"sync", "--watch", "--timeout", "-1s"}, nil, `"-1s" is not a duration`},
		{[]string{"sync", "--debounce", "1s"}, nil, "--debounce needs --watch"},
		{[]string{"sync", "--retry-every", "1s"}, nil, "--retry-every needs --watch"},
		// Every duration flag takes what .ccc-preferences.yaml takes.
		{[]string{"sync", "--timeout", "5"}, &SyncOptions{Timeout: 5 * time.Second, RetryEvery: retry}, ""},
		{[]string{"sync", "--watch", "--timeout", "1d", "--debounce", "0.5", "--retry-every", "1m30s"},
			&SyncOptions{Watch: true, Timeout: 24 * time.Hour, Debounce: 500 * time.Millisecond, RetryEvery: 90 * time.Second}, ""},
		{[]string{"sync", "--timeout", "soon"}, nil, `"soon" is not a duration (write e.g. 45 for seconds, 90s, 30m, 12h or 7d)`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) { checkParsed(t, NewCmdSync, tt.args, tt.want, tt.err) })
	}
}

// worker is the sync worker run in-process, so that a test can give it a
// terminal and stop it without a signal.
type worker struct {
	out    *syncBuffer
	cancel context.CancelFunc
	done   chan error
}

// newWorkerProject makes a project tracking CIA-30 on a fresh fake Linear,
// with a progress file written by a checkpoint that skipped the tracker,
// and the environment ccc sees in it.
func newWorkerProject(t *testing.T, extra ...string) (string, *linearfake.Server, map[string]string) {
	t.Helper()
	srv := linearfake.New()
	t.Cleanup(srv.Close)
	srv.AddIssue("CIA-30", "Watch")
	root := t.TempDir()
	env := map[string]string{"CCC_PROJECT_ROOT": root, "LINEAR_API_URL": srv.URL, "LINEAR_API_KEY": linearfake.APIKey,
		"NO_COLOR": "1", "CCC_NOW": "2026-11-21T13:45:00Z", "CCC_CONFIG_DIR": t.TempDir()}
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	var out bytes.Buffer
	code := run([]string{"checkpoint", "--issue", "CIA-30", "--current", "start", "--skip-git", "--skip-linear"},
		inProcFactory(root, env, &out, false))
	require.Equal(t, 0, code, out.String())
	return root, srv, env
}

// signed signs e with the key of the user env describes, as ccc does
// before it queues an entry.
func signed(t *testing.T, env map[string]string, e outbox.Entry) outbox.Entry {
	t.Helper()
	key, err := config.UserKey(config.EnvOf(env))
	require.NoError(t, err)
	return e.Sign(key)
}

func inProcFactory(root string, env map[string]string, errOut io.Writer, tty bool) *Factory {
	getenv := func(k string) string { return env[k] }
	return &Factory{
		IO:     IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: errOut, ErrTTY: tty},
		Getenv: getenv, Getwd: func() (string, error) { return root, nil }, Now: clock(config.ReadEnv(getenv)),
		HTTPClient: http.DefaultClient,
	}
}

func startWorker(t *testing.T, root string, env map[string]string, tty bool, opts SyncOptions) *worker {
	t.Helper()
	w := &worker{out: &syncBuffer{}, done: make(chan error, 1)}
	var ctx context.Context
	ctx, w.cancel = context.WithCancel(context.Background())
	f := inProcFactory(root, env, w.out, tty)
	go func() { w.done <- watchRun(ctx, f, &opts) }()
	t.Cleanup(func() { w.cancel(); <-w.done })
	waitFor(t, func() bool { return strings.Contains(w.out.String(), "watching "+progress.FileName) }, "the worker starts")
	return w
}

// stop plays the signal: the worker's context ends.
func (w *worker) stop(t *testing.T) {
	t.Helper()
	w.cancel()
	select {
	case err := <-w.done:
		w.done <- err // for the cleanup
		require.NoError(t, err)
	case <-time.After(15 * time.Second):
		t.Fatal("the worker did not stop")
	}
}

// editProgress changes the current task, as an agent editing the file does.
func editProgress(t *testing.T, root, current string) {
	t.Helper()
	path := filepath.Join(root, progress.FileName)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	doc, err := progress.Parse(data)
	require.NoError(t, err)
	require.NotNil(t, doc.Current)
	edited := strings.Replace(string(data), doc.Current.Text, current, 1)
	require.NotEqual(t, string(data), edited)
	require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))
}

func outboxFiles(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, projectfs.Dir, outbox.Dir))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}

// TestSyncWatchFlushesOnStop: a write still inside its quiet time when the
// worker is stopped gets one last checkpoint; with nothing new, stopping
// sends nothing.
func TestSyncWatchFlushesOnStop(t *testing.T) {
	t.Parallel()
	root, srv, env := newWorkerProject(t)
	w := startWorker(t, root, env, false, SyncOptions{Debounce: time.Hour, RetryEvery: time.Hour})
	editProgress(t, root, "edited just before Ctrl-C")
	w.stop(t)

	out := w.out.String()
	require.Len(t, srv.Comments("CIA-30"), 1, out)
	assert.Contains(t, srv.Comments("CIA-30")[0].Body, "edited just before Ctrl-C")
	assert.Regexp(t, `ccc sync: checkpoint \S+: .*Linear update: created comment on CIA-30 .*\nccc sync: stopped\n$`, out)

	requests := srv.RequestCount()
	w = startWorker(t, root, env, false, SyncOptions{Debounce: time.Hour, RetryEvery: time.Hour})
	w.stop(t)
	assert.Equal(t, requests, srv.RequestCount(), "nothing changed: nothing sent")
	assert.NotContains(t, w.out.String(), "checkpoint ")
}

// TestSyncWatchRetriesOutbox: the worker delivers a queued update once it is
// due, and on a terminal says what it is delivering while it does.
func TestSyncWatchRetriesOutbox(t *testing.T) {
	t.Parallel()
	root, srv, env := newWorkerProject(t, "COLUMNS=200")
	delete(env, "CCC_NOW") // the entry below is due by the wall clock
	failed := time.Now().Add(-time.Hour)
	_, err := outbox.Queue(root, signed(t, env, outbox.Entry{Sink: "linear", Target: "CIA-30", Agent: "main", Body: "**Task:** the queued status",
		RenderedAt: failed}), "HTTP 503", failed)
	require.NoError(t, err)

	w := startWorker(t, root, env, true, SyncOptions{Debounce: time.Hour, RetryEvery: 50 * time.Millisecond})
	waitFor(t, func() bool { return strings.Contains(w.out.String(), "outbox: 0 queued") }, "the worker drains the outbox")
	w.stop(t)

	require.Len(t, srv.Comments("CIA-30"), 1)
	assert.Contains(t, srv.Comments("CIA-30")[0].Body, "the queued status")
	assert.Empty(t, outboxFiles(t, root))
	out := w.out.String()
	busy := strings.Index(out, "delivering the queued update for linear CIA-30 (agent main)…")
	done := strings.Index(out, "✓ Linear CIA-30 (agent main): delivered — created comment on CIA-30 ")
	require.GreaterOrEqual(t, busy, 0, out)
	assert.Greater(t, done, busy, "the delivery is announced, then its result replaces it:\n%q", out)
}

// TestSyncWatchStopsBetweenQueuedEntries: stopped while it delivers the
// first of two due entries, the worker finishes that one and leaves the
// other queued for the next run.
func TestSyncWatchStopsBetweenQueuedEntries(t *testing.T) {
	t.Parallel()
	root, srv, env := newWorkerProject(t)
	delete(env, "CCC_NOW")
	failed := time.Now().Add(-time.Hour)
	for i, agent := range []string{"first", "second"} {
		at := failed.Add(time.Duration(i) * time.Minute) // the outbox is read oldest first
		_, err := outbox.Queue(root, signed(t, env, outbox.Entry{Sink: "linear", Target: "CIA-30", Agent: agent, Body: "status of " + agent, RenderedAt: at}),
			"HTTP 503", at)
		require.NoError(t, err)
	}
	srv.Inject(linearfake.Slow(500 * time.Millisecond))

	w := startWorker(t, root, env, false, SyncOptions{Debounce: time.Hour, RetryEvery: 50 * time.Millisecond})
	waitFor(t, func() bool { return srv.RequestCount() > 0 }, "the first delivery starts")
	w.stop(t)

	require.Len(t, srv.Comments("CIA-30"), 1, w.out.String())
	assert.Contains(t, srv.Comments("CIA-30")[0].Body, "status of first")
	assert.Contains(t, w.out.String(), "ccc sync: ✓ Linear CIA-30 (agent first): delivered")
	assert.Contains(t, w.out.String(), "ccc sync: outbox: 1 queued")
	require.Len(t, outboxFiles(t, root), 1)
	assert.Contains(t, outboxFiles(t, root)[0], "-second-")
}

// TestSyncWatchTimeout: --timeout bounds each retry round and each
// checkpoint of the worker (the preference's 10s would outlast this test).
func TestSyncWatchTimeout(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits out two 1s deadlines")
	}
	root, srv, env := newWorkerProject(t)
	delete(env, "CCC_NOW")
	failed := time.Now().Add(-time.Hour)
	_, err := outbox.Queue(root, signed(t, env, outbox.Entry{Sink: "linear", Target: "CIA-30", Agent: "main", Body: "queued", RenderedAt: failed}),
		"HTTP 503", failed)
	require.NoError(t, err)
	srv.Inject(linearfake.Repeat(20, linearfake.Slow(time.Minute))...)

	w := startWorker(t, root, env, false, SyncOptions{Timeout: time.Second, Debounce: 50 * time.Millisecond, RetryEvery: 50 * time.Millisecond})
	waitFor(t, func() bool {
		return strings.Contains(w.out.String(), "X Linear CIA-30 (agent main): still queued — timeout after 1s (attempt 2)")
	}, "the retry round times out after 1s")
	editProgress(t, root, "slow tracker")
	waitFor(t, func() bool { return strings.Contains(w.out.String(), "ccc sync: checkpoint ") }, "the checkpoint ends")
	w.stop(t)

	assert.Regexp(t, `ccc sync: checkpoint \S+: .*Failed: Linear update \(timeout after 1s\) — queued for retry \(ccc sync\)\.`, w.out.String())
	assert.Len(t, outboxFiles(t, root), 1)
	assert.Empty(t, srv.Comments("CIA-30"))
}

// TestSyncWatchLiveLine drives the worker on a terminal 60 columns wide: it
// announces the checkpoint while it runs, and no line it draws is wider
// than the terminal, however long the report.
func TestSyncWatchLiveLine(t *testing.T) {
	t.Parallel()
	const width = 60
	root, srv, env := newWorkerProject(t, "COLUMNS=60")
	w := startWorker(t, root, env, true, SyncOptions{Debounce: 50 * time.Millisecond, RetryEvery: time.Hour})
	editProgress(t, root, "a current task with a description long enough to wrap any terminal narrower than two hundred columns")
	waitFor(t, func() bool { return len(srv.Comments("CIA-30")) == 1 }, "the checkpoint delivers")
	waitFor(t, func() bool { return strings.Count(w.out.String(), "\r\x1b[K") >= 3 }, "the result is shown")
	w.stop(t)

	rows := strings.Split(w.out.String(), "\r\x1b[K")
	require.Equal(t, "", rows[0], "every row starts by clearing the line")
	rows = rows[1:]
	var msgs []string
	for _, row := range rows {
		row = strings.TrimSuffix(row, "\n")
		assert.Less(t, utf8.RuneCountInString(row), width, "row %q", row)
		assert.NotContains(t, row, "\n", "one row each")
		_, msg, _ := strings.Cut(row, " ") // after the time
		msgs = append(msgs, msg)
	}
	require.Len(t, msgs, 4, "%q", rows)
	assert.Equal(t, "watching .ccc-progress.md (debounce 50ms)", msgs[0])
	assert.Equal(t, "checkpointing…", msgs[1])
	assert.Regexp(t, `^checkpoint 13:45:00: .*…$`, msgs[2], "the long report is clipped")
	assert.Equal(t, "stopped", msgs[3])
	assert.True(t, strings.HasSuffix(w.out.String(), "stopped\n"), "the last line is left in place")
}
