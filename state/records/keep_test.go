//go:build unix

package records

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// The record a checkpoint replaces lives on in history and as a backup as
// hard links to its inode, not as two more copies of its bytes (issue 26:
// each was a 2 MB write for 10,000 tasks); the new record is a file of its
// own.
func TestWriteKeepsThePreviousRecordAsLinks(t *testing.T) {
	ctx := context.Background()
	root := tempDir(t)
	dir := filepath.Join(root, ".ccc", "checkpoints")
	first, err := Write(ctx, dir, snap("a", "CIA-1"), t0)
	require.NoError(t, err)
	path := CurrentPath(dir, "a")
	firstBytes, err := os.ReadFile(path)
	require.NoError(t, err)
	before, err := os.Lstat(path)
	require.NoError(t, err)

	s := snap("a", "CIA-1")
	s.Current = "write tests"
	_, err = Write(ctx, dir, s, t0.Add(time.Minute))
	require.NoError(t, err)

	hist := historyPath(dir, "a", first.ID)
	backups, err := projectfs.Backups(root, "a.json")
	require.NoError(t, err)
	require.Len(t, backups, 1)
	for _, p := range []string{hist, backups[0]} {
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		assert.True(t, os.SameFile(before, fi), "%s is the replaced record's inode", p)
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, string(firstBytes), string(got), "%s: byte for byte", p)
	}
	now, err := os.Lstat(path)
	require.NoError(t, err)
	assert.False(t, os.SameFile(before, now), "the current record is a new file")
	assert.EqualValues(t, 1, links(t, now), "shared with nothing")
}

// A replace that fails after the links were made leaves no history entry or
// backup that is still the live file: an in-place edit of it must not change
// them. They become copies of their own, with the same bytes.
func TestWriteFailureUnsharesTheLinks(t *testing.T) {
	ctx := context.Background()
	root := tempDir(t)
	dir := filepath.Join(root, ".ccc", "checkpoints")
	first, err := Write(ctx, dir, snap("a", "CIA-1"), t0)
	require.NoError(t, err)
	path := CurrentPath(dir, "a")
	firstBytes, err := os.ReadFile(path)
	require.NoError(t, err)
	// The archive a complete record goes to is a folder with a file in it:
	// the rename onto it fails, and the current record stays.
	archive := CompletePath(dir, "a", "CIA-1")
	require.NoError(t, os.MkdirAll(filepath.Join(archive, "x"), 0o755))

	done := snap("a", "CIA-1")
	done.Status, done.Current, done.Remaining = StatusComplete, "", nil
	_, err = Write(ctx, dir, done, t0.Add(time.Minute))
	require.Error(t, err)

	live, err := os.Lstat(path)
	require.NoError(t, err)
	backups, err := projectfs.Backups(root, "a.json")
	require.NoError(t, err)
	kept := append([]string{historyPath(dir, "a", first.ID)}, backups...)
	require.Len(t, kept, 2)
	for _, p := range kept {
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		assert.False(t, os.SameFile(live, fi), "%s shares the live record's inode", p)
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, string(firstBytes), string(got), "%s: still the previous record", p)
	}
	assert.EqualValues(t, 1, links(t, live))
}

// Put and Retire keep the record they replace or retire as a link too.
func TestPutAndRetireLink(t *testing.T) {
	ctx := context.Background()
	root := tempDir(t)
	dir := filepath.Join(root, ".ccc", "checkpoints")
	first, err := Write(ctx, dir, snap("a", "CIA-1"), t0)
	require.NoError(t, err)
	path := CurrentPath(dir, "a")
	before, err := os.Lstat(path)
	require.NoError(t, err)

	r := *first
	r.ID, r.UpdatedAt = "a-CIA-1-20261121-140000", t0.Add(time.Hour)
	_, err = Put(ctx, dir, &r, t0.Add(time.Hour))
	require.NoError(t, err)
	fi, err := os.Lstat(historyPath(dir, "a", first.ID))
	require.NoError(t, err)
	assert.True(t, os.SameFile(before, fi), "Put: history is the replaced record")

	put, err := os.Lstat(path)
	require.NoError(t, err)
	entry, err := Retire(ctx, dir, "a", t0.Add(2*time.Hour))
	require.NoError(t, err)
	fi, err = os.Lstat(entry)
	require.NoError(t, err)
	assert.True(t, os.SameFile(put, fi), "Retire: history is the retired record")
	assert.NoFileExists(t, path)
}

// links is the file's hard-link count.
func links(t *testing.T, fi os.FileInfo) uint64 {
	t.Helper()
	st, ok := fi.Sys().(*syscall.Stat_t)
	require.True(t, ok)
	return uint64(st.Nlink) //nolint:unconvert // its type differs between platforms
}
