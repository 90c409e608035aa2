package state

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

var t0 = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

const cccState = `{
  "linearIssue": "CIA-387",
  "phase": "execution",
  "taskIndex": 2,
  "totalTasks": 5,
  "gatesPassed": ["spec", "plan"],
  "awaitingGate": null,
  "custom": {"nested": {"deep": [1, 2.50, {"x": "<&>"}]}, "n": 12345678901234567890},
  "zeta": "unicode ✓ — ü",
  "activeTaskFiles": ["progress/parse.go", "a b.go"]
}
`

func TestRoundTripKeepsUnknownKeysAndOrder(t *testing.T) {
	st, err := Parse([]byte(cccState))
	require.NoError(t, err)
	assert.Equal(t, []string{"linearIssue", "phase", "taskIndex", "totalTasks", "gatesPassed", "awaitingGate", "custom", "zeta", "activeTaskFiles"}, st.Keys())

	require.NoError(t, st.Set("checkpointCommentId", "c-1"))
	require.NoError(t, st.Set("taskIndex", 3))
	out, err := st.Marshal()
	require.NoError(t, err)

	var before, after map[string]any
	require.NoError(t, json.Unmarshal([]byte(cccState), &before))
	require.NoError(t, json.Unmarshal(out, &after))
	before["checkpointCommentId"] = "c-1"
	before["taskIndex"] = float64(3)
	assert.Equal(t, before, after, "every key kept with its value")
	assert.Contains(t, string(out), `12345678901234567890`, "big numbers are not rounded through float64")
	assert.Contains(t, string(out), `"<&>"`, "no HTML escaping of user strings")
	assert.Contains(t, string(out), "\"taskIndex\": 3,\n  \"totalTasks\"", "a changed key keeps its place")
	assert.True(t, strings.HasSuffix(string(out), "\"checkpointCommentId\": \"c-1\"\n}\n"), "new keys go last")

	again, err := Parse(out)
	require.NoError(t, err)
	out2, err := again.Marshal()
	require.NoError(t, err)
	assert.Equal(t, string(out), string(out2), "marshal is stable")
}

func TestTypedAccessors(t *testing.T) {
	st, err := Parse([]byte(`{"activeIssue": "CIA-9", "taskIndex": 4, "phase": 7}`))
	require.NoError(t, err)
	assert.Equal(t, "CIA-9", st.Issue(), "activeIssue is read as an alias")
	n, ok := st.Int("taskIndex")
	assert.True(t, ok)
	assert.Equal(t, 4, n)
	assert.Equal(t, "", st.String("phase"), "a mistyped value reads as empty")
	assert.Nil(t, st.ActiveTaskFiles())

	require.NoError(t, st.SetIssue("CIA-10"))
	assert.Equal(t, "CIA-10", st.Issue(), "linearIssue wins over activeIssue")
	assert.Equal(t, "CIA-10", st.String("activeIssue"), "the alias follows, for hooks that still read it")

	st.Delete("phase")
	assert.False(t, st.Has("phase"))
	assert.Equal(t, []string{"activeIssue", "taskIndex", "linearIssue"}, st.Keys())
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in    string
		line, col   int
		msgContains string
	}{
		{"empty", "", 0, 0, "empty file"},
		{"blank", " \n\t\n", 0, 0, "empty file"},
		{"array", "[1,2]", 1, 2, "expected a JSON object, found an array"},
		{"string", `"x"`, 1, 4, "expected a JSON object"},
		{"syntax on line 3", "{\n  \"a\": 1,\n  \"b\": tru\n}", 3, 11, "invalid character"},
		{"truncated", "{\n  \"a\": [1,\n", 3, 1, "unexpected end"},
		{"trailing data", "{}\n{}", 2, 1, "after top-level value"},
		{"binary", "\x00\x01\x02", 1, 1, "invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			var ce *CorruptError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tt.line, ce.Line, "line")
			assert.Equal(t, tt.col, ce.Col, "column")
			assert.Contains(t, ce.Msg, tt.msgContains)
		})
	}
}

