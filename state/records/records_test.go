package records

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

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/testutil"
)

func TestDir(t *testing.T) {
	ctx := context.Background()
	repo := seededRepo(t)
	wt := filepath.Join(filepath.Dir(repo), "wt-a")
	git(t, repo, "worktree", "add", "-q", "-b", "agent-a", wt)
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "sub"), 0o755))
	plain := tempDir(t)
	// A root given through a symlink (--dir, CCC_PROJECT_ROOT): the
	// records stay there, whether git or gitrepo's walk found the repository.
	link := filepath.Join(tempDir(t), "link")
	require.NoError(t, os.Symlink(repo, link))

	for _, tt := range []struct {
		name, root, want string
	}{
		{"outside git", plain, filepath.Join(plain, ".ccc", "checkpoints")},
		{"root through a symlink", link, filepath.Join(link, ".ccc", "checkpoints")},
		{"main worktree", repo, filepath.Join(repo, ".ccc", "checkpoints")},
		{"linked worktree shares the main one's", wt, filepath.Join(repo, ".ccc", "checkpoints")},
		{"subdirectory as the project root", filepath.Join(repo, "sub"), filepath.Join(repo, ".ccc", "checkpoints")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Dir(ctx, tt.root)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestDirRefusesOutside: the records directory is found through files the
// repository controls (.ccc, .git/commondir); one that leads elsewhere is
// refused, never written to.
func TestDirRefusesOutside(t *testing.T) {
	ctx := context.Background()
	elsewhere := seededRepo(t)

	linked := seededRepo(t)
	require.NoError(t, os.Symlink(tempDir(t), filepath.Join(linked, ".ccc")))
	_, err := Dir(ctx, linked)
	require.ErrorIs(t, err, projectfs.ErrOutside)
	assert.Contains(t, err.Error(), "resolves outside the project")

	plain := tempDir(t)
	require.NoError(t, os.MkdirAll(filepath.Join(plain, ".ccc"), 0o755))
	require.NoError(t, os.Symlink(tempDir(t), filepath.Join(plain, ".ccc", "checkpoints")))
	_, err = Dir(ctx, plain)
	require.ErrorIs(t, err, projectfs.ErrOutside)

	// A worktree-shaped .git whose commondir names another repository.
	hijacked := tempDir(t)
	gitdir := filepath.Join(hijacked, ".git")
	git(t, tempDir(t), "init", "-q", hijacked)
	writeFile(t, filepath.Join(gitdir, "commondir"), filepath.Join(elsewhere, ".git")+"\n")
	got, err := Dir(ctx, hijacked)
	require.Error(t, err, "got %s", got)
	assert.Contains(t, err.Error(), "is not a worktree of the repository at "+elsewhere)
}

// TestLockRefusesFoldersOut: every records writer holds Lock, which refuses
// a history or failed folder (or the lock) symlinked out of the project.
func TestLockRefusesFoldersOut(t *testing.T) {
	for _, sub := range []string{HistoryDir, FailedDir, lockFile} {
		root, outside := tempDir(t), tempDir(t)
		dir := filepath.Join(root, ".ccc", "checkpoints")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.Symlink(filepath.Join(outside, "x"), filepath.Join(dir, sub)))
		_, err := Lock(context.Background(), dir)
		require.ErrorIs(t, err, projectfs.ErrOutside, sub)
		_, err = Write(context.Background(), dir, snap("a", "CIA-1"), t0)
		require.ErrorIs(t, err, projectfs.ErrOutside, sub)
		assert.NoFileExists(t, filepath.Join(outside, "x"))
	}
}

// TestAllSkipsFoldersOut: a failed/ folder symlinked out of the records
// directory is not read: its files are errors, never records.
func TestAllSkipsFoldersOut(t *testing.T) {
	root, outside := tempDir(t), tempDir(t)
	dir := filepath.Join(root, ".ccc", "checkpoints")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	writeFile(t, filepath.Join(outside, "x.json"), `{"schemaVersion": 1, "id": "outside", "agent": "a"}`)
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, FailedDir)))
	all, err := All(dir)
	require.ErrorIs(t, err, projectfs.ErrOutside)
	assert.Empty(t, all)
}

// TestWriteFirst pins the record format: every key, in order, null for
// unset times.
func TestWriteFirst(t *testing.T) {
	dir := filepath.Join(tempDir(t), ".ccc", "checkpoints")
	s := snap("a", "CIA-1")
	s.SessionID = "session-1"
	s.Blockers = []string{"schema unknown (unblocked by: API docs)"}
	r, err := Write(context.Background(), dir, s, t0)
	require.NoError(t, err)
	assert.Equal(t, "a-CIA-1-20261121-134500", r.ID)
	assert.Equal(t, StatusBlocked, r.Status, "blockers and no status: blocked")
	data, err := os.ReadFile(CurrentPath(dir, "a"))
	require.NoError(t, err)
	testutil.Golden(t, filepath.Join("testdata", "record.golden"), data)
	assert.ElementsMatch(t, []string{"a.json", "lock"}, names(t, dir), "no history for a first record")
}

