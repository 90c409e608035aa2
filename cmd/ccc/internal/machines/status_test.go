package machines

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
	"github.com/ccc-checkpoint/ccc/state/handoff"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// status --all runs a fixed number of git processes whatever the number
// of agents: the fetch, then one ls-tree and one cat-file per tip (the
// repository's discovery reads .git's files: no process).
func TestCollectRunsFiveGitProcessesForAHundredAgents(t *testing.T) {
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
	for i := range 100 {
		e := handoff.Entry{Meta: handoff.Meta{ID: fmt.Sprintf("%s/agent-%d/1", self.Machine, i), Machine: self.Machine,
			Agent: fmt.Sprintf("agent-%d", i), Time: now, Status: records.StatusInProgress},
			Files: map[string][]byte{handoff.ProgressFile: []byte("# Progress\n")}}
		self.Signer.Seal(&e)
		require.NoError(t, handoff.Write(ctx, r, e))
		if i == 49 {
			_, err := handoff.Publish(ctx, r, "origin", now, handoff.Retention{}) // the remote has half
			require.NoError(t, err)
		}
	}

	realGit, err := exec.LookPath("git")
	require.NoError(t, err)
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "git.log")
	shim := "#!/bin/sh\nprintf 'git %s\\n' \"$*\" >>'" + log + "'\nexec '" + realGit + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git"), []byte(shim), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	rep, err := Collect(ctx, root, "origin", true, self, now, records.DefaultThresholds())
	require.NoError(t, err)
	assert.True(t, rep.Fetched)
	assert.Len(t, rep.Agents, 100)
	for _, a := range rep.Agents {
		require.Equal(t, "verified", a.Trust, a.Agent)
	}
	calls, err := os.ReadFile(log)
	require.NoError(t, err)
	// Five: the repository is found from .git's files (gitrepo's walk), no rev-parse.
	assert.Equal(t, 5, strings.Count(string(calls), "git "), "fetch, then ls-tree and cat-file for each of the two tips:\n%s", calls)
}
