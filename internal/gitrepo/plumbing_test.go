package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testRef = "refs/heads/ccc/test"

func commitStream(from, content string) []byte {
	s := "commit " + testRef + "\ncommitter ccc <ccc@localhost> 1700000000 +0000\ndata 2\nx\n"
	if from != "" {
		s += "from " + from + "\n"
	}
	return []byte(s + "M 100644 inline f\ndata " + fmt.Sprint(len(content)) + "\n" + content + "\n\n")
}

// ReadRef reads a loose ref and a packed one without git; fast-import from
// an old tip is a compare-and-swap.
func TestReadRefAndFastImportCAS(t *testing.T) {
	dir := seededRepo(t)
	ctx := context.Background()
	common := filepath.Join(dir, ".git")
	tip, err := ReadRef(ctx, common, testRef)
	require.NoError(t, err)
	assert.Empty(t, tip, "no such ref yet")

	require.NoError(t, FastImport(ctx, dir, commitStream("", "1")))
	first, err := ReadRef(ctx, common, testRef)
	require.NoError(t, err)
	assert.Equal(t, strings.TrimSpace(git(t, dir, "rev-parse", testRef)), first)

	require.NoError(t, FastImport(ctx, dir, commitStream(first, "2")))
	second, _ := ReadRef(ctx, common, testRef)
	err = FastImport(ctx, dir, commitStream(first, "3")) // a writer that read the old tip
	assert.True(t, errors.Is(err, ErrRefMoved), "%v", err)
	now, _ := ReadRef(ctx, common, testRef)
	assert.Equal(t, second, now, "the ref keeps the other writer's commit")

	git(t, dir, "pack-refs", "--all")
	packed, err := ReadRef(ctx, common, testRef)
	require.NoError(t, err)
	assert.Equal(t, second, packed)
}

func TestRemoteNamesOnly(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "--upload-pack=x", "git@host:repo", "https://host/repo", "a b", "../x"} {
		assert.Error(t, validRemote(bad), bad)
	}
	for _, good := range []string{"origin", "upstream", "team/mirror"} {
		assert.NoError(t, validRemote(good), good)
	}
}

// ccc started from another repository's hook inherits its GIT_DIR and
// GIT_INDEX_FILE: the plumbing works on its own repository regardless.
func TestPlumbingIgnoresAHooksGitVariables(t *testing.T) {
	dir, other := seededRepo(t), seededRepo(t)
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other, ".git", "index"))
	t.Setenv("GIT_WORK_TREE", other)
	require.NoError(t, FastImport(context.Background(), dir, commitStream("", "1")))
	for _, k := range []string{"GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"} {
		require.NoError(t, os.Unsetenv(k)) // t.Setenv restores them after the test
	}
	assert.NotEmpty(t, strings.TrimSpace(git(t, dir, "rev-parse", "--verify", "-q", testRef)), "written in dir's repository")
	out, _ := gitCmd(other, "rev-parse", "--verify", "-q", testRef).Output()
	assert.Empty(t, strings.TrimSpace(string(out)), "not in the hook's")
}