func TestWriteUpdates(t *testing.T) {
	ctx := context.Background()
	root := tempDir(t)
	dir := filepath.Join(root, ".ccc", "checkpoints")
	first, err := Write(ctx, dir, snap("a", "CIA-1"), t0)
	require.NoError(t, err)
	firstBytes, err := os.ReadFile(CurrentPath(dir, "a"))
	require.NoError(t, err)

	s := snap("a", "CIA-1")
	s.Completed = append(s.Completed, "write parser")
	s.Current, s.Remaining = "write tests", []string{"docs"}
	t1 := t0.Add(10 * time.Minute)
	second, err := Write(ctx, dir, s, t1)
	require.NoError(t, err)

	assert.Equal(t, "a-CIA-1-20261121-135500", second.ID)
	assert.Equal(t, t0, second.CreatedAt, "createdAt kept for the same issue")
	assert.Equal(t, t1, second.UpdatedAt)
	assert.Equal(t, t1, second.Heartbeat.LastBeat)
	assert.Equal(t, t1.Add(DefaultInterval), second.NextCheckpointExpected)
	assert.Equal(t, first.SessionID, second.SessionID, "the session id is kept when the snapshot has none")
	assert.Equal(t, Subtasks{Total: 4, Completed: 2, Percent: 50, Items: []Subtask{
		{ID: "read the spec", Status: "complete"}, {ID: "write parser", Status: "complete"},
		{ID: "write tests", Status: "in_progress"}, {ID: "docs", Status: "pending"},
	}}, second.Subtasks)

	hist, err := os.ReadFile(historyPath(dir, "a", first.ID))
	require.NoError(t, err, "the previous record is kept as history")
	assert.Equal(t, string(firstBytes), string(hist), "byte for byte")
	backups, err := projectfs.Backups(root, "a.json")
	require.NoError(t, err)
	assert.Len(t, backups, 1, "and as a rotating backup")

	s.Issue = "CIA-2"
	third, err := Write(ctx, dir, s, t1.Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, t1.Add(time.Minute), third.CreatedAt, "a new issue is new work")
}

func TestWriteUniqueIDsWithinOneSecond(t *testing.T) {
	dir := filepath.Join(tempDir(t), ".ccc", "checkpoints")
	seen := map[string]bool{}
	for range 4 {
		r, err := Write(context.Background(), dir, snap("a", "CIA-1"), t0)
		require.NoError(t, err)
		assert.False(t, seen[r.ID], "id %s reused", r.ID)
		seen[r.ID] = true
	}
	assert.Len(t, names(t, filepath.Join(dir, HistoryDir, "a")), 3, "no version overwrote another")
	all, err := All(dir)
	require.NoError(t, err)
	assert.Len(t, all, 4)
}

func TestWriteFinishes(t *testing.T) {
	for _, tt := range []struct {
		status  string
		archive func(dir string, r *Record) string
	}{
		{StatusComplete, func(dir string, r *Record) string { return filepath.Join(dir, "a-CIA-1-complete.json") }},
		{StatusFailed, func(dir string, r *Record) string { return filepath.Join(dir, FailedDir, r.ID+".json") }},
	} {
		t.Run(tt.status, func(t *testing.T) {
			dir := filepath.Join(tempDir(t), ".ccc", "checkpoints")
			_, err := Write(context.Background(), dir, snap("a", "CIA-1"), t0)
			require.NoError(t, err)
			s := snap("a", "CIA-1")
			s.Status, s.Current, s.Remaining = tt.status, "", nil
			r, err := Write(context.Background(), dir, s, t0.Add(time.Hour))
			require.NoError(t, err)
			assert.NoFileExists(t, CurrentPath(dir, "a"), "no current record once the work is over")
			got := readJSON(t, tt.archive(dir, r))
			assert.Equal(t, tt.status, got["status"])
			if tt.status == StatusComplete {
				assert.Equal(t, "2026-11-21T14:45:00Z", got["completedAt"])
				assert.EqualValues(t, 100, got["subtasks"].(map[string]any)["percent"])
			} else {
				assert.Nil(t, got["completedAt"])
			}
			current, err := List(dir)
			require.NoError(t, err)
			assert.Empty(t, current)
			_, err = Heartbeat(context.Background(), dir, "a", t0.Add(2*time.Hour))
			assert.ErrorIs(t, err, ErrNoRecord)
		})
	}
}

