package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/progress"
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
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a process and waits for debounces")
	}
	srv, root, cmd, stderr := startWatch(t, "CIA-30", "500ms")

	path := filepath.Join(root, progress.FileName)
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	for i := range 5 { // the agent writes in a burst
		edited := strings.Replace(string(orig), "- start", "- start, step "+string(rune('1'+i)), 1)
		require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))
		time.Sleep(20 * time.Millisecond)
	}
	waitFor(t, func() bool { return len(srv.Comments("CIA-30")) == 1 }, "one checkpoint posts the comment")
	waitFor(t, func() bool { return strings.Contains(stderr.String(), "ccc sync: checkpoint ") }, "the worker reports the checkpoint")

	// Nothing more may happen, and no sleep proves that: on SIGTERM the
	// worker checkpoints whatever differs from its last checkpoint (the
	// test the debounce timer makes), so once it has stopped its stderr
	// holds every checkpoint it would ever have made.
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
	assert.Equal(t, 1, strings.Count(stderr.String(), "ccc sync: checkpoint "), stderr.String())
	assert.Contains(t, srv.Comments("CIA-30")[0].Body, "start, step 5", "the last write of the burst was reported")
	assert.Contains(t, stderr.String(), "ccc sync: stopped")
}

// TestSyncWatchSignals stops the worker with SIGINT and with SIGTERM while
// a delivery is in flight (Linear holds its first answer back): the
// delivery finishes, the worker exits 0, and no process it started is left.
func TestSyncWatchSignals(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts processes and waits for a slow tracker")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			srv := linearfake.New()
			defer srv.Close()
			srv.AddIssue("CIA-30", "Watch")
			root := t.TempDir()
			p := newCCCProc(root, "LINEAR_API_URL="+srv.URL, "LINEAR_API_KEY="+linearfake.APIKey)
			code, _, stderr := p.run(t, "checkpoint", "--issue", "CIA-30", "--current", "start", "--skip-git", "--skip-linear")
			require.Equal(t, 0, code, stderr)

			var out syncBuffer
			cmd := p.cmd("sync", "--watch", "--debounce", "50ms", "--retry-every", "1h", "--timeout", "20s")
			cmd.Stderr = &out
			// Its own process group: whatever it starts can be found
			// afterwards, even once orphaned.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			defer func() {
				select {
				case <-done:
				default:
					_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				}
			}()
			waitFor(t, func() bool { return strings.Contains(out.String(), "watching .ccc-progress.md") }, "the worker starts")
			require.NotEmpty(t, processGroup(t, cmd.Process.Pid), "the check below sees the worker itself")

			srv.Inject(linearfake.Slow(time.Second))
			editProgress(t, root, "stopped mid-delivery")
			waitFor(t, func() bool { return srv.RequestCount() > 0 }, "the delivery starts")
			require.NoError(t, cmd.Process.Signal(sig))
			select {
			case err := <-done:
				require.NoError(t, err, "%s ends the worker with status 0:\n%s", sig, out.String())
			case <-time.After(15 * time.Second):
				t.Fatalf("the worker did not stop on %s:\n%s", sig, out.String())
			}

			assert.Regexp(t, `ccc sync: checkpoint \S+: .*Linear update: created comment on CIA-30 \S+\s*\nccc sync: stopped\n$`, out.String(),
				"the delivery in flight finished before the worker stopped")
			require.Len(t, srv.Comments("CIA-30"), 1)
			assert.Contains(t, srv.Comments("CIA-30")[0].Body, "stopped mid-delivery")
			assert.Empty(t, outboxFiles(t, root), "nothing was left to retry")
			assert.Empty(t, processGroup(t, cmd.Process.Pid), "no process of the worker's is left")
		})
	}
}

