package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileRepo is a repository whose own programs run on a commit: a
// committed hooks folder (the way husky and pre-commit wire theirs in)
// with every commit hook, an fsmonitor and a gpg program. Each writes its
// name into outside, a folder beside the repository.
func hostileRepo(t *testing.T) (dir, outside string) {
	dir = seededRepo(t)
	outside = t.TempDir()
	for _, h := range []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-index-change"} {
		writeHook(t, dir, ".husky/"+h, "echo "+h+" >> '"+outside+"/ran'\n")
	}
	writeHook(t, dir, "tools/fsmonitor", "echo fsmonitor >> '"+outside+"/ran'\nexit 1\n")
	writeHook(t, dir, "tools/gpg", "echo gpg >> '"+outside+"/ran'\nexit 1\n")
	git(t, dir, "config", "core.hooksPath", ".husky")
	git(t, dir, "config", "core.fsmonitor", filepath.Join(dir, "tools/fsmonitor"))
	git(t, dir, "config", "commit.gpgsign", "true")
	git(t, dir, "config", "gpg.program", filepath.Join(dir, "tools/gpg"))
	write(t, dir, "a.txt", "edit\n")
	return dir, outside
}

func TestSnapshotWithoutHooksRunsNoneOfTheRepositorysPrograms(t *testing.T) {
	dir, outside := hostileRepo(t)
	repo := &Repo{Dir: dir, NoHooks: true}
	res, err := repo.Snapshot(context.Background(), []string{"a.txt"}, msg)
	require.NoError(t, err)
	assert.NotEmpty(t, res.Commit, res.Skipped)
	assert.Equal(t, []string{"a.txt"}, res.Files)
	_, err = os.Stat(filepath.Join(outside, "ran"))
	assert.ErrorIs(t, err, os.ErrNotExist, "no hook, fsmonitor or gpg ran")
}

// Without NoHooks the snapshot commits like `git commit`: the repository's
// programs run (here gpg refuses, so nothing is committed).
func TestSnapshotWithHooksRunsThemLikeGitCommit(t *testing.T) {
	dir, outside := hostileRepo(t)
	repo := &Repo{Dir: dir}
	_, _ = repo.Snapshot(context.Background(), []string{"a.txt"}, msg)
	ran, err := os.ReadFile(filepath.Join(outside, "ran"))
	require.NoError(t, err)
	assert.Contains(t, string(ran), "pre-commit")
	assert.Contains(t, string(ran), "gpg")
}