func TestLoadCorruptFallsBackToNewestValidBackup(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(Path(root), []byte(`{"linearIssue": "CIA-1"}`), 0o644))
	require.NoError(t, Save(root, mustParse(t, `{"linearIssue": "CIA-2"}`), t0))
	require.NoError(t, Save(root, mustParse(t, `{"linearIssue": "CIA-3"}`), t0.Add(time.Second)))
	// Backups now hold CIA-1 (oldest) and CIA-2; a corrupt backup is newest.
	bad := filepath.Join(root, projectfs.Dir, projectfs.BackupDir, FileName+"."+t0.Add(time.Hour).Format(projectfs.StampLayout))
	require.NoError(t, os.WriteFile(bad, []byte("{oops"), 0o600))

	corrupt := []byte("{\n  \"linearIssue\": \"CIA-3\",\n  oops\n}\n")
	require.NoError(t, os.WriteFile(Path(root), corrupt, 0o644))

	l, err := Load(root, t0.Add(2*time.Hour))
	require.NoError(t, err)
	require.NotNil(t, l.Corrupt)
	assert.Equal(t, Path(root), l.Corrupt.Path)
	assert.Equal(t, 3, l.Corrupt.Line)
	assert.Equal(t, "CIA-2", l.State.Issue(), "newest backup that parses")
	assert.Contains(t, l.From, FileName+".")
	kept, err := os.ReadFile(l.SetAside)
	require.NoError(t, err)
	assert.Equal(t, corrupt, kept, "the corrupt file is copied aside")

	err = Save(root, l.State, t0.Add(3*time.Hour))
	var ce *CorruptError
	require.ErrorAs(t, err, &ce, "a corrupt file is never overwritten")
	onDisk, _ := os.ReadFile(Path(root))
	assert.Equal(t, corrupt, onDisk)
}

func TestLoadCorruptWithoutBackupsGivesEmptyState(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(Path(root), []byte("not json"), 0o644))
	l, err := Load(root, t0)
	require.NoError(t, err)
	require.NotNil(t, l.Corrupt)
	assert.Empty(t, l.From)
	assert.Empty(t, l.State.Keys())
	assert.FileExists(t, l.SetAside)
}

func TestLoadMissingIsEmpty(t *testing.T) {
	l, err := Load(t.TempDir(), t0)
	require.NoError(t, err)
	assert.Nil(t, l.Corrupt)
	assert.Empty(t, l.State.Keys())
}

func TestBackupsRotateNewestTen(t *testing.T) {
	root := t.TempDir()
	for i := range 15 {
		require.NoError(t, Save(root, mustParse(t, fmt.Sprintf(`{"i": %d}`, i)), t0.Add(time.Duration(i)*time.Second)))
	}
	// Saves 2..15 each backed up the previous file: 14 backups made, 10 kept.
	paths, err := projectfs.Backups(root, FileName)
	require.NoError(t, err)
	require.Len(t, paths, projectfs.KeepBackups)
	assert.Contains(t, paths[0], t0.Add(14*time.Second).Format(projectfs.StampLayout), "newest first")
	assert.Contains(t, paths[9], t0.Add(5*time.Second).Format(projectfs.StampLayout))
}

func TestLockSerialisesReadModifyWrite(t *testing.T) {
	root := t.TempDir()
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := projectfs.Lock(context.Background(), root)
			if err != nil {
				errs <- err
				return
			}
			defer unlock()
			l, err := Load(root, time.Now())
			if err != nil {
				errs <- err
				return
			}
			c, _ := l.State.Int("count")
			_ = l.State.Set("count", c+1)
			errs <- Save(root, l.State, time.Now())
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	l, err := Load(root, time.Now())
	require.NoError(t, err)
	c, _ := l.State.Int("count")
	assert.Equal(t, n, c, "no update lost")
}

func TestCCCSection(t *testing.T) {
	st := mustParse(t, `{"ccc": {"future": {"x": 1}}, "phase": "execution"}`)
	_, ok := st.LastCheckpoint()
	assert.False(t, ok)
	cp := Checkpoint{At: t0, Agent: "main", Branch: "main", Head: "abc"}
	require.NoError(t, st.SetLastCheckpoint(cp))
	type ref struct{ ID string }
	require.NoError(t, st.SetRef("linear", "CIA-1", "main", ref{ID: "c1"}))
	require.NoError(t, st.SetRef("linear", "CIA-1", "worker-2", ref{ID: "c2"}))

	again := mustParse(t, string(must(st.Marshal())))
	got, ok := again.LastCheckpoint()
	require.True(t, ok)
	assert.Equal(t, cp, got)
	var r ref
	found, err := again.Ref("linear", "CIA-1", "worker-2", &r)
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, "c2", r.ID)
	found, err = again.Ref("linear", "CIA-2", "main", &r)
	require.NoError(t, err)
	assert.False(t, found)
	raw, _ := again.Raw("ccc")
	assert.Contains(t, string(raw), `"future"`, "unknown ccc keys survive")
	assert.Equal(t, []string{"ccc", "phase"}, again.Keys())
}

