package records

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeartbeatChangesOnlyItsTwoFields(t *testing.T) {
	dir := tempDir(t)
	// An imported record: no interval, and a key this version does not know
	// between two it knows.
	orig := `{
  "schemaVersion": 1,
  "id": "a-none-20261121-134500",
  "agent": "a",
  "zeta": {"kept": true},
  "sessionId": "s",
  "issue": "",
  "status": "in_progress",
  "phase": "",
  "currentStep": "",
  "completedSteps": [],
  "nextSteps": [],
  "subtasks": {"total": 0, "completed": 0, "failed": 0, "percent": 0, "items": []},
  "filesCreated": [],
  "filesModified": [],
  "errors": [],
  "acceptanceCriteriaMet": {},
  "resumeInstructions": "",
  "createdAt": "2026-11-21T13:45:00Z",
  "updatedAt": "2026-11-21T13:45:00Z",
  "completedAt": null,
  "heartbeat": {"lastBeat": null, "intervalSeconds": 0},
  "nextCheckpointExpected": null,
  "branch": "",
  "head": "",
  "extra": {}
}
`
	writeFile(t, CurrentPath(dir, "a"), orig)
	beat := t0.Add(5 * time.Minute)
	r, err := Heartbeat(context.Background(), dir, "a", beat)
	require.NoError(t, err)
	assert.Equal(t, beat.Add(DefaultInterval), r.NextCheckpointExpected, "computed with the default interval")

	after := readJSON(t, CurrentPath(dir, "a"))
	before := map[string]any{}
	require.NoError(t, jsonUnmarshal(orig, &before))
	assert.Equal(t, map[string]any{"lastBeat": "2026-11-21T13:50:00Z", "intervalSeconds": float64(0)}, after["heartbeat"],
		"the interval is not stored")
	assert.Equal(t, "2026-11-21T14:05:00Z", after["nextCheckpointExpected"])
	delete(after, "heartbeat")
	delete(after, "nextCheckpointExpected")
	delete(before, "heartbeat")
	delete(before, "nextCheckpointExpected")
	assert.Equal(t, before, after, "nothing else changes")
	data, err := os.ReadFile(CurrentPath(dir, "a"))
	require.NoError(t, err)
	s := string(data)
	assert.True(t, strings.Index(s, `"agent"`) < strings.Index(s, `"zeta"`) && strings.Index(s, `"zeta"`) < strings.Index(s, `"sessionId"`),
		"an unknown key stays where it was, not moved into extra:\n%s", s)
}

func TestPutKeepsTheReplacedRecordInHistory(t *testing.T) {
	dir := tempDir(t)
	ctx := context.Background()
	first, err := Write(ctx, dir, snap("migration", "CIA-1"), t0)
	require.NoError(t, err)

	imported := *first
	imported.Issue, imported.UpdatedAt = "T060", t0.Add(time.Hour)
	imported.ID = ID("migration", "T060", imported.UpdatedAt)
	path, err := Put(ctx, dir, &imported, t0.Add(2*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, CurrentPath(dir, "migration"), path)

	all, err := All(dir)
	require.NoError(t, err)
	var ids []string
	for _, s := range all {
		ids = append(ids, string(s.Kind)+" "+s.ID)
	}
	assert.ElementsMatch(t, []string{"current migration-T060-20261121-144500", "history " + first.ID}, ids)

	failed := imported
	failed.Status, failed.ID = StatusFailed, "migration-T060-20261121-150000"
	path, err = Put(ctx, dir, &failed, t0.Add(3*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, FailedDir, "migration-T060-20261121-150000.json"), path)
}

func TestRetireMovesTheRecordIntoHistory(t *testing.T) {
	dir := tempDir(t)
	ctx := context.Background()
	rec, err := Write(ctx, dir, snap("a", "CIA-1"), t0)
	require.NoError(t, err)
	kept, err := Retire(ctx, dir, "a", t0.Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, HistoryDir, "a", rec.ID+".json"), kept)
	assert.False(t, exists(CurrentPath(dir, "a")))
	s, err := Find(dir, rec.ID)
	require.NoError(t, err)
	assert.Equal(t, KindHistory, s.Kind)

	_, err = Retire(ctx, dir, "a", t0.Add(2*time.Minute))
	assert.ErrorIs(t, err, ErrNoRecord)
}

func TestWriteFailure(t *testing.T) {
	dir := tempDir(t)
	ctx := context.Background()
	_, err := Write(ctx, dir, snap("a", "CIA-1"), t0)
	require.NoError(t, err)
	s := snap("a", "CIA-1")
	s.Failures = []string{"the API was removed"}
	rec, err := Write(ctx, dir, s, t0.Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, StatusFailed, rec.Status)
	assert.Equal(t, []Error{{Type: "failure", Message: "the API was removed", Timestamp: t0.Add(time.Minute), Blocking: true}}, rec.Errors)
	assert.False(t, exists(CurrentPath(dir, "a")))
	assert.True(t, exists(filepath.Join(dir, FailedDir, rec.ID+".json")))
}

func TestID(t *testing.T) {
	at := time.Date(2026, 11, 21, 13, 45, 0, 0, time.FixedZone("X", 3600))
	assert.Equal(t, "a-none-20261121-124500", ID("a", "", at))
	assert.Equal(t, "a-feature_01-20261121-124500", ID("a", "feature/01", at))
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
