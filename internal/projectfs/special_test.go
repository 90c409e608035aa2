package projectfs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// finishes fails the test when f does not return within a second: a read
// of a FIFO would block for ever, and the test must not.
func finishes(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatalf("%s still blocked after a second", what)
	}
}

// The newest backup, which a new backup is compared with, may be a file the
// repository planted under .ccc/backups with a stamp in the future: a FIFO
// (or a symlink to /dev/zero) there is skipped, never read.
func TestBackupSkipsASpecialNewestBackup(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, stateFile)
	require.NoError(t, os.WriteFile(path, []byte(`{"a": 1}`), 0o644))
	dir := filepath.Join(root, Dir, BackupDir)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, stateFile+".29991231T000000.000000000Z"), 0o644))
	var err error
	finishes(t, "Backup", func() { _, err = Backup(root, path, t0) })
	require.NoError(t, err)
}

// ReadOwnFile refuses every symlink, even one inside the root, and every
// special file, at once.
func TestReadOwnFile(t *testing.T) {
	root := t.TempDir()
	own := filepath.Join(root, "own.json")
	require.NoError(t, os.WriteFile(own, []byte("{}"), 0o600))
	data, err := ReadOwnFile(root, own, 10)
	require.NoError(t, err)
	assert.Equal(t, "{}", string(data))

	link := filepath.Join(root, "link.json")
	require.NoError(t, os.Symlink("own.json", link))
	_, err = ReadOwnFile(root, link, 10)
	assert.ErrorIs(t, err, ErrNotRegular)
	assert.EqualError(t, err, link+" is a symlink, not a regular file")

	fifo := filepath.Join(root, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	finishes(t, "ReadOwnFile", func() { _, err = ReadOwnFile(root, fifo, 10) })
	assert.ErrorIs(t, err, ErrNotRegular)

	zero := filepath.Join(root, "zero.json")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	_, err = ReadOwnFile("", zero, 10)
	assert.ErrorIs(t, err, ErrNotRegular)

	_, err = ReadOwnFile(root, own, 1)
	assert.ErrorIs(t, err, ErrTooLarge)
}