// TestWriteCompleteTwice keeps the earlier archive of the same issue: in
// history when it reads, set aside when it does not.
func TestWriteCompleteTwice(t *testing.T) {
	root := tempDir(t)
	dir := filepath.Join(root, ".ccc", "checkpoints")
	done := snap("a", "CIA-1")
	done.Status = StatusComplete
	first, err := Write(context.Background(), dir, done, t0)
	require.NoError(t, err)
	_, err = Write(context.Background(), dir, done, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.FileExists(t, historyPath(dir, "a", first.ID))

	writeFile(t, CompletePath(dir, "a", "CIA-1"), "not json")
	_, err = Write(context.Background(), dir, done, t0.Add(2*time.Hour))
	require.NoError(t, err)
	aside := names(t, filepath.Join(root, ".ccc", "backups"))
	require.Len(t, aside, 1)
	assert.True(t, strings.HasSuffix(aside[0], ".corrupt"), aside[0])
}

// TestWriteCarriesOver keeps what only an import or another tool knows
// across checkpoints of the same issue, and drops it for a new issue.
func TestWriteCarriesOver(t *testing.T) {
	dir := filepath.Join(tempDir(t), ".ccc", "checkpoints")
	writeFile(t, CurrentPath(dir, "a"), `{"schemaVersion":1,"id":"a-CIA-1-20261121-120000","agent":"a","issue":"CIA-1",
"status":"in_progress","updatedAt":"2026-11-21T12:00:00Z","createdAt":"2026-11-21T11:00:00Z",
"filesCreated":["x.md"],"acceptanceCriteriaMet":{"29_files_created":false},
"errors":[{"type":"dependency_missing","message":"no PDF","timestamp":"2026-11-21T11:30:00Z","blocking":false},
          {"type":"blocker","message":"schema unknown","timestamp":"2026-11-21T11:40:00Z","blocking":true}],
"subtasks":{"total":1,"completed":0,"failed":0,"percent":0,"items":[{"id":"write parser","status":"in_progress","output":"out/parser.go"}]},
"heartbeat":{"lastBeat":null,"intervalSeconds":300},"extra":{"agent_name":"Riley"},"review_scores":{"agent_4":null}}`)
	s := snap("a", "CIA-1")
	s.Blockers = []string{"schema unknown", "no credentials"}
	r, err := Write(context.Background(), dir, s, t0)
	require.NoError(t, err)
	assert.Equal(t, []string{"x.md"}, r.FilesCreated)
	assert.Equal(t, map[string]bool{"29_files_created": false}, r.AcceptanceCriteriaMet)
	assert.JSONEq(t, `"Riley"`, string(r.Extra["agent_name"]))
	assert.JSONEq(t, `{"agent_4":null}`, string(r.Extra["review_scores"]), "an unknown key read into extra is kept")
	assert.Equal(t, 300, r.Heartbeat.IntervalSeconds)
	assert.Equal(t, t0.Add(5*time.Minute), r.NextCheckpointExpected)
	assert.Equal(t, time.Date(2026, 11, 21, 11, 0, 0, 0, time.UTC), r.CreatedAt)
	out := "out/parser.go"
	assert.Equal(t, &out, r.Subtasks.Items[1].Output, "a task's output survives")
	assert.Equal(t, []Error{
		{Type: "dependency_missing", Message: "no PDF", Timestamp: time.Date(2026, 11, 21, 11, 30, 0, 0, time.UTC)},
		{Type: "blocker", Message: "schema unknown", Timestamp: time.Date(2026, 11, 21, 11, 40, 0, 0, time.UTC), Blocking: true},
		{Type: "blocker", Message: "no credentials", Timestamp: t0, Blocking: true},
	}, r.Errors, "a blocker keeps the time it was first seen")

	s.Issue, s.Blockers = "CIA-2", nil
	r, err = Write(context.Background(), dir, s, t0.Add(time.Minute))
	require.NoError(t, err)
	assert.Empty(t, r.FilesCreated)
	assert.Empty(t, r.AcceptanceCriteriaMet)
	assert.Empty(t, r.Extra)
	assert.Empty(t, r.Errors)
}

func TestWriteBadPrevious(t *testing.T) {
	t.Run("corrupt: set aside, then written", func(t *testing.T) {
		root := tempDir(t)
		dir := filepath.Join(root, ".ccc", "checkpoints")
		writeFile(t, CurrentPath(dir, "a"), `{"agent": "a", "status": `)
		r, err := Write(context.Background(), dir, snap("a", "CIA-1"), t0)
		require.NotNil(t, r)
		var ce *CorruptError
		require.ErrorAs(t, err, &ce)
		assert.Contains(t, err.Error(), "set aside as "+filepath.Join(root, ".ccc", "backups", "a.json."))
		aside := names(t, filepath.Join(root, ".ccc", "backups"))
		require.Len(t, aside, 1)
		kept, rerr := os.ReadFile(filepath.Join(root, ".ccc", "backups", aside[0]))
		require.NoError(t, rerr)
		assert.Equal(t, `{"agent": "a", "status": `, string(kept))
		got, lerr := Load(dir, "a")
		require.NoError(t, lerr)
		assert.Equal(t, r.ID, got.ID)
	})
	t.Run("newer schema: left alone", func(t *testing.T) {
		dir := filepath.Join(tempDir(t), ".ccc", "checkpoints")
		body := `{"schemaVersion": 2, "agent": "a", "status": "in_progress", "mood": "new"}`
		writeFile(t, CurrentPath(dir, "a"), body)
		r, err := Write(context.Background(), dir, snap("a", "CIA-1"), t0)
		assert.Nil(t, r)
		assert.ErrorIs(t, err, ErrSchema)
		data, _ := os.ReadFile(CurrentPath(dir, "a"))
		assert.Equal(t, body, string(data))
	})
	t.Run("a hand-edited agent field does not choose where history goes", func(t *testing.T) {
		root := tempDir(t)
		dir := filepath.Join(root, ".ccc", "checkpoints")
		writeFile(t, CurrentPath(dir, "a"), `{"schemaVersion":1,"id":"../../../escape","agent":"../../../escape","status":"in_progress"}`)
		_, err := Write(context.Background(), dir, snap("a", "CIA-1"), t0)
		require.NoError(t, err)
		hist := names(t, filepath.Join(dir, HistoryDir, "a"))
		assert.Equal(t, []string{"a-none-00010101-000000.json"}, hist)
		assert.Equal(t, []string{".ccc"}, names(t, root), "nothing written outside")
	})
	t.Run("bad names and statuses", func(t *testing.T) {
		dir := t.TempDir()
		for _, agent := range []string{"", "../x", ".hidden", "a/b"} {
			_, err := Write(context.Background(), dir, snap(agent, "CIA-1"), t0)
			assert.Error(t, err, agent)
		}
		s := snap("a", "CIA-1")
		s.Status = "done"
		_, err := Write(context.Background(), dir, s, t0)
		assert.ErrorContains(t, err, `status "done"`)
	})
}

func TestHeartbeat(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(tempDir(t), ".ccc", "checkpoints")
	_, err := Heartbeat(ctx, dir, "a", t0)
	require.ErrorIs(t, err, ErrNoRecord)
	assert.NoDirExists(t, dir, "a beat for no one creates nothing")

	_, err = Write(ctx, dir, snap("a", "CIA-1"), t0)
	require.NoError(t, err)
	before := readJSON(t, CurrentPath(dir, "a"))
	beat := t0.Add(20 * time.Minute)
	r, err := Heartbeat(ctx, dir, "a", beat)
	require.NoError(t, err)
	assert.Equal(t, beat, r.Heartbeat.LastBeat)
	after := readJSON(t, CurrentPath(dir, "a"))

	assert.Equal(t, "2026-11-21T14:05:00Z", after["heartbeat"].(map[string]any)["lastBeat"])
	assert.Equal(t, "2026-11-21T14:20:00Z", after["nextCheckpointExpected"])
	delete(before, "heartbeat")
	delete(after, "heartbeat")
	delete(before, "nextCheckpointExpected")
	delete(after, "nextCheckpointExpected")
	assert.Equal(t, before, after, "nothing else changes, updatedAt included")
	assert.NoDirExists(t, filepath.Join(dir, HistoryDir), "a beat is not a new version")
}

func TestDecode(t *testing.T) {
	const v1 = `"agent":"a","status":"in_progress","updatedAt":"2026-11-21T13:45:00Z"`
	for _, tt := range []struct {
		name, body string
		from       int
		err        string
		check      func(t *testing.T, r *Record)
	}{
		{name: "current version", body: `{"schemaVersion":1,` + v1 + `}`, from: 1},
		{name: "unknown top-level keys go to extra", body: `{"schemaVersion":1,` + v1 + `,"resumable":true,"extra":{"a":1}}`, from: 1,
			check: func(t *testing.T, r *Record) {
				assert.JSONEq(t, `true`, string(r.Extra["resumable"]))
				assert.JSONEq(t, `1`, string(r.Extra["a"]))
			}},
		{name: "null times are unset", body: `{"schemaVersion":1,"agent":"a","status":"blocked","updatedAt":null,"heartbeat":{"lastBeat":null}}`, from: 1,
			check: func(t *testing.T, r *Record) { assert.True(t, r.LastActivity().IsZero()) }},
		{name: "no schemaVersion is version 0, migrated", body: `{` + v1 + `,"note":"hand-written"}`, from: 0,
			check: func(t *testing.T, r *Record) {
				assert.Equal(t, SchemaVersion, r.SchemaVersion)
				assert.JSONEq(t, `"hand-written"`, string(r.Extra["note"]))
			}},
		{name: "newer version refused", body: `{"schemaVersion":7,` + v1 + `}`, err: "schemaVersion 7 is newer than this ccc reads (1): upgrade ccc"},
		{name: "negative version cannot be migrated", body: `{"schemaVersion":-1,` + v1 + `}`, err: "schemaVersion -1 cannot be migrated"},
		{name: "version not a number", body: `{"schemaVersion":"1",` + v1 + `}`, err: `schemaVersion is not an integer: "1"`},
		{name: "unknown nested field refused", body: `{"schemaVersion":1,` + v1 + `,"heartbeat":{"status":"alive"}}`, err: `unknown field "status"`},
		{name: "wrong type refused", body: `{"schemaVersion":1,` + v1 + `,"completedSteps":"all"}`, err: "not a checkpoint record"},
		{name: "no agent", body: `{"schemaVersion":1,"status":"in_progress"}`, err: "agent is missing"},
		{name: "unknown status", body: `{"schemaVersion":1,"agent":"a","status":"IN_PROGRESS"}`, err: `status "IN_PROGRESS" is not one of`},
		{name: "not an object", body: `[1,2]`, err: "not a JSON object"},
		{name: "null", body: `null`, err: "not a JSON object"},
		{name: "truncated", body: `{"agent":`, err: "not a JSON object"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, from, err := Decode("x.json", []byte(tt.body))
			if tt.err != "" {
				require.Error(t, err)
				assert.Nil(t, r, "never a half-read record")
				assert.Contains(t, err.Error(), "x.json")
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.from, from)
			assert.Equal(t, "a", r.Agent)
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

// TestLoadMigrates writes the migrated record back and keeps the original
// where rotation never prunes it.
func TestLoadMigrates(t *testing.T) {
	root := tempDir(t)
	dir := filepath.Join(root, ".ccc", "checkpoints")
	orig := `{"agent":"a","status":"in_progress","issue":"CIA-1","updatedAt":"2026-11-21T13:45:00Z","handWritten":true}`
	writeFile(t, CurrentPath(dir, "a"), orig)
	r, err := Load(dir, "a")
	require.NoError(t, err)
	assert.Equal(t, "CIA-1", r.Issue)
	got := readJSON(t, CurrentPath(dir, "a"))
	assert.EqualValues(t, 1, got["schemaVersion"])
	assert.Equal(t, map[string]any{"handWritten": true}, got["extra"])
	kept := names(t, filepath.Join(root, ".ccc", "backups"))
	require.Len(t, kept, 1)
	assert.True(t, strings.HasPrefix(kept[0], "a.json.schema0."), kept[0])
	data, err := os.ReadFile(filepath.Join(root, ".ccc", "backups", kept[0]))
	require.NoError(t, err)
	assert.Equal(t, orig, string(data))
	for range KeepBackupsPlusOne() {
		_, err := Write(context.Background(), dir, snap("a", "CIA-1"), t0)
		require.NoError(t, err)
	}
	assert.FileExists(t, filepath.Join(root, ".ccc", "backups", kept[0]), "not pruned with the rotating backups")

	_, err = Load(dir, "nobody")
	assert.ErrorIs(t, err, ErrNoRecord)
}

// KeepBackupsPlusOne is enough writes to rotate every backup out.
func KeepBackupsPlusOne() []struct{} { return make([]struct{}, projectfs.KeepBackups+1) }

func TestAssess(t *testing.T) {
	th := DefaultThresholds()
	at := func(update, beat time.Duration) *Record {
		r := &Record{Agent: "a", Status: StatusInProgress}
		if update >= 0 {
			r.UpdatedAt = t0.Add(-update)
		}
		if beat >= 0 {
			r.Heartbeat.LastBeat = t0.Add(-beat)
		}
		return r
	}
	for _, tt := range []struct {
		name string
		r    *Record
		want Level
		idle time.Duration
	}{
		{"fresh", at(time.Minute, -1), Active, time.Minute},
		{"exactly at the warning threshold", at(30*time.Minute, -1), Active, 30 * time.Minute},
		{"past warning", at(31*time.Minute, -1), Warning, 31 * time.Minute},
		{"exactly at the stale threshold", at(time.Hour, -1), Warning, time.Hour},
		{"past stale", at(61*time.Minute, -1), Stale, 61 * time.Minute},
		{"an old checkpoint with a recent beat is alive", at(3*time.Hour, 2*time.Minute), Active, 2 * time.Minute},
		{"a recent checkpoint with an old beat is alive", at(2*time.Minute, 3*time.Hour), Active, 2 * time.Minute},
		{"from the future (clock skew)", &Record{Status: StatusBlocked, UpdatedAt: t0.Add(10 * time.Minute)}, Active, 0},
		{"no timestamp at all", at(-1, -1), Stale, 0},
		{"complete: no liveness", &Record{Status: StatusComplete, UpdatedAt: t0.Add(-48 * time.Hour)}, "", 0},
		{"failed: no liveness", &Record{Status: StatusFailed}, "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := Assess(tt.r, t0, th, nil)
			assert.Equal(t, tt.want, h.Level)
			assert.Equal(t, tt.idle, h.Idle)
			assert.False(t, h.Drifted, "no worktrees, no drift")
		})
	}
	custom := Thresholds{WarnAfter: 5 * time.Minute, StaleAfter: 10 * time.Minute}
	assert.Equal(t, Stale, Assess(at(11*time.Minute, -1), t0, custom, nil).Level)
}

// TestDrift uses a repository with a second worktree, as parallel agents
// have: each agent's branch is found in whichever worktree has it out.
func TestDrift(t *testing.T) {
	ctx := context.Background()
	repo := seededRepo(t)
	wt := filepath.Join(filepath.Dir(repo), "wt-b")
	git(t, repo, "worktree", "add", "-q", "-b", "agent-b", wt)
	mainHead := trim(git(t, repo, "rev-parse", "HEAD"))
	bHead := commit(t, wt, "b works")
	wts, err := Worktrees(ctx, wt)
	require.NoError(t, err)
	require.Len(t, wts, 2)
	assert.Equal(t, Worktree{Path: repo, Head: mainHead, Branch: "main"}, wts[0], "main first")
	assert.Equal(t, Worktree{Path: wt, Head: bHead, Branch: "agent-b"}, wts[1])

	rec := func(branch, head string) *Record {
		return &Record{Agent: "x", Status: StatusInProgress, UpdatedAt: t0, Branch: branch, Head: head}
	}
	for _, tt := range []struct {
		name string
		r    *Record
		want string // "" no drift
	}{
		{"main as recorded", rec("main", mainHead), ""},
		{"the other worktree's branch as recorded", rec("agent-b", bHead), ""},
		{"HEAD moved on the branch", rec("agent-b", mainHead), "HEAD of agent-b moved since the record: " + mainHead[:7] + " → " + bHead[:7]},
		{"branch no longer checked out", rec("gone", mainHead), "branch gone is no longer checked out in any worktree"},
		{"detached, still out", rec("", bHead), ""},
		{"detached, gone", rec("", strings.Repeat("2", 40)), "detached HEAD 2222222 is no longer checked out in any worktree"},
		{"no git data recorded", rec("", ""), ""},
		{"branch only (unborn when recorded)", rec("main", ""), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := Assess(tt.r, t0, DefaultThresholds(), wts)
			assert.Equal(t, tt.want != "", h.Drifted)
			assert.Equal(t, tt.want, h.Drift)
			assert.Equal(t, Active, h.Level, "drift is apart from liveness")
		})
	}

	out, err := Worktrees(ctx, tempDir(t))
	require.NoError(t, err)
	assert.Nil(t, out, "outside git: no worktrees, no error")
}

func TestLoadThresholds(t *testing.T) {
	for _, tt := range []struct {
		name, yaml string
		want       Thresholds
		err        string
	}{
		{"no file", "", DefaultThresholds(), ""},
		{"no agents section", "checkpoint:\n  timeout: 10s\n", DefaultThresholds(), ""},
		{"both", "agents:\n  warn_after: 10m\n  stale_after: 2h\n", Thresholds{10 * time.Minute, 2 * time.Hour}, ""},
		{"days and bare seconds", "agents:\n  warn_after: 600\n  stale_after: 1d\n", Thresholds{10 * time.Minute, 24 * time.Hour}, ""},
		{"one of them", "agents:\n  stale_after: 90m\n", Thresholds{30 * time.Minute, 90 * time.Minute}, ""},
		{"not a duration", "agents:\n  warn_after: soon\n", DefaultThresholds(), `:2: agents.warn_after: "soon" is not a duration`},
		{"zero", "agents:\n  stale_after: 0s\n", DefaultThresholds(), "agents.stale_after"},
		{"a list", "agents:\n  stale_after: [1h]\n", DefaultThresholds(), "agents.stale_after"},
		{"stale before warning", "agents:\n  warn_after: 2h\n", DefaultThresholds(), "agents.stale_after (1h0m0s) must be longer than agents.warn_after (2h0m0s)"},
		{"broken YAML", "agents: [\n", DefaultThresholds(), "preferences:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if tt.yaml != "" {
				writeFile(t, filepath.Join(root, ".ccc-preferences.yaml"), tt.yaml)
			}
			p := config.Settings{Env: config.Env{ConfigDir: t.TempDir()}}.Project(root)
			got, err := ThresholdsOf(p.Prefs.Agents), p.Problems.Agents
			assert.Equal(t, tt.want, got)
			if tt.err == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tt.err)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour, "1d12h": 36 * time.Hour,
		"90m": 90 * time.Minute, "0": 0, "0d": 0, " 2h ": 2 * time.Hour,
	} {
		got, err := ParseDuration(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "7", "d", "-1d", "7days", "1.5d", "-3h", "soon"} {
		_, err := ParseDuration(in)
		assert.ErrorContains(t, err, "is not a duration", in)
	}
}

func TestTakeOver(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(tempDir(t), ".ccc", "checkpoints")
	s := snap("c", "CIA-3")
	s.Blockers = []string{"stuck"}
	old, err := Write(ctx, dir, s, t0)
	require.NoError(t, err)
	later := t0.Add(2 * time.Hour)

	tk, err := TakeOver(ctx, dir, "c", "d", later)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, fmt.Sprintf("c_crashed_%d.json", later.Unix())), tk.CrashedPath)
	assert.NoFileExists(t, CurrentPath(dir, "c"))
	crashed := readJSON(t, tk.CrashedPath)
	assert.Equal(t, old.ID, crashed["id"], "the old record, untouched")
	assert.Equal(t, old.ResumeInstructions, tk.Old.ResumeInstructions)

	n, err := Load(dir, "d")
	require.NoError(t, err)
	assert.Equal(t, "d", n.Agent)
	assert.Equal(t, "d-CIA-3-20261121-154500", n.ID)
	assert.NotEqual(t, old.SessionID, n.SessionID, "a new session")
	assert.Equal(t, StatusInProgress, n.Status)
	assert.Equal(t, later, n.CreatedAt)
	assert.Equal(t, later, n.UpdatedAt)
	assert.Equal(t, later, n.Heartbeat.LastBeat)
	for _, f := range []struct{ got, want any }{
		{n.Issue, old.Issue}, {n.CurrentStep, old.CurrentStep}, {n.CompletedSteps, old.CompletedSteps},
		{n.NextSteps, old.NextSteps}, {n.Subtasks, old.Subtasks}, {n.FilesModified, old.FilesModified},
		{n.ResumeInstructions, old.ResumeInstructions}, {n.Phase, old.Phase},
	} {
		assert.Equal(t, f.want, f.got, "same issue and tasks")
	}

	top, err := Top(dir)
	require.NoError(t, err)
	kinds := map[string]Kind{}
	for _, s := range top {
		kinds[filepath.Base(s.Path)] = s.Kind
	}
	assert.Equal(t, map[string]Kind{filepath.Base(tk.CrashedPath): KindCrashed, "d.json": KindCurrent}, kinds)

	_, err = TakeOver(ctx, dir, "c", "", later)
	assert.ErrorIs(t, err, ErrNoRecord, "c has nothing left to take over")
	_, err = Write(ctx, dir, snap("e", "CIA-5"), later)
	require.NoError(t, err)
	_, err = TakeOver(ctx, dir, "d", "e", later)
	assert.ErrorContains(t, err, "e already has a record of its own")
	assert.FileExists(t, CurrentPath(dir, "d"), "a refused takeover changes nothing")

	same, err := TakeOver(ctx, dir, "d", "", later.Add(time.Second))
	require.NoError(t, err)
	assert.Equal(t, "d", same.New.Agent, "without --as the agent takes over its own work")
	assert.NotEqual(t, same.Old.ID, same.New.ID)
}

