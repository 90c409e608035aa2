package projectfs

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A temp file is removed when it is older than StaleTemp and no live
// process holds its flock; one that is held (a write in flight, however
// old its mtime) or young is kept.
func TestRemoveStaleTempKeepsHeldAndYoungFiles(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string, age time.Duration) string {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("torn"), 0o644))
		old := time.Now().Add(-age)
		require.NoError(t, os.Chtimes(p, old, old))
		return p
	}
	stale := mk(".ccc-state.json.tmp-1", 2*StaleTemp)
	staleDeep := mk(filepath.Join(Dir, "outbox", ".x.json.tmp-2"), 2*StaleTemp)
	young := mk(".ccc-state.json.tmp-3", StaleTemp/2)
	held := mk(".ccc-progress.md.tmp-4", time.Hour)
	other := mk("notes.tmp-5", time.Hour) // not ccc's: no leading dot

	f, err := os.Open(held)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB), "the live writer's lock")

	rep := RemoveStaleTemp(root)
	assert.ElementsMatch(t, []string{stale, staleDeep}, rep.Removed)
	assert.ElementsMatch(t, []string{young, held}, rep.Kept)
	assert.Empty(t, rep.Failed)
	for _, p := range []string{young, held, other} {
		assert.FileExists(t, p)
	}
	assert.NoFileExists(t, stale)
	assert.NoFileExists(t, staleDeep)
}

// The writer holds its temp file's flock until the rename: another
// process's RemoveStaleTemp cannot take it from under a slow write.
func TestReplaceHoldsItsTempFile(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "f")
	var seen []string
	err := replace(path, []byte("new"), 0o644, func() error {
		tmps, _ := filepath.Glob(filepath.Join(root, ".f.tmp-*"))
		require.Len(t, tmps, 1)
		old := time.Now().Add(-time.Hour)
		require.NoError(t, os.Chtimes(tmps[0], old, old))
		seen = RemoveStaleTemp(root).Kept
		return nil
	})
	require.NoError(t, err)
	assert.Len(t, seen, 1, "held by the write in flight, so kept")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new", string(data))
}

// A process killed in the middle of a write leaves its temp file; the next
// run removes it at once, young as it is, since the pid in its name is
// dead and no one holds it. (TestHangingWrite is that process.)
func TestRemoveStaleTempRemovesADeadWritersFileAtOnce(t *testing.T) {
	root := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHangingWrite$")
	cmd.Env = append(os.Environ(), "PROJECTFS_HANG_IN="+root)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "writing\n", line)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()

	tmps, _ := filepath.Glob(filepath.Join(root, "..ccc-state.json.tmp-*"))
	require.Len(t, tmps, 1, "the killed writer's leftover")
	rep := RemoveStaleTemp(root)
	assert.Equal(t, tmps, rep.Removed)
	assert.NoFileExists(t, tmps[0])
}

// TestHangingWrite is the writer TestRemoveStaleTempRemovesADeadWritersFileAtOnce
// kills: it stops between writing its temp file and the rename.
func TestHangingWrite(t *testing.T) {
	root := os.Getenv("PROJECTFS_HANG_IN")
	if root == "" {
		t.Skip("run by TestRemoveStaleTempRemovesADeadWritersFileAtOnce")
	}
	_ = replace(filepath.Join(root, ".ccc-state.json"), []byte(`{"torn`), 0o644, func() error {
		fmt.Println("writing")
		time.Sleep(time.Hour)
		return nil
	})
}

// A checkpoint sweeps what it writes: the root, .ccc and the folders
// directly in it, and the directories it names (its agent's history); the
// rest of .ccc's tree (other agents' histories, up to 100 records each) is
// left alone, and RemoveStaleTemp (ccc doctor) still sweeps it all.
func TestRemoveStaleTempNearSweepsWhatACheckpointWrites(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("torn"), 0o644))
		old := time.Now().Add(-2 * StaleTemp)
		require.NoError(t, os.Chtimes(p, old, old))
		return p
	}
	hist := filepath.Join(root, Dir, "checkpoints", "history")
	near := []string{
		mk(".ccc-state.json.tmp-1"),
		mk(filepath.Join(Dir, ".lock.tmp-2")),
		mk(filepath.Join(Dir, "backups", ".x.tmp-3")),
		mk(filepath.Join(Dir, "checkpoints", ".main.json.tmp-4")),
		mk(filepath.Join(Dir, "checkpoints", "history", "main", ".h.json.tmp-5")),
	}
	far := mk(filepath.Join(Dir, "checkpoints", "history", "other", ".h.json.tmp-6"))
	rep := RemoveStaleTempNear(root, filepath.Join(hist, "main"))
	assert.ElementsMatch(t, near, rep.Removed)
	assert.Empty(t, rep.Failed)
	assert.FileExists(t, far, "another agent's history is left to ccc doctor")

	assert.Equal(t, []string{far}, RemoveStaleTemp(root).Removed)
}