func mustParse(t *testing.T, s string) *State {
	t.Helper()
	st, err := Parse([]byte(s))
	require.NoError(t, err)
	return st
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// A state file over MaxSize is reported like a corrupt one, without being
// decoded (a 100 MB file once took 830 MB), copied aside or overwritten.
func TestLoadTooBigIsCorruptAndLeftAlone(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, Save(root, mustParse(t, `{"linearIssue": "CIA-1"}`), t0))
	require.NoError(t, Save(root, mustParse(t, `{"linearIssue": "CIA-2"}`), t0.Add(time.Second)))
	big := []byte(`{"pad": "` + strings.Repeat("x", MaxSize) + `"}`)
	require.NoError(t, os.WriteFile(Path(root), big, 0o644))

	_, err := Parse(big)
	var ce *CorruptError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, ce.Msg, "over the 1024 KB a state file may hold")

	l, err := Load(root, t0.Add(time.Hour))
	require.NoError(t, err)
	require.NotNil(t, l.Corrupt)
	assert.Contains(t, l.Corrupt.Error(), Path(root)+": ")
	assert.Contains(t, l.Corrupt.Msg, "a state file may hold")
	assert.Empty(t, l.SetAside, "no copy of a file too big to read")
	assert.Equal(t, "CIA-1", l.State.Issue(), "the newest backup stands in")

	err = Save(root, l.State, t0.Add(2*time.Hour))
	require.ErrorAs(t, err, &ce, "never overwritten")
	onDisk, _ := os.ReadFile(Path(root))
	assert.True(t, string(big) == string(onDisk), "the file is unchanged")

	// One byte less than the limit is read as usual.
	ok := []byte(`{"pad": "` + strings.Repeat("x", MaxSize-11) + `"}`)
	require.Equal(t, MaxSize, len(ok))
	_, err = Parse(ok)
	assert.NoError(t, err)
}

// A save over what the same run wrote makes no backup of it: the version
// before was backed up by that run's first save. Anything another writer
// put there in between is backed up as usual.
func TestSaveOverOwnWriteMakesNoBackup(t *testing.T) {
	root := t.TempDir()
	before := []byte(`{"linearIssue": "CIA-1"}`)
	require.NoError(t, os.WriteFile(Path(root), before, 0o644))
	ours, err := SaveOver(root, mustParse(t, `{"linearIssue": "CIA-2"}`), t0, nil)
	require.NoError(t, err)
	onDisk, _ := os.ReadFile(Path(root))
	require.Equal(t, onDisk, ours, "SaveOver returns what it wrote")

	_, err = SaveOver(root, mustParse(t, `{"linearIssue": "CIA-3"}`), t0.Add(time.Second), ours)
	require.NoError(t, err)
	paths, err := projectfs.Backups(root, FileName)
	require.NoError(t, err)
	require.Len(t, paths, 1, "the run's own write is not backed up")
	kept, _ := os.ReadFile(paths[0])
	assert.Equal(t, before, kept, "the backup is the file as it was before the run")

	// Another writer replaced the file after the run's save: its version is
	// backed up before it is overwritten.
	ours, err = SaveOver(root, mustParse(t, `{"linearIssue": "CIA-4"}`), t0.Add(2*time.Second), nil)
	require.NoError(t, err)
	theirs := []byte(`{"linearIssue": "CIA-5", "phase": "theirs"}`)
	require.NoError(t, os.WriteFile(Path(root), theirs, 0o644))
	_, err = SaveOver(root, mustParse(t, `{"linearIssue": "CIA-6"}`), t0.Add(3*time.Second), ours)
	require.NoError(t, err)
	paths, err = projectfs.Backups(root, FileName)
	require.NoError(t, err)
	kept, _ = os.ReadFile(paths[0])
	assert.Equal(t, theirs, kept, "another writer's version is backed up")
}