// TestSyncWatchSecondSignal: after the first signal the worker waits for
// the delivery in flight; the next one stops it at once, whatever the
// tracker does.
func TestSyncWatchSecondSignal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts processes")
	}
	srv := linearfake.New()
	defer srv.Close()
	srv.AddIssue("CIA-30", "Watch")
	root := t.TempDir()
	p := newCCCProc(root, "LINEAR_API_URL="+srv.URL, "LINEAR_API_KEY="+linearfake.APIKey)
	code, _, stderr := p.run(t, "checkpoint", "--issue", "CIA-30", "--current", "start", "--skip-git", "--skip-linear")
	require.Equal(t, 0, code, stderr)

	var out syncBuffer
	cmd := p.cmd("sync", "--watch", "--debounce", "50ms", "--retry-every", "1h", "--timeout", "1m")
	cmd.Stderr = &out
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitFor(t, func() bool { return strings.Contains(out.String(), "watching .ccc-progress.md") }, "the worker starts")
	srv.Inject(linearfake.Slow(time.Hour))
	editProgress(t, root, "hung tracker")
	waitFor(t, func() bool { return srv.RequestCount() > 0 }, "the delivery starts")

	// The first signal is taken; the worker reacts to it in the
	// background, so signal until it is gone.
	give := time.After(10 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		select {
		case <-done:
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGINT, "stopped by the second SIGINT: %v\n%s", cmd.ProcessState, out.String())
			return
		case <-give:
			_ = cmd.Process.Kill()
			t.Fatalf("repeated SIGINTs did not stop the worker:\n%s", out.String())
		case <-tick.C:
		}
	}
}

// processGroup lists the processes (pid and command) in process group
// pgid, from /proc; it skips the test where there is no /proc.
func processGroup(t *testing.T, pgid int) []string {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc to look for leftover processes: %v", err)
	}
	var left []string
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and ")".
		i := bytes.LastIndexByte(stat, ')')
		fields := strings.Fields(string(stat[i+1:]))
		if i < 0 || len(fields) < 3 {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g == pgid {
			left = append(left, fmt.Sprintf("%d %s", pid, stat[:i+1]))
		}
	}
	return left
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

// startWatch seeds a project with a checkpoint on issue (a fake Linear that
// has it), starts `ccc sync --watch` there with the given debounce, and
// waits until the worker says it is watching.
func startWatch(t *testing.T, issue, debounce string) (srv *linearfake.Server, root string, cmd *exec.Cmd, stderr *syncBuffer) {
	t.Helper()
	srv = linearfake.New()
	t.Cleanup(srv.Close)
	srv.AddIssue(issue, "Watch")
	root = t.TempDir()
	env := append(os.Environ(), "CCC_PROJECT_ROOT="+root, "LINEAR_API_URL="+srv.URL, "LINEAR_API_KEY="+linearfake.APIKey,
		"CCC_SINKS=", "NO_COLOR=1", "GITHUB_ACTIONS=")
	seed := exec.Command("ccc", "checkpoint", "--issue", issue, "--current", "start", "--skip-git", "--skip-linear")
	seed.Env = env
	out, err := seed.CombinedOutput()
	require.NoError(t, err, string(out))

	stderr = &syncBuffer{}
	cmd = exec.Command("ccc", "sync", "--watch", "--debounce", debounce, "--retry-every", "1h")
	cmd.Env = env
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	waitFor(t, func() bool { return strings.Contains(stderr.String(), "watching .ccc-progress.md") }, "the worker starts")
	return srv, root, cmd, stderr
}

// TestSyncWatchRefusesBrokenFile: the agent leaves a merge conflict in the
// progress file while the worker runs. Its checkpoint is refused with
// path:line, the file stays byte-identical and Linear hears nothing.
func TestSyncWatchRefusesBrokenFile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a process and waits for debounces")
	}
	srv, root, cmd, stderr := startWatch(t, "CIA-31", "200ms")
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	path := filepath.Join(root, progress.FileName)
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	conflicted := strings.Replace(string(orig), "- start\n", "<<<<<<< HEAD\n- start\n=======\n- begin\n>>>>>>> other\n", 1)
	require.NotEqual(t, string(orig), conflicted)
	require.NoError(t, os.WriteFile(path, []byte(conflicted), 0o644))
	waitFor(t, func() bool { return strings.Contains(stderr.String(), "Checkpoint not run") }, "the checkpoint is refused")

	assert.Regexp(t, `Checkpoint not run: \.ccc-progress\.md:\d+: unresolved merge conflict`, stderr.String())
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, conflicted, string(after), "the file is left byte-identical")
	assert.Zero(t, srv.RequestCount(), "nothing is delivered from a broken file")
	assert.Empty(t, srv.Comments("CIA-31"))
}
