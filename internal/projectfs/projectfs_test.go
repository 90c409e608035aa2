package projectfs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	t0       = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)
	key      = []byte("0123456789abcdef0123456789abcdef")
	otherKey = []byte("fedcba9876543210fedcba9876543210")
)

const stateFile = ".ccc-state.json"

// Backups keep distinct contents: writing the same content again and again
// adds no backup, so older versions are not pushed out of the ten kept; a
// content kept further back moves to the top, keeping newest-first order.
func TestBackupsKeepDistinctContents(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "f.md")
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	contents := func() []string {
		paths, err := Backups(root, "f.md")
		require.NoError(t, err)
		var out []string
		for _, p := range paths {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			out = append(out, string(data))
		}
		return out
	}
	i := 0
	backup := func(content string) string {
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		i++
		dest, err := Backup(root, path, at(i))
		require.NoError(t, err)
		return dest
	}
	for _, c := range []string{"v1", "v2", "v3"} {
		backup(c)
	}
	first := backup("v4")
	for range 12 { // twelve checkpoints of one unchanged file
		assert.Equal(t, first, backup("v4"), "the newest backup already holds it")
	}
	assert.Equal(t, []string{"v4", "v3", "v2", "v1"}, contents(), "older versions survive")

	moved := backup("v2")
	assert.Contains(t, moved, at(i).Format(StampLayout), "a kept content moves to the new stamp")
	assert.Equal(t, []string{"v2", "v4", "v3", "v1"}, contents(), "one copy of each, newest first")
}

// Every checkpoint stamps the files it writes: ten checkpoints that changed
// nothing else keep one backup of that version, and the older versions.
func TestBackupsIgnoreStamps(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, stateFile)
	var dests []string
	for i, c := range []string{
		`{"taskIndex": 1, "lastUpdatedAt": "2026-11-21T13:00:00Z"}`,
		`{"taskIndex": 2, "lastUpdatedAt": "2026-11-21T13:01:00Z"}`,
	} {
		require.NoError(t, os.WriteFile(path, []byte(c), 0o644))
		_, err := Backup(root, path, t0.Add(time.Duration(i)*time.Second))
		require.NoError(t, err)
	}
	for i := range 12 {
		c := fmt.Sprintf(`{"taskIndex": 3, "lastUpdatedAt": "2026-11-21T14:%02d:00.5+01:00", "ccc": {"checkpoint": {"at": "2026-11-21T14:%02d:00Z"}}}`, i, i)
		require.NoError(t, os.WriteFile(path, []byte(c), 0o644))
		dest, err := Backup(root, path, t0.Add(time.Duration(10+i)*time.Second))
		require.NoError(t, err)
		dests = append(dests, dest)
	}
	paths, err := Backups(root, stateFile)
	require.NoError(t, err)
	require.Len(t, paths, 3, "one backup per version, whatever its stamps")
	assert.Equal(t, dests[len(dests)-1], paths[0], "the newest stamps are kept")
	newest, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	assert.Contains(t, string(newest), "14:11:00", "the newest copy holds the last write")
	oldest, err := os.ReadFile(paths[2])
	require.NoError(t, err)
	assert.Contains(t, string(oldest), `"taskIndex": 1`)
}

func TestReplaceFileDetectsOutsideWrites(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.md")
	require.NoError(t, os.WriteFile(p, []byte("v1"), 0o640))

	require.NoError(t, ReplaceFile(p, []byte("v1"), []byte("v2"), 0o644))
	got, _ := os.ReadFile(p)
	assert.Equal(t, "v2", string(got))
	fi, _ := os.Stat(p)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "permissions of the replaced file are kept")

	err := ReplaceFile(p, []byte("v1"), []byte("v3"), 0o644)
	require.ErrorIs(t, err, ErrChanged)
	got, _ = os.ReadFile(p)
	assert.Equal(t, "v2", string(got), "nothing written on a mismatch")

	require.ErrorIs(t, ReplaceFile(filepath.Join(dir, "new"), []byte("x"), []byte("y"), 0o644), ErrChanged)
	require.NoError(t, ReplaceFile(filepath.Join(dir, "new"), nil, []byte("y"), 0o644))
	require.ErrorIs(t, ReplaceFile(p, nil, []byte("z"), 0o644), ErrChanged, "nil expect means the file must not exist")

	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		assert.NotContains(t, e.Name(), ".tmp-", "no temp file left behind")
	}
}

