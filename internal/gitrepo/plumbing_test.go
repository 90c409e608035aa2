package gitrepo

import (
	"context"
	"errors"
	"fmt"
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
