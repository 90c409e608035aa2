package projectfs_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

func TestReadProjectFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	write := func(dir, name, data string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
		return p
	}
	link := func(target, name string) {
		require.NoError(t, os.Symlink(target, filepath.Join(root, name)))
	}
	write(root, "regular", "hello")
	write(root, "sub/inner", "inner")
	write(outside, "secret", "outside")
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	link("sub/inner", "link-in")
	link(filepath.Join(outside, "secret"), "link-out")
	link("../"+filepath.Base(outside)+"/secret", "link-out-relative")
	link("/dev/zero", "zero")
	link(outside, "dir-out")
	link(filepath.Join(outside, "missing"), "dangling-out")
	write(root, "big", strings.Repeat("x", 11))

	tests := []struct {
		name, path string
		want       string
		kind       error
		problem    string
	}{
		{name: "regular file", path: "regular", want: "hello"},
		{name: "symlink inside the project", path: "link-in", want: "inner"},
		{name: "exactly the limit", path: "sub/inner", want: "inner"},
		{name: "FIFO", path: "fifo", kind: projectfs.ErrNotRegular, problem: "is a FIFO, not a regular file"},
		{name: "directory", path: "sub", kind: projectfs.ErrNotRegular, problem: "is a directory, not a regular file"},
		{name: "symlink to /dev/zero", path: "zero", kind: projectfs.ErrOutside, problem: "resolves outside the project (to /dev/zero)"},
		{name: "symlink out", path: "link-out", kind: projectfs.ErrOutside, problem: "resolves outside the project"},
		{name: "relative symlink out", path: "link-out-relative", kind: projectfs.ErrOutside, problem: "resolves outside the project"},
		{name: "directory symlinked out", path: "dir-out/secret", kind: projectfs.ErrOutside, problem: "resolves outside the project"},
		{name: "dangling symlink out", path: "dangling-out", kind: projectfs.ErrOutside, problem: "resolves outside the project"},
		{name: "dot-dot out", path: "../" + filepath.Base(outside) + "/secret", kind: projectfs.ErrOutside, problem: "is outside the project"},
		{name: "over the limit", path: "big", kind: projectfs.ErrTooLarge, problem: "is over the 10 bytes limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(root, tt.path)
			done := make(chan struct{})
			var data []byte
			var err error
			go func() {
				defer close(done)
				data, err = projectfs.ReadProjectFile(root, path, 10)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ReadProjectFile blocked")
			}
			if tt.kind == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.want, string(data))
				return
			}
			require.ErrorIs(t, err, tt.kind)
			assert.Nil(t, data)
			assert.Contains(t, err.Error(), path+" "+tt.problem)
		})
	}

	t.Run("missing file", func(t *testing.T) {
		t.Parallel()
		_, err := projectfs.ReadProjectFile(root, filepath.Join(root, "nothing"), 10)
		assert.True(t, os.IsNotExist(err), "%v", err)
		assert.ErrorIs(t, err, fs.ErrNotExist)
	})
	t.Run("no root: no confinement, still no device", func(t *testing.T) {
		t.Parallel()
		data, err := projectfs.ReadProjectFile("", filepath.Join(outside, "secret"), 10)
		require.NoError(t, err)
		assert.Equal(t, "outside", string(data))
		_, err = projectfs.ReadProjectFile("", "/dev/zero", 10)
		assert.ErrorIs(t, err, projectfs.ErrNotRegular)
		assert.EqualError(t, err, "/dev/zero is a device, not a regular file")
	})
}

func TestProjectDirRefusesSymlinkedCCC(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	dir, err := projectfs.ProjectDir(root, "backups")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, ".ccc", "backups"), dir)

	require.NoError(t, os.Symlink(outside, filepath.Join(root, ".ccc")))
	_, err = projectfs.ProjectDir(root, "backups")
	assert.ErrorIs(t, err, projectfs.ErrOutside)
	assert.True(t, errors.Is(err, projectfs.ErrOutside))
}
