package machines

import (
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/testutil"
	"github.com/ccc-checkpoint/ccc/state/handoff"
)

func TestPublisherPushesWhatMovedAndBacksOff(t *testing.T) {
	testutil.IsolateGit(t)
	testutil.Identity(t)
	root := testutil.Repo(t, nil)
	bare := filepath.Join(t.TempDir(), "remote.git")
	testutil.Git(t, root, "init", "-q", "--bare", bare)
	testutil.Git(t, root, "remote", "add", "origin", bare)
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	self, err := Identify(key)
	require.NoError(t, err)
	r, err := Open(ctx, root)
	require.NoError(t, err)
	write := func(at time.Time) {
		e := handoff.Entry{Meta: handoff.Meta{ID: self.Machine + "/main/" + at.Format(time.RFC3339), Machine: self.Machine, Agent: "main", Time: at},
			Files: map[string][]byte{handoff.ProgressFile: []byte("# Progress\n")}}
		self.Signer.Seal(&e)
		require.NoError(t, handoff.Write(ctx, r, e))
	}

	p := &Publisher{Root: root, Remote: "origin"}
	assert.Empty(t, p.Tick(ctx, now), "no branch yet: nothing to push")
	write(now)
	assert.Equal(t, "checkpoint branch pushed to origin", p.Tick(ctx, now))
	assert.Equal(t, strings.TrimSpace(testutil.Git(t, root, "rev-parse", handoff.Ref)), strings.TrimSpace(testutil.Git(t, bare, "rev-parse", handoff.Ref)))
	realGit, err := exec.LookPath("git")
	require.NoError(t, err)
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "git.log")
	shim := "#!/bin/sh\nprintf 'git %s\\n' \"$*\" >>'" + log + "'\nexec '" + realGit + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git"), []byte(shim), 0o755))
	path := os.Getenv("PATH")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+path)
	assert.Empty(t, p.Tick(ctx, now), "nothing moved since the push")
	assert.NoFileExists(t, log, "an idle round runs no git")
	require.NoError(t, exec.Command("git", "--version").Run())
	assert.FileExists(t, log, "the shim counts the git on PATH")
	t.Setenv("PATH", path)

	testutil.Git(t, root, "remote", "set-url", "origin", filepath.Join(t.TempDir(), "gone.git"))
	write(now.Add(time.Minute))
	assert.Contains(t, p.Tick(ctx, now), "not pushed (next try in 30s)")
	assert.Empty(t, p.Tick(ctx, now.Add(29*time.Second)), "backing off")
	assert.Contains(t, p.Tick(ctx, now.Add(31*time.Second)), "not pushed (next try in 1m0s)")

	testutil.Git(t, root, "remote", "set-url", "origin", bare)
	assert.Equal(t, "checkpoint branch pushed to origin", p.Tick(ctx, now.Add(2*time.Minute)))
}

// The worker's publish applies the project's retention rule: past keep
// commits it rolls the epoch and says so.
func TestPublisherRollsTheEpoch(t *testing.T) {
	testutil.IsolateGit(t)
	testutil.Identity(t)
	root := testutil.Repo(t, nil)
	bare := filepath.Join(t.TempDir(), "remote.git")
	testutil.Git(t, root, "init", "-q", "--bare", bare)
	testutil.Git(t, root, "remote", "add", "origin", bare)
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	self, err := Identify(key)
	require.NoError(t, err)
	r, err := Open(ctx, root)
	require.NoError(t, err)
	for i := range 3 {
		at := now.Add(time.Duration(i) * time.Minute)
		e := handoff.Entry{Meta: handoff.Meta{ID: self.Machine + "/main/" + at.Format(time.RFC3339), Machine: self.Machine, Agent: "main", Time: at},
			Files: map[string][]byte{handoff.ProgressFile: []byte("# Progress\n")}}
		self.Signer.Seal(&e)
		require.NoError(t, handoff.Write(ctx, r, e))
	}
	var prefs config.Project
	prefs.HandoffRemote, prefs.HandoffKeep = "origin", 2
	tick := WorkerPublish(root, prefs)
	require.NotNil(t, tick)
	assert.Equal(t, "checkpoint branch pushed to origin (retention pruned 3 commit(s) from 2026-11-28 04:00 to 2026-11-28 04:02: epoch 1)", tick(ctx, now.Add(time.Hour)))
	assert.Equal(t, "1\n", testutil.Git(t, bare, "rev-list", "--count", handoff.Ref))
	assert.Nil(t, WorkerPublish(root, config.Project{HandoffKeep: 2}), "off without a remote")
}
