//go:build unix

package projectfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Folder.Read keeps ReadOwnFile's guarantees for a file named beneath its
// directory: no symlink (inside or out), no FIFO waited on, no device, the
// limit, the path in every error; a missing file is fs.ErrNotExist.
func TestFolderRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(d, name, data string) {
		require.NoError(t, os.WriteFile(filepath.Join(d, name), []byte(data), 0o644))
	}
	write(dir, "a.json", "hello")
	write(dir, "exact.json", "0123456789")
	write(dir, "big.json", "0123456789x")
	write(outside, "secret", "outside")
	require.NoError(t, os.Symlink("a.json", filepath.Join(dir, "link-in.json")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link-out.json")))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.json")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub.json"), 0o755))

	d, err := OpenFolder(dir)
	require.NoError(t, err)
	defer d.Close()
	for _, tt := range []struct {
		name, want string
		kind       error
		problem    string
	}{
		{name: "a.json", want: "hello"},
		{name: "exact.json", want: "0123456789"},
		{name: "big.json", kind: ErrTooLarge, problem: "is over the 10 bytes limit"},
		{name: "link-in.json", kind: ErrNotRegular, problem: "is a symlink, not a regular file"},
		{name: "link-out.json", kind: ErrNotRegular, problem: "is a symlink, not a regular file"},
		{name: "zero.json", kind: ErrNotRegular, problem: "is a symlink, not a regular file"},
		{name: "fifo.json", kind: ErrNotRegular, problem: "is a FIFO, not a regular file"},
		{name: "sub.json", kind: ErrNotRegular, problem: "is a directory, not a regular file"},
		{name: "missing.json", kind: fs.ErrNotExist, problem: "no such file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []byte
			var err error
			finishes(t, "Folder.Read", func() { got, err = d.Read(tt.name, 10, nil) })
			if tt.kind == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.want, string(got))
				return
			}
			assert.ErrorIs(t, err, tt.kind)
			require.Error(t, err)
			assert.Contains(t, err.Error(), filepath.Join(dir, tt.name), "the error names the file")
			assert.Contains(t, err.Error(), tt.problem)
		})
	}
}

// Folder.Read reads into the buffer it is given when it has the room, so a
// caller that is done with one file reads the next into the same memory.
func TestFolderReadReusesTheBuffer(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), []byte(strings.Repeat("a", 100)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b"), []byte(strings.Repeat("b", 60)), 0o644))
	d, err := OpenFolder(dir)
	require.NoError(t, err)
	defer d.Close()
	first, err := d.Read("a", 1000, nil)
	require.NoError(t, err)
	want := strings.Repeat("b", 60)
	allocs := testing.AllocsPerRun(20, func() {
		got, err := d.Read("b", 1000, first)
		if err != nil || string(got) != want {
			t.Fatalf("%q, %v", got, err)
		}
	})
	assert.LessOrEqual(t, allocs, 1.0, "a read into a buffer with room allocates nothing but the name's C string")
}

// A file that holds more than its size said (one that grew after the
// stat; /proc's files say 0) is read to its end, through the limit.
func TestFolderReadPastTheStatSize(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	d, err := OpenFolder("/proc/self")
	require.NoError(t, err)
	defer d.Close()
	got, err := d.Read("status", 1<<20, nil)
	require.NoError(t, err)
	assert.Contains(t, string(got), "\nPid:\t")
	assert.True(t, strings.HasSuffix(string(got), "\n"), "read to its end")
	_, err = d.Read("status", 16, nil)
	assert.ErrorIs(t, err, ErrTooLarge)
}
