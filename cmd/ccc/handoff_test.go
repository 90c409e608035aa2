package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/handoff"
)

// handoffProject is a repository with a bare remote (origin), one commit
// and a state naming parser.go, for the checkpoint branch's tests; git
// runs through a logging shim on PATH (log).
func handoffProject(t *testing.T) (root, bare, log string) {
	t.Helper()
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	isolateGit(t.Setenv, t.TempDir())
	bin := t.TempDir()
	log = filepath.Join(t.TempDir(), "git.log")
	shim := "#!/bin/sh\nprintf 'git %s\\n' \"$*\" >>'" + log + "'\nexec '" + realGit + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git"), []byte(shim), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	root = t.TempDir()
	bare = filepath.Join(t.TempDir(), "remote.git")
	gitRun := func(dir string, args ...string) {
		cmd := exec.Command(realGit, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	gitRun(root, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(root, "parser.go"), []byte("package parser\n"), 0o644))
	gitRun(root, "add", "parser.go")
	gitRun(root, "commit", "-q", "-m", "base")
	gitRun(root, "init", "-q", "--bare", bare)
	gitRun(root, "remote", "add", "origin", bare)
	require.NoError(t, os.WriteFile(filepath.Join(root, state.FileName),
		[]byte(`{"linearIssue": "CIA-7", "phase": "execution", "activeTaskFiles": ["parser.go"]}`), 0o644))
	return root, bare, log
}

// cccIn runs ccc in root with env, at clock; it returns the exit status,
// stdout and stderr.
func cccIn(t *testing.T, root string, env map[string]string, clock time.Time, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &Factory{
		IO:     IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Getenv: func(k string) string { return env[k] },
		Getwd:  func() (string, error) { return root, nil },
		Now:    func() time.Time { return clock },
	}
	code := run(args, f)
	return code, out.String(), errOut.String()
}

// With the branch on, a quiet automated checkpoint costs one git process
// more than with it off (TestQuietCheckpointCosts): the fast-import that
// writes the entry. The push is ccc sync's.
func TestHandoffAddsOneGitProcessToACheckpoint(t *testing.T) {
	root, _, log := handoffProject(t)
	env := map[string]string{"CCC_HANDOFF_REMOTE": "origin", "CCC_CONFIG_DIR": t.TempDir(), "CCC_SINKS": "file"}
	clock := time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)
	for range 2 {
		code, _, stderr := cccIn(t, root, env, clock, "checkpoint", "--profile", "automated", "--next", "write the parser")
		require.Equal(t, 0, code, stderr)
		clock = clock.Add(time.Minute)
	}
	require.NoError(t, os.Remove(log))
	clock = clock.Add(time.Second)
	fsyncs := projectfs.Fsyncs()
	code, _, stderr := cccIn(t, root, env, clock, "checkpoint", "--profile", "automated", "--next", "write the parser")
	require.Equal(t, 0, code, stderr)
	calls, err := os.ReadFile(log)
	require.NoError(t, err)
	t.Logf("git calls:\n%s\nfsyncs: %d", calls, projectfs.Fsyncs()-fsyncs)
	// One: the checkpoint itself starts none (gitrepo reads the repository's
	// files; TestQuietCheckpointCosts), so the fast-import is all there is.
	assert.Equal(t, 1, strings.Count(string(calls), "git "), "git processes:\n%s", calls)
	assert.Contains(t, string(calls), "fast-import --quiet")
	assert.NotContains(t, string(calls), "push", "the hook never pushes")
	assert.Equal(t, "3\n", gitOut(t, root, "rev-list", "--count", handoff.Ref), "each checkpoint is a commit of the branch")
	onDisk, err := os.ReadFile(filepath.Join(root, ".ccc-progress.md"))
	require.NoError(t, err)
	var onBranch string
	for _, p := range strings.Fields(gitOut(t, root, "ls-tree", "-r", "--name-only", handoff.Ref)) {
		if strings.HasSuffix(p, "/progress.md") {
			onBranch = gitOut(t, root, "show", handoff.Ref+":"+p)
		}
	}
	assert.Equal(t, string(onDisk), onBranch, "the quiet checkpoint's entry holds the progress file as it is")
}