func TestLockHonoursContext(t *testing.T) {
	root := t.TempDir()
	unlock, err := Lock(context.Background(), root)
	require.NoError(t, err)
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	// flock locks are per open file description, so a second flock in the
	// same process still contends.
	_, err = Lock(ctx, root)
	require.Error(t, err)
}

func TestTag(t *testing.T) {
	tag := Tag(key, "a", "bc")
	assert.Len(t, tag, 64)
	assert.True(t, ValidTag(key, tag, "a", "bc"))
	for name, ok := range map[string]bool{
		"fields joined differently": ValidTag(key, tag, "ab", "c"),
		"one field":                 ValidTag(key, tag, "abc"),
		"another key":               ValidTag(otherKey, tag, "a", "bc"),
		"no key":                    ValidTag(nil, tag, "a", "bc"),
		"no tag":                    ValidTag(key, "", "a", "bc"),
		"a truncated tag":           ValidTag(key, tag[:16], "a", "bc"),
	} {
		assert.False(t, ok, name)
	}
}

func TestEnsureDirWritesItsGitignore(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, EnsureDir(root))
	data, err := os.ReadFile(filepath.Join(root, Dir, ".gitignore"))
	require.NoError(t, err)
	assert.Equal(t, "*\n", string(data))
	// One the user changed is left alone.
	require.NoError(t, os.WriteFile(filepath.Join(root, Dir, ".gitignore"), []byte("outbox/\n"), 0o644))
	require.NoError(t, EnsureDir(root))
	data, _ = os.ReadFile(filepath.Join(root, Dir, ".gitignore"))
	assert.True(t, strings.HasPrefix(string(data), "outbox/"))
	unlock, err := Lock(t.Context(), t.TempDir())
	require.NoError(t, err)
	unlock()
}

// A write whose directory is fsynced later fsyncs its file only; SyncDir
// is the directory's, counted like the others. Each replaces the file
// whole, and ReplaceFileDirLater still refuses a file changed meanwhile.
func TestDirLaterWritesFsyncTheFileOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	count := func(f func() error) int64 {
		before := Fsyncs()
		require.NoError(t, f())
		return Fsyncs() - before
	}
	assert.EqualValues(t, 2, count(func() error { return WriteFileAtomic(path, []byte("a"), 0o644) }), "file and directory")
	assert.EqualValues(t, 1, count(func() error { return WriteFileAtomicDirLater(path, []byte("b"), 0o644) }), "the file")
	assert.EqualValues(t, 1, count(func() error { return ReplaceFileDirLater(path, []byte("b"), []byte("c"), 0o644) }), "the file")
	assert.EqualValues(t, 1, count(func() error { return SyncDir(dir) }), "the directory")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "c", string(got))
	assert.ErrorIs(t, ReplaceFileDirLater(path, []byte("b"), []byte("d"), 0o644), ErrChanged)
}

// While PruneLater is held a backup returns before the copies it replaces
// are removed; done waits for the removals, so afterwards the newest
// KeepBackups are kept as without it.
func TestPruneLaterRemovesByDone(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "f.md")
	done := PruneLater()
	for i := range KeepBackups + 5 {
		require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf("version %d", i)), 0o644))
		_, err := Backup(root, path, t0.Add(time.Duration(i)*time.Minute))
		require.NoError(t, err)
	}
	require.NoError(t, done())
	paths, err := Backups(root, "f.md")
	require.NoError(t, err)
	require.Len(t, paths, KeepBackups)
	newest, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("version %d", KeepBackups+4), string(newest))
	oldest, err := os.ReadFile(paths[KeepBackups-1])
	require.NoError(t, err)
	assert.Equal(t, "version 5", string(oldest))
}
