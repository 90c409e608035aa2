package machines

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state/handoff"
	"github.com/ccc-checkpoint/ccc/state/restore"
)

// go --from refuses what ccc restore refuses (a progress file too broken
// to touch), keeps the file as it was, and says when the checkpoint's
// commit is not in this clone.
func TestResumeRefusesABrokenCopyAndNamesAMissingCommit(t *testing.T) {
	testutil.IsolateGit(t)
	testutil.Identity(t)
	root := testutil.Repo(t, nil)
	bare := filepath.Join(t.TempDir(), "remote.git")
	testutil.Git(t, root, "init", "-q", "--bare", bare)
	testutil.Git(t, root, "remote", "add", "origin", bare)
	mine := "# Session Progress\n\n## Current Task\n- mine\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, progress.FileName), []byte(mine), 0o644))
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	self, err := Identify(key)
	require.NoError(t, err)
	r, err := Open(ctx, root)
	require.NoError(t, err)
	conflicted := "# Session Progress\n\n<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> other\n"
	e := handoff.Entry{Meta: handoff.Meta{ID: "far-1/main/1", Machine: "far-1", Agent: "main", Time: now,
		Commit: strings.Repeat("c", 40), Branch: "feature"},
		Files: map[string][]byte{handoff.ProgressFile: []byte(conflicted), handoff.PromptFile: []byte("go on\n")}}
	self.Signer.Seal(&e)
	require.NoError(t, handoff.Write(ctx, r, e))

	res, warnings, err := Resume(ctx, root, "origin", "main", "", false, self, now)
	require.NoError(t, err)
	assert.Equal(t, "verified", res.Trust)
	assert.False(t, res.CommitHere)
	assert.Contains(t, strings.Join(warnings, "\n"), "commit ccccccc (branch feature), where the checkpoint was taken, is not in this clone yet: git fetch origin feature, or git checkout feature")
	require.Len(t, res.Restored, 1)
	assert.Equal(t, restore.Failed, res.Restored[0].Action, res.Restored[0].Message)
	assert.True(t, res.Failed())
	got, _ := os.ReadFile(filepath.Join(root, progress.FileName))
	assert.Equal(t, mine, string(got), "nothing changed")
	assert.Equal(t, "go on", res.Prompt)
}
