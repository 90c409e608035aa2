package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/state"
)

// TestHookStdinThatNeverCloses: an agent host that writes its JSON and
// keeps the pipe open does not hang the hook: it reads for a bounded time,
// then goes on with what it read.
func TestHookStdinThatNeverCloses(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, state.FileName), []byte(boundsState), 0o644))
	p := newCCCProc(root)
	var w *os.File
	code, stdout, stderr, took := runHookTimed(t, p, func(cmd *exec.Cmd) func() {
		r, wr, err := os.Pipe()
		require.NoError(t, err)
		w = wr
		_, err = w.WriteString(boundsComplete)
		require.NoError(t, err)
		cmd.Stdin = r
		return func() { _ = r.Close() }
	}, "stop")
	defer w.Close()
	assert.Equal(t, 0, code)
	assert.Less(t, took, 5*time.Second, "the hook does not wait for EOF")
	assert.Contains(t, stdout, `"decision":"block"`, "the JSON read is used: %s", stderr)
	assert.Contains(t, stdout, "Execute task 3 of 3")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	assert.Contains(t, stderr, "ccc hook stop: stdin not closed after")
	t.Logf("stop hook with stdin held open: %v", took)
}

// TestHookStdinThatNeverClosesMidObject: what came before the pipe went
// quiet is not a whole JSON object: one line, nothing done, exit 0.
func TestHookStdinThatNeverClosesMidObject(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, state.FileName), []byte(boundsState), 0o644))
	p := newCCCProc(root)
	var w *os.File
	code, stdout, stderr, took := runHookTimed(t, p, func(cmd *exec.Cmd) func() {
		r, wr, err := os.Pipe()
		require.NoError(t, err)
		w = wr
		_, err = w.WriteString(boundsComplete[:40])
		require.NoError(t, err)
		cmd.Stdin = r
		return func() { _ = r.Close() }
	}, "pre-compact")
	defer w.Close()
	assert.Equal(t, 0, code)
	assert.Less(t, took, 5*time.Second)
	assert.Empty(t, stdout)
	assert.Equal(t, "ccc hook pre-compact: stdin not closed after 2s, and the 40 bytes read are not a whole JSON object; nothing done\n", stderr)
}
