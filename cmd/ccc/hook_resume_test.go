package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/hook"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
)

// TestHookResumeOldStateOnStartup: a year-old CCC state and no progress
// file is a year-old checkpoint (not "0s"), so startup injects nothing,
// and the hook writes no file.
func TestHookResumeOldStateOnStartup(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, state.FileName),
		`{"linearIssue": "CIA-9", "taskIndex": 1, "totalTasks": 3, "lastUpdatedAt": "2025-01-01T00:00:00Z"}`)
	code, stdout, stderr := hookRun(t, root, `{"session_id":"s","source":"startup"}`, nil, "hook", "session-start")
	assert.Equal(t, 0, code)
	assert.Empty(t, stdout, "too old to inject")
	assert.Contains(t, stderr, "not injected")
	assert.NoFileExists(t, filepath.Join(root, progress.FileName), "session-start writes nothing")

	// The real loader, asked directly: dated by the state, nothing rebuilt.
	f := &Factory{IO: IOStreams{ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" },
		Now: func() time.Time { return hookNow }}
	r, ok, err := f.hookResume(context.Background(), root)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, hookNow.Sub(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)), r.Age)
	assert.NoFileExists(t, filepath.Join(root, progress.FileName))
}

// TestHookResumeAgeAndDriftAgree: after a stop-hook gate checkpoint (which
// leaves the state alone) the age and the HEAD compared for drift are both
// that checkpoint's, so "taken 1m ago" never sits next to "HEAD moved".
func TestHookResumeAgeAndDriftAgree(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	isolateGit(t.Setenv, home)
	gitIn := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	gitIn("init", "-q", "-b", "main")
	writeFile(t, filepath.Join(root, ".gitignore"), ".ccc/\n.ccc-state.json\n.ccc-progress.md\n")
	gitIn("add", ".")
	gitIn("commit", "-q", "-m", "base")
	writeFile(t, filepath.Join(root, state.FileName), hookState(""))

	clock := hookNow
	newF := func() (*Factory, *bytes.Buffer) {
		var errs bytes.Buffer
		return &Factory{
			IO:     IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &errs},
			Getenv: func(k string) string { return map[string]string{"CCC_PROJECT_ROOT": root}[k] },
			Getwd:  func() (string, error) { return root, nil },
			Now:    func() time.Time { return clock },
		}, &errs
	}
	// A checkpoint that records HEAD A in the state.
	f, errs := newF()
	require.Equal(t, 0, run([]string{"checkpoint", "--profile", "automated"}, f), errs.String())
	gitIn("commit", "-q", "--allow-empty", "-m", "one")
	gitIn("commit", "-q", "--allow-empty", "-m", "two")
	// The stop hook's gate checkpoint, ten minutes later.
	clock = hookNow.Add(10 * time.Minute)
	f, _ = newF()
	require.NoError(t, f.hookCheckpoint(context.Background(), hook.CheckpointRequest{Root: root, KeepState: true, Deadline: 5 * time.Second}))

	clock = hookNow.Add(11 * time.Minute)
	f, _ = newF()
	r, ok, err := f.hookResume(context.Background(), root)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, time.Minute, r.Age)
	assert.Empty(t, r.Warnings, "no drift since the gate checkpoint")

	gitIn("commit", "-q", "--allow-empty", "-m", "three")
	r, _, err = f.hookResume(context.Background(), root)
	require.NoError(t, err)
	assert.Equal(t, time.Minute, r.Age)
	require.Len(t, r.Warnings, 1)
	assert.Contains(t, r.Warnings[0], "HEAD moved since the checkpoint: 1 new commit(s)")
	_, err = os.Stat(filepath.Join(root, progress.FileName))
	require.NoError(t, err)
}
