package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks/linear/linearfake"
)

// syncBuffer is a bytes.Buffer safe to read while a process writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSyncWatch runs the sync worker as a real process: a burst of writes to
// the progress file becomes one checkpoint (one comment, one create), its own
// write does not trigger another, and SIGTERM ends it with status 0.
func TestSyncWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process and waits for debounces")
	}
	srv := linearfake.New()
	defer srv.Close()
	srv.AddIssue("CIA-30", "Watch")
	root := t.TempDir()
	env := append(os.Environ(), "CCC_PROJECT_ROOT="+root, "LINEAR_API_URL="+srv.URL, "LINEAR_API_KEY="+linearfake.APIKey,
		"CCC_SINKS=", "NO_COLOR=1", "GITHUB_ACTIONS=")
	seed := exec.Command("ccc", "checkpoint", "--issue", "CIA-30", "--current", "start", "--skip-git", "--skip-linear")
	seed.Env = env
	out, err := seed.CombinedOutput()
	require.NoError(t, err, string(out))

	var stderr syncBuffer
	cmd := exec.Command("ccc", "sync", "--watch", "--debounce", "500ms", "--retry-every", "1h")
	cmd.Env = env
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	waitFor(t, func() bool { return strings.Contains(stderr.String(), "watching .ccc-progress.md") }, "the worker starts")

	path := filepath.Join(root, progress.FileName)
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	for i := range 5 { // the agent writes in a burst
		edited := strings.Replace(string(orig), "- start", "- start, step "+string(rune('1'+i)), 1)
		require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))
		time.Sleep(20 * time.Millisecond)
	}
	waitFor(t, func() bool { return len(srv.Comments("CIA-30")) == 1 }, "one checkpoint posts the comment")
	time.Sleep(1500 * time.Millisecond) // three debounce periods: nothing more may happen
	assert.Equal(t, 1, strings.Count(stderr.String(), "ccc sync: checkpoint "), stderr.String())
	assert.Contains(t, srv.Comments("CIA-30")[0].Body, "start, step 5", "the last write of the burst was reported")

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		assert.NoError(t, err, "SIGTERM ends the worker with status 0")
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the worker did not stop on SIGTERM")
	}
	assert.Contains(t, stderr.String(), "ccc sync: stopped")
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
