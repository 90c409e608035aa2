package restore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
)

const doc = "# Progress\n\n## Current Task\n\nwrite the parser\n"

func TestPutKeepsTheCurrentFileAndRefusesAnInvalidOne(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := filepath.Join(root, progress.FileName)
	require.NoError(t, os.WriteFile(path, []byte(doc+"\nmine\n"), 0o644))
	targets, err := Targets(context.Background(), root, []string{Progress}, "", false)
	require.NoError(t, err)
	now := time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)

	res := Put(context.Background(), targets[0], []byte("<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n"), "the branch", now)
	assert.Equal(t, Failed, res.Action, res.Message)
	got, _ := os.ReadFile(path)
	assert.Equal(t, doc+"\nmine\n", string(got), "a refused copy changes nothing")

	res = Put(context.Background(), targets[0], []byte(doc+"\ntheirs\n"), "the branch", now)
	require.Equal(t, Restored, res.Action, res.Message)
	got, _ = os.ReadFile(path)
	assert.Equal(t, doc+"\ntheirs\n", string(got))
	require.NotEmpty(t, res.Kept)
	kept, err := os.ReadFile(res.Kept)
	require.NoError(t, err)
	assert.Equal(t, doc+"\nmine\n", string(kept), "the replaced file is in the backups")
	backups, err := projectfs.Backups(root, progress.FileName)
	require.NoError(t, err)
	assert.Len(t, backups, 1)

	res = Put(context.Background(), targets[0], []byte(doc+"\ntheirs\n"), "the branch", now)
	assert.Equal(t, Unchanged, res.Action)
}
