package projectfs

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// BackupOf backs up the bytes the caller read, without reading the file a
// second time (issue 26: a 2 MB record was read twice per checkpoint).
func TestBackupOfReadsNothing(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "f.md")
	require.NoError(t, os.WriteFile(path, []byte("changed on disk since"), 0o644))
	dest, err := BackupOf(root, path, []byte("as the caller read it"), t0, false)
	require.NoError(t, err)
	got, err := os.ReadFile(dest)
	require.NoError(t, err)
	assert.Equal(t, "as the caller read it", string(got), "the caller's bytes, not a second read")

	_, err = BackupOf(root, filepath.Join(t.TempDir(), "f.md"), []byte("x"), t0, false)
	assert.ErrorIs(t, err, ErrOutside)
}

// A record's backup is a hard link to it: the record is then replaced by
// rename, and the backup keeps the old inode and bytes. The same record
// backed up again is found kept by its inode.
func TestBackupOfLinks(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"v":1}`), 0o644))
	dest, err := BackupOf(root, path, []byte(`{"v":1}`), t0, true)
	require.NoError(t, err)
	assertSame(t, path, dest, true)

	again, err := BackupOf(root, path, []byte(`{"v":1}`), t0.Add(1), true)
	require.NoError(t, err)
	assert.Equal(t, dest, again, "the newest backup already is that file")

	require.NoError(t, WriteFileAtomic(path, []byte(`{"v":2}`), 0o644))
	assertSame(t, path, dest, false)
	got, err := os.ReadFile(dest)
	require.NoError(t, err)
	assert.Equal(t, `{"v":1}`, string(got))
}

// KeepCopy writes the bytes when no link can be made: another file system,
// a file system without links, a source that is not a regular file.
func TestKeepCopyFallsBack(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a.json")
	require.NoError(t, os.WriteFile(src, []byte("old"), 0o644))

	t.Run("link refused", func(t *testing.T) {
		linkFile = func(string, string) error { return &os.LinkError{Op: "link", Err: syscall.EXDEV} }
		t.Cleanup(func() { linkFile = os.Link })
		dest := filepath.Join(dir, "refused.json")
		linked, err := KeepCopy(src, dest, []byte("old"), 0o600, true)
		require.NoError(t, err)
		assert.False(t, linked)
		assertSame(t, src, dest, false)
		assertFile(t, dest, "old", 0o600)
		assert.Empty(t, temps(t, dir), "no temp name left")
	})
	t.Run("symlink", func(t *testing.T) {
		link := filepath.Join(dir, "link.json")
		require.NoError(t, os.Symlink(src, link))
		dest := filepath.Join(dir, "fromlink.json")
		linked, err := KeepCopy(link, dest, []byte("old"), 0o644, true)
		require.NoError(t, err)
		assert.False(t, linked, "a symlink is never linked: the copy would be a symlink")
		assertFile(t, dest, "old", 0o644)
	})
	t.Run("changed size", func(t *testing.T) {
		dest := filepath.Join(dir, "stale.json")
		linked, err := KeepCopy(src, dest, []byte("what was read before"), 0o644, true)
		require.NoError(t, err)
		assert.False(t, linked, "the file is not what the caller read")
		assertFile(t, dest, "what was read before", 0o644)
	})
	t.Run("over a planted file", func(t *testing.T) {
		dest := filepath.Join(dir, "planted.json")
		require.NoError(t, os.Symlink("/dev/zero", dest))
		linked, err := KeepCopy(src, dest, []byte("old"), 0o644, true)
		require.NoError(t, err)
		assert.True(t, linked)
		assertSame(t, src, dest, true)
	})
}

// Unshare turns a link back into a copy of its own, so the live file's
// later edits do not reach it; anything else it leaves alone.
func TestUnshare(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, "a.json")
	require.NoError(t, os.WriteFile(live, []byte("old"), 0o644))
	dest := filepath.Join(dir, "kept.json")
	linked, err := KeepCopy(live, dest, []byte("old"), 0o600, true)
	require.NoError(t, err)
	require.True(t, linked)

	require.NoError(t, Unshare(dest, live, []byte("old")))
	assertSame(t, live, dest, false)
	assertFile(t, dest, "old", 0o644)
	require.NoError(t, os.WriteFile(live, []byte("new"), 0o644))
	assertFile(t, dest, "old", 0o644)

	other := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(other, []byte("other"), 0o644))
	require.NoError(t, Unshare(other, live, []byte("old")))
	assertFile(t, other, "other", 0o644)
	require.NoError(t, Unshare(filepath.Join(dir, "missing"), live, nil))
}

func assertSame(t *testing.T, a, b string, same bool) {
	t.Helper()
	ai, err := os.Lstat(a)
	require.NoError(t, err)
	bi, err := os.Lstat(b)
	require.NoError(t, err)
	assert.Equal(t, same, os.SameFile(ai, bi), "%s and %s the same file", a, b)
}

func assertFile(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular(), path)
	assert.Equal(t, perm, fi.Mode().Perm(), path)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, content, string(got), path)
}

func temps(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	require.NoError(t, err)
	return m
}

// ReplaceFile's compare reads the file a piece at a time instead of whole
// (issue 26: the 10,000-task progress file is 0.5 MB): a replace of a 1 MB
// file allocates far less than the file.
func TestReplaceFileComparesInPieces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.md")
	old := bytes.Repeat([]byte("- task: migrate an endpoint\n"), 40_000) // 1.1 MB
	require.NoError(t, os.WriteFile(path, old, 0o644))
	next := append(bytes.Clone(old), "- one more\n"...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	require.NoError(t, ReplaceFile(path, old, next, 0o644))
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(len(old)/4), "bytes allocated by one replace")
	assertFile(t, path, string(next), 0o644)

	// and still refuses a file that changed, in size or in place
	for _, changed := range [][]byte{old[:len(old)-1], append(bytes.Clone(old[:len(old)-1]), 'X')} {
		require.NoError(t, os.WriteFile(path, changed, 0o644))
		assert.ErrorIs(t, ReplaceFile(path, old, next, 0o644), ErrChanged)
		assertFile(t, path, string(changed), 0o644)
	}
}
