package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/state"
)

// TestQuietCheckpointCosts counts what an automated checkpoint that has
// nothing new to send costs the machine: git processes (through a `git` on
// PATH that logs, then runs the real one) and fsyncs (the file primitives'
// counter). Counts, not times: they must not creep back up (issue 14).
func TestQuietCheckpointCosts(t *testing.T) {
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	isolateGit(t.Setenv, home)
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "git.log")
	shim := "#!/bin/sh\nprintf 'git %s\\n' \"$*\" >>'" + log + "'\nexec '" + realGit + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git"), []byte(shim), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	root := t.TempDir()
	gitRun := func(args ...string) {
		cmd := exec.Command(realGit, args...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	gitRun("init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(root, "parser.go"), []byte("package parser\n"), 0o644))
	gitRun("add", "parser.go")
	gitRun("commit", "-q", "-m", "base")
	require.NoError(t, os.WriteFile(filepath.Join(root, state.FileName),
		[]byte(`{"linearIssue": "CIA-7", "phase": "execution", "activeTaskFiles": ["parser.go"]}`), 0o644))

	lin := linearfake.New()
	t.Cleanup(lin.Close)
	lin.AddIssue("CIA-7", "Parser")
	env := map[string]string{"LINEAR_API_KEY": linearfake.APIKey, "LINEAR_API_URL": lin.URL}
	clock := time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)
	checkpoint := func() string {
		var out, errOut bytes.Buffer
		f := &Factory{
			IO:     IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
			Getenv: func(k string) string { return env[k] },
			Getwd:  func() (string, error) { return root, nil },
			Now:    func() time.Time { return clock },
		}
		require.Equal(t, 0, run([]string{"checkpoint", "--profile", "automated", "--next", "write the parser"}, f), errOut.String())
		return errOut.String()
	}
	checkpoint() // the first: creates the progress file, the record, the comment
	clock = clock.Add(time.Minute)
	checkpoint() // the status changed (its time did)
	require.NoError(t, os.Remove(log))

	clock = clock.Add(time.Second) // same minute in the comment: nothing to send
	requests, fsyncs := lin.RequestCount(), projectfs.Fsyncs()
	report := checkpoint()
	fsyncs = projectfs.Fsyncs() - fsyncs
	calls, err := os.ReadFile(log)
	require.NoError(t, err)
	t.Logf("git calls:\n%s\nfsyncs: %d, requests: %d\n%s", calls, fsyncs, lin.RequestCount()-requests, report)

	assert.Equal(t, 1, strings.Count(string(calls), "git "), "git processes per quiet checkpoint:\n%s", calls)
	assert.EqualValues(t, 6, fsyncs, "fsyncs per quiet checkpoint")
}

// endless is a stdin that never ends; it counts what was read from it.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestHookStdinBounded: a hook stops reading stdin after maxHookInput: a
// 200 MB (here endless) stdin is neither read whole nor parsed, and the
// hook says so in one line and exits 0.
func TestHookStdinBounded(t *testing.T) {
	root := t.TempDir()
	in := &endless{}
	var out, errs bytes.Buffer
	f := &Factory{
		IO:     IOStreams{In: in, Out: &out, ErrOut: &errs},
		Getenv: func(k string) string { return map[string]string{"CCC_PROJECT_ROOT": root}[k] },
		Getwd:  func() (string, error) { return root, nil },
		Now:    func() time.Time { return hookNow },
	}
	require.Equal(t, 0, run([]string{"hook", "stop"}, f))
	assert.LessOrEqual(t, in.n, int64(maxHookInput+64<<10), "bytes read from stdin")
	assert.Equal(t, "ccc hook stop: stdin: over 16 MB, not a hook input; ignored\n", errs.String())
	assert.Empty(t, out.String())
}