func TestCleanup(t *testing.T) {
	ctx := context.Background()
	now := t0.Add(40 * 24 * time.Hour)
	setup := func(t *testing.T) string {
		dir := filepath.Join(tempDir(t), ".ccc", "checkpoints")
		rec := func(path, agent, status string, age time.Duration) {
			r := &Record{SchemaVersion: 1, ID: strings.TrimSuffix(filepath.Base(path), ".json"), Agent: agent, Status: status, UpdatedAt: now.Add(-age)}
			data, err := Encode(r)
			require.NoError(t, err)
			writeFile(t, filepath.Join(dir, path), string(data))
		}
		rec("fresh.json", "fresh", StatusInProgress, time.Hour)
		rec("old.json", "old", StatusInProgress, 8*24*time.Hour)
		rec("x-CIA-1-complete.json", "x", StatusComplete, time.Minute)
		rec("y_crashed_1.json", "y", StatusBlocked, 9*24*time.Hour)
		rec("y_crashed_2.json", "y", StatusBlocked, 6*24*time.Hour)
		rec("history/fresh/fresh-CIA-1-20261101-000000.json", "fresh", StatusInProgress, 10*24*time.Hour)
		rec("history/fresh/fresh-CIA-1-20261120-000000.json", "fresh", StatusInProgress, 2*24*time.Hour)
		rec("z-stray.json", "z", StatusFailed, time.Hour)
		rec("failed/f-old.json", "f", StatusFailed, 31*24*time.Hour)
		rec("failed/f-new.json", "f", StatusFailed, 29*24*time.Hour)
		writeFile(t, filepath.Join(dir, "broken.json"), "{")
		return dir
	}
	want := []string{
		"remove failed/f-old.json (failed, not updated for over 30d)",
		"remove history/fresh/fresh-CIA-1-20261101-000000.json (not updated for over 7d)",
		"remove old.json (not updated for over 7d)",
		"remove x-CIA-1-complete.json (completed archive)",
		"remove y_crashed_1.json (not updated for over 7d)",
		"move z-stray.json → failed/z-stray.json (failed record)",
	}
	describe := func(dir string, actions []Action) []string {
		var out []string
		for _, a := range actions {
			rel, _ := filepath.Rel(dir, a.Path)
			line := a.Op + " " + filepath.ToSlash(rel)
			if a.To != "" {
				to, _ := filepath.Rel(dir, a.To)
				line += " → " + filepath.ToSlash(to)
			}
			out = append(out, line+" ("+a.Reason+")")
		}
		return out
	}
	p := Policy{MaxAge: DefaultMaxAge, FailedMaxAge: DefaultFailedMaxAge}

	t.Run("dry run changes nothing", func(t *testing.T) {
		dir := setup(t)
		before, _ := All(dir)
		actions, err := Cleanup(ctx, dir, p, now, true)
		assert.ErrorContains(t, err, "broken.json", "an unreadable file is reported")
		assert.Equal(t, want, describe(dir, actions))
		after, _ := All(dir)
		assert.Equal(t, len(before), len(after))
		assert.NoFileExists(t, filepath.Join(dir, "lock"), "not even the lock")
	})
	t.Run("real run", func(t *testing.T) {
		dir := setup(t)
		actions, err := Cleanup(ctx, dir, p, now, false)
		assert.ErrorContains(t, err, "broken.json")
		assert.Equal(t, want, describe(dir, actions))
		assert.ElementsMatch(t, []string{"fresh.json", "y_crashed_2.json", "broken.json", "history", "failed", "lock"}, names(t, dir))
		assert.ElementsMatch(t, []string{"f-new.json", "z-stray.json"}, names(t, filepath.Join(dir, FailedDir)))
		assert.Equal(t, []string{"fresh-CIA-1-20261120-000000.json"}, names(t, filepath.Join(dir, HistoryDir, "fresh")))
		again, err := Cleanup(ctx, dir, p, now, false)
		assert.ErrorContains(t, err, "broken.json")
		assert.Empty(t, again, "idempotent")
	})
	t.Run("no directory", func(t *testing.T) {
		actions, err := Cleanup(ctx, filepath.Join(t.TempDir(), "none"), p, now, false)
		assert.NoError(t, err)
		assert.Empty(t, actions)
	})
}

