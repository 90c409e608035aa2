//go:build unix

package records

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadDirLinks: a record that is a symlink is read where it leads
// inside the records directory's top, and refused, by name, where it leads
// out; a FIFO is refused, not waited on.
func TestReadDirLinks(t *testing.T) {
	t.Parallel()
	top, outside := t.TempDir(), t.TempDir()
	data, err := Encode(build(nil, Snapshot{Agent: "a", SessionID: "s"}, t0))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(top, "a.json"), data, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "b.json"), data, 0o644))
	require.NoError(t, os.Symlink("a.json", filepath.Join(top, "in.json")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "b.json"), filepath.Join(top, "out.json")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(top, "fifo.json"), 0o644))

	got, err := readDir(top, top, false, func(string, *Record) Kind { return KindCurrent })
	require.Len(t, got, 2)
	assert.Equal(t, filepath.Join(top, "a.json"), got[0].Path)
	assert.Equal(t, filepath.Join(top, "in.json"), got[1].Path)
	assert.Equal(t, "a", got[1].Agent)
	var paths []string
	for _, p := range Problems(err) {
		paths = append(paths, p.Path)
	}
	assert.Equal(t, []string{filepath.Join(top, "fifo.json"), filepath.Join(top, "out.json")}, paths)
	assert.ErrorContains(t, err, "is a FIFO, not a regular file")
	assert.ErrorContains(t, err, "resolves outside the project")
}
