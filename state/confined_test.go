package state_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/outbox"
)

// TestNoWritesThroughSymlinksOut: a progress or state file symlinked to a
// file outside is never copied into the backups, and a .ccc or lock
// symlinked out is never created or written through.
func TestNoWritesThroughSymlinksOut(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, ".bashrc")
	require.NoError(t, os.WriteFile(secret, []byte("export TOKEN=x\n"), 0o644))
	progress := filepath.Join(root, ".ccc-progress.md")
	require.NoError(t, os.Symlink(secret, progress))
	now := time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

	_, err := projectfs.Backup(root, progress, now)
	assert.ErrorIs(t, err, projectfs.ErrOutside)
	_, err = projectfs.SetAside(root, progress, now)
	assert.ErrorIs(t, err, projectfs.ErrOutside)
	assert.NoDirExists(t, filepath.Join(root, ".ccc", "backups"), "nothing of the outside file was copied in")

	require.NoError(t, os.Symlink(secret, state.Path(root)))
	_, err = state.Load(root, now)
	assert.ErrorIs(t, err, projectfs.ErrOutside)
	assert.ErrorIs(t, state.Save(root, state.New(), now), projectfs.ErrOutside)

	require.NoError(t, os.MkdirAll(filepath.Join(root, ".ccc"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "lock"), filepath.Join(root, ".ccc", "lock")))
	_, err = projectfs.Lock(context.Background(), root)
	assert.ErrorIs(t, err, projectfs.ErrOutside)

	linked := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(linked, ".ccc")))
	_, err = projectfs.Lock(context.Background(), linked)
	assert.ErrorIs(t, err, projectfs.ErrOutside)
	_, err = outbox.Queue(linked, outbox.Entry{Sink: "linear", Target: "CIA-1", Agent: "main", Body: "x"}, "down", now)
	assert.ErrorIs(t, err, projectfs.ErrOutside)

	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the user's file is outside")
	data, err := os.ReadFile(secret)
	require.NoError(t, err)
	assert.Equal(t, "export TOKEN=x\n", string(data))
}