// A manual checkpoint's snapshot names its checkpoint in a trailer, and the
// branch's entry names the snapshot: either leads to the other.
func TestSnapshotAndBranchNameEachOther(t *testing.T) {
	root, _, _ := handoffProject(t)
	env := map[string]string{"CCC_HANDOFF_REMOTE": "origin", "CCC_CONFIG_DIR": t.TempDir(), "CCC_SINKS": "file"}
	require.NoError(t, os.WriteFile(filepath.Join(root, "parser.go"), []byte("package parser // more\n"), 0o644))
	code, _, stderr := cccIn(t, root, env, time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC), "checkpoint", "--next", "write the parser")
	require.Equal(t, 0, code, stderr)
	trailer := strings.TrimSpace(gitOut(t, root, "log", "-1", "--format=%(trailers:key=Ccc-Checkpoint,valueonly)", "main"))
	require.NotEmpty(t, trailer, gitOut(t, root, "log", "-1", "main"))
	head := strings.TrimSpace(gitOut(t, root, "rev-parse", "main"))
	parts := strings.Split(trailer, "/")
	require.Len(t, parts, 3, trailer)
	meta := gitOut(t, root, "show", handoff.Ref+":agents/"+parts[0]+"/"+parts[1]+"/meta.json")
	assert.Contains(t, meta, `"id": "`+trailer+`"`)
	assert.Contains(t, meta, `"commit": "`+head+`"`)
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err, "git %v", args)
	return string(out)
}

// cmdWaitFile waits (up to 10 s) until a file exists (waitfile PATH) or is
// gone (waitgone PATH): a script's signal from a process it runs in the
// background, never a guess at how long that takes.
func cmdWaitFile(exists bool) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: waitfile|waitgone PATH")
		}
		path := ts.MkAbs(args[0])
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, err := os.Stat(path)
			if (err == nil) == exists {
				return
			}
			if time.Now().After(deadline) {
				ts.Fatalf("%s: still not as expected after 10s", path)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// The branch is pushed where many read it: what goes there is redacted as a
// tracker comment is, in every file and in meta.json.
func TestTheBranchHoldsNoSecret(t *testing.T) {
	root, _, _ := handoffProject(t)
	token := "ghp_" + strings.Repeat("a1B2c3D4e5", 3) + "F6g7H8"
	held := "lin_api_Zq8Xv2Lm4Np6Rt0Yw3Bc5Df7Gh9Jk1Ms"
	env := map[string]string{"CCC_HANDOFF_REMOTE": "origin", "CCC_CONFIG_DIR": t.TempDir(), "LINEAR_API_KEY": held}
	code, _, stderr := cccIn(t, root, env, time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC), "checkpoint", "--profile", "automated",
		"--skip-tracker", "--current", "deploy with "+token, "--add-task", "rotate "+held, "--decision", "the key is "+held)
	require.Equal(t, 0, code, stderr)
	tree := gitOut(t, root, "ls-tree", "-r", "--name-only", handoff.Ref)
	require.Contains(t, tree, "meta.json")
	require.Contains(t, tree, "progress.md")
	for _, path := range strings.Fields(tree) {
		body := gitOut(t, root, "show", handoff.Ref+":"+path)
		assert.NotContains(t, body, token, path)
		assert.NotContains(t, body, held, path)
	}
	assert.NotContains(t, gitOut(t, root, "log", "--format=%B", handoff.Ref), "ghp_")
	assert.Contains(t, gitOut(t, root, "show", handoff.Ref+":"+strings.Split(strings.TrimSpace(tree), "\n")[0]), "deploy with [REDACTED",
		"the text is there, its credential replaced")
}