func TestFind(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(tempDir(t), ".ccc", "checkpoints")
	first, err := Write(ctx, dir, snap("a", "CIA-1"), t0)
	require.NoError(t, err)
	second, err := Write(ctx, dir, snap("a", "CIA-1"), t0.Add(time.Minute))
	require.NoError(t, err)

	got, err := Find(dir, first.ID)
	require.NoError(t, err)
	assert.Equal(t, KindHistory, got.Kind)
	got, err = Find(dir, second.ID)
	require.NoError(t, err)
	assert.Equal(t, KindCurrent, got.Kind)
	got, err = Find(dir, "a")
	require.NoError(t, err)
	assert.Equal(t, second.ID, got.ID, "an agent's name finds its current record")
	_, err = Find(dir, "nope")
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestDays(t *testing.T) {
	for d, want := range map[time.Duration]string{
		7 * 24 * time.Hour: "7d", 36 * time.Hour: "1d12h", 90 * time.Minute: "1h30m", 2 * time.Hour: "2h",
		24*time.Hour + 90*time.Second: "1d1m30s", 0: "0s",
	} {
		assert.Equal(t, want, days(d), d.String())
	}
}

func TestPruneHistory(t *testing.T) {
	dir := t.TempDir()
	for i := range KeepHistory + 5 {
		// The issue has dashes and the minutes run out of order with the
		// names' lexical order of issue parts: only the stamp decides.
		name := fmt.Sprintf("a-CIA-%d-20261121-%02d%02d00.json", 999-i, i/60, i%60)
		writeFile(t, filepath.Join(dir, name), "{}")
	}
	writeFile(t, filepath.Join(dir, "a-CIA-1-20261121-000000-2.json"), "{}")
	require.NoError(t, pruneHistory(dir))
	left := names(t, dir)
	assert.Len(t, left, KeepHistory)
	assert.NotContains(t, left, "a-CIA-999-20261121-000000.json", "the oldest went")
	assert.NotContains(t, left, "a-CIA-1-20261121-000000-2.json")
	assert.Contains(t, left, fmt.Sprintf("a-CIA-%d-20261121-014400.json", 999-(KeepHistory+4)), "the newest stayed")
}

// TestConcurrentWriters runs checkpoints and heartbeats of several agents at
// once: every file stays a whole record and every agent ends with one.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(tempDir(t), ".ccc", "checkpoints")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 4 {
		agent := fmt.Sprintf("agent-%d", i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				now := t0.Add(time.Duration(j) * time.Second)
				if _, err := Write(ctx, dir, snap(agent, "CIA-1"), now); err != nil {
					errs <- err
				}
				if _, err := Heartbeat(ctx, dir, agent, now); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	cur, err := List(dir)
	require.NoError(t, err)
	assert.Len(t, cur, 4)
	all, err := All(dir)
	require.NoError(t, err, "no torn file anywhere")
	assert.Len(t, all, 20)
}

func TestEncodeNulls(t *testing.T) {
	data, err := Encode(&Record{Agent: "a", Status: StatusInProgress})
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &m))
	for k, want := range map[string]string{
		"createdAt": "null", "updatedAt": "null", "completedAt": "null", "nextCheckpointExpected": "null",
		"completedSteps": "[]", "errors": "[]", "acceptanceCriteriaMet": "{}", "extra": "{}",
		"heartbeat": `{"lastBeat":null,"intervalSeconds":0}`,
	} {
		assert.JSONEq(t, want, string(m[k]), k)
	}
	assert.Len(t, m, len(knownKeys()), "every key, always")
	r, _, err := Decode("x", data)
	require.NoError(t, err)
	assert.True(t, r.UpdatedAt.IsZero())

	data, err = Encode(&Record{Agent: "a", Status: StatusBlocked, ResumeInstructions: "run <make> && go test",
		Errors: []Error{{Type: "blocker", Message: "a -> b & c"}}})
	require.NoError(t, err)
	assert.Contains(t, string(data), `"resumeInstructions": "run <make> && go test"`, "readable, not \\u0026")
	assert.Contains(t, string(data), `"message": "a -> b & c"`)
}

// A record over the size ccc reads records at is never written: a later
// checkpoint, `ccc status` and `ccc go` would refuse it. Every task is in a
// record twice, so a progress file of some 20,000 tasks or more makes one;
// the record already there stays, and the error says why (issue 26).
func TestRecordTooLargeToReadIsNotWritten(t *testing.T) {
	dir := t.TempDir()
	s := Snapshot{Agent: "main", Issue: "CIA-1", Status: StatusInProgress}
	_, err := Write(context.Background(), dir, s, t0)
	require.NoError(t, err)
	before, err := os.ReadFile(CurrentPath(dir, "main"))
	require.NoError(t, err)

	for i := range 40_000 {
		s.Remaining = append(s.Remaining, fmt.Sprintf("task %d: migrate endpoint /api/v1/resource%d", i, i))
	}
	_, err = Write(context.Background(), dir, s, t0.Add(time.Minute))
	require.ErrorContains(t, err, "and a record may hold 4 MB (the progress file keeps every task)")
	after, err := os.ReadFile(CurrentPath(dir, "main"))
	require.NoError(t, err)
	assert.Equal(t, before, after, "the record already there stays")
}
