package linearagent

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The memo lives under .ccc, which a repository can commit: a memo planted
// as a FIFO or a symlink to /dev/zero is a fresh memo at once (before: the
// hook hung, or read until out of memory), and the next save replaces it.
func TestPlantedMemoIsAFreshOne(t *testing.T) {
	t.Parallel()
	for name, plant := range map[string]func(path string) error{
		"fifo":      func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"/dev/zero": func(p string) error { return os.Symlink("/dev/zero", p) },
		"link out":  func(p string) error { return os.Symlink("/etc/hostname", p) },
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			path := memoPath(root, "CIA-5", "main")
			require.NotEmpty(t, path)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, plant(path))
			done := make(chan memo)
			go func() { done <- loadMemo(path, []byte("k"), "CIA-5", "main") }()
			select {
			case m := <-done:
				assert.Equal(t, memo{}, m)
			case <-time.After(time.Second):
				t.Fatal("loadMemo still blocked after a second")
			}
			require.NoError(t, saveMemo(path, []byte("k"), "CIA-5", "main", memo{Session: "s-1"}))
			assert.Equal(t, "s-1", loadMemo(path, []byte("k"), "CIA-5", "main").Session)
		})
	}
}
