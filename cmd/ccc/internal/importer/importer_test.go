package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state/records"
)

var now = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

// golden is what one import produces, as the golden .json holds it; the
// progress document sits beside it as .md.
type golden struct {
	Format   Format          `json:"format"`
	Agent    string          `json:"agent"`
	Warnings []string        `json:"warnings"`
	Record   json.RawMessage `json:"record"`
}

// TestImportSeeds imports every seed's example file and compares the record
// and the progress document with golden files.
func TestImportSeeds(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		agent  string
		format Format
	}{
		{"seed000", "testdata/seed000/.claude/initiative.json", "", Initiative},
		{"seed000-agent-flag", "testdata/seed000/.claude/initiative.json", "planner", Initiative},
		{"seed000-sync", "testdata/seed000-sync/.claude/initiative.json", "", Initiative},
		{"seed001", "testdata/seed001/orchestrate_auth_system_20251003_184530.json", "", Workflow},
		{"seed002", "testdata/seed002/progress/checkpoints/migration-T060.json", "", Sitebuilder},
		{"seed002-start", "testdata/seed002/progress/checkpoints/migration-T060-start.json", "", Sitebuilder},
		{"seed002-blocked", "testdata/seed002/progress/checkpoints/migration-T060-blocked.json", "migration", Sitebuilder},
		{"seed002-complete", "testdata/seed002/progress/checkpoints/migration-T060-complete.json", "", Sitebuilder},
		{"seed003", "testdata/seed003/agent_checkpoints/primary.json", "ignored-when-the-file-names-one", AgentCheckpoint},
		{"seed003-waiting", "testdata/seed003-waiting/agent_checkpoints/secondary_b.json", "", AgentCheckpoint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(tt.path)
			require.NoError(t, err)
			im, err := Import(tt.path, data, Options{Agent: tt.agent, Now: now})
			require.NoError(t, err)
			assert.Equal(t, tt.format, im.Format)

			rec, err := im.RecordJSON()
			require.NoError(t, err)
			g := golden{Format: im.Format, Agent: im.Agent, Warnings: im.Warnings, Record: rec}
			if g.Warnings == nil {
				g.Warnings = []string{}
			}
			got, err := marshalIndent(g)
			require.NoError(t, err)
			md := im.Progress.Render()

			base := filepath.Join("testdata", "golden", tt.name)
			testutil.Golden(t, base+".json", got)
			testutil.Golden(t, base+".md", md)

			// The document must read back as what was built, and the record
			// must keep every key of ccc's records.
			back, err := progress.Parse(md)
			require.NoError(t, err)
			assert.Equal(t, im.Progress.TaskM(), back.TaskM())
			assert.Equal(t, im.Progress.Prompt(), back.Prompt())
			var keys map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(rec, &keys))
			for _, k := range recordKeys {
				assert.Contains(t, keys, k)
			}
			assert.Len(t, keys, len(recordKeys))
			back2, _, err := records.Decode(tt.path, rec)
			require.NoError(t, err, "records reads the record as it is")
			assert.Equal(t, im.Record.ID, back2.ID)
			require.Len(t, back2.Extra, len(im.Record.Extra))
			for k, v := range im.Record.Extra {
				assert.JSONEq(t, string(v), string(back2.Extra[k]), "extra %s", k)
			}
		})
	}
}

var recordKeys = []string{"schemaVersion", "id", "agent", "sessionId", "issue", "status", "phase",
	"currentStep", "completedSteps", "nextSteps", "subtasks", "filesCreated", "filesModified", "errors",
	"acceptanceCriteriaMet", "resumeInstructions", "createdAt", "updatedAt", "completedAt", "heartbeat",
	"nextCheckpointExpected", "branch", "head", "extra"}

// TestImportFacts pins the conversions the issue names, apart from the
// golden files, so a careless -update cannot hide a regression.
func TestImportFacts(t *testing.T) {
	load := func(t *testing.T, path, agent string) *Imported {
		t.Helper()
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		im, err := Import(path, data, Options{Agent: agent, Now: now})
		require.NoError(t, err)
		return im
	}
	extra := func(t *testing.T, im *Imported, k string) any {
		t.Helper()
		raw, ok := im.Record.Extra[k]
		require.True(t, ok, "extra has no %q; it has %v", k, im.Record.Extra)
		var v any
		require.NoError(t, json.Unmarshal(raw, &v))
		return v
	}

	t.Run("seed000 milestones become tasks; placeholders stay in extra", func(t *testing.T) {
		im := load(t, "testdata/seed000/.claude/initiative.json", "")
		r := im.Record
		assert.Equal(t, "initiative", r.Agent, "no agent in the file and no --agent: the file's base name")
		assert.Equal(t, []string{"M1"}, r.CompletedSteps)
		assert.Equal(t, "M2", r.CurrentStep)
		assert.Equal(t, records.StatusInProgress, r.Status)
		assert.Equal(t, now, r.UpdatedAt, "the placeholder is not a time: the import time stands in")
		assert.Equal(t, "{ISO_timestamp}", extra(t, im, "lastUpdated"))
		assert.Equal(t, "{initiative_name}", extra(t, im, "name"))
		assert.Equal(t, "{in_progress|completed|blocked}", extra(t, im, "status"))
		assert.Equal(t, 2, im.Progress.TaskM())
		assert.Equal(t, "M2", im.Progress.Current.Text)
	})
	t.Run("seed000 newer WORKFLOW-STATUS.yaml wins the sync", func(t *testing.T) {
		im := load(t, "testdata/seed000-sync/.claude/initiative.json", "")
		assert.Equal(t, "M3", im.Record.CurrentStep)
		assert.Equal(t, []string{"M1"}, im.Record.CompletedSteps)
		assert.Equal(t, []string{"M2"}, im.Record.NextSteps)
		assert.Equal(t, time.Date(2026, 1, 11, 16, 30, 0, 0, time.UTC), im.Record.UpdatedAt)
		assert.Contains(t, im.Warnings, `WORKFLOW-STATUS.yaml is newer than initiative.json and disagrees (milestone "M3", status "in_progress"); its values are used`)
		assert.Equal(t, "payments-team", extra(t, im, "owner"))
		assert.Equal(t, "M3", extra(t, im, "workflowStatus").(map[string]any)["milestone"])
	})
	t.Run("seed001 phases become tasks", func(t *testing.T) {
		im := load(t, "testdata/seed001/orchestrate_auth_system_20251003_184530.json", "")
		r := im.Record
		assert.Equal(t, "orchestrate_auth_system_20251003_184530", r.Agent)
		assert.Equal(t, "auth_system", r.Issue)
		assert.Equal(t, []string{"Phase 1"}, r.CompletedSteps)
		assert.Equal(t, "Phase 2", r.CurrentStep)
		assert.Equal(t, []string{"Phase 3", "Phase 4", "Phase 5"}, r.NextSteps)
		assert.Equal(t, records.Subtasks{Total: 5, Completed: 1, Percent: 20, Items: r.Subtasks.Items}, r.Subtasks)
		assert.Equal(t, "orchestrate_auth_system_20251003_184530-auth_system-20251003-185215", r.ID, "stamped with updatedAt")
		assert.Equal(t, "orchestrate", extra(t, im, "workflow_type"))
		assert.Equal(t, map[string]any{"artifact_registry": map[string]any{}, "research_results": []any{},
			"plan_path": "specs/plans/022_auth_implementation.md"}, extra(t, im, "workflow_state"),
			"project_name became the issue; the rest of workflow_state is kept")
		assert.NotContains(t, r.Extra, "last_error", "a null last_error says nothing")
	})
	t.Run("seed002 subtasks, criteria and errors carry over", func(t *testing.T) {
		im := load(t, "testdata/seed002/progress/checkpoints/migration-T060.json", "")
		r := im.Record
		assert.Equal(t, "migration", r.Agent)
		assert.Equal(t, "T060", r.Issue)
		assert.Equal(t, "migration-T060-20251208-145210", r.ID, "ccc's shape, stamped with updatedAt")
		assert.Equal(t, "migration-T060-20251208-143025", extra(t, im, "checkpoint_id"), "the file's own id is kept")
		assert.Equal(t, 29, r.Subtasks.Total)
		assert.Equal(t, 19, r.Subtasks.Completed)
		assert.Equal(t, 65, r.Subtasks.Percent)
		require.Len(t, r.Subtasks.Items, 4)
		assert.Equal(t, "pdfs-markdown/nature-trail/post-01.md", *r.Subtasks.Items[0].Output)
		assert.Nil(t, r.Subtasks.Items[2].Output)
		assert.Equal(t, map[string]bool{"29_files_created": false, "frontmatter_valid": true, "manifest_updated": true}, r.AcceptanceCriteriaMet)
		assert.Equal(t, "post-20", r.CurrentStep)
		assert.Contains(t, r.ResumeInstructions, "Continue from post-20.md, source: NatureTrail/NTEnglish/Text/Post20English")
		assert.Equal(t, "Riley", extra(t, im, "agent_name"))
		assert.Equal(t, true, extra(t, im, "resumable"))
		assert.Contains(t, extra(t, im, "context"), "next_to_process")
		assert.Contains(t, im.Progress.Remaining, progress.Task{Text: "meet acceptance criterion 29_files_created"})
		// The document lists what the file lists and sums up what it only
		// counts, so its prompt does not say 2 of 5 done against 19 of 29.
		assert.Equal(t, 3, im.Progress.CompletedCount())
		assert.Equal(t, "17 subtask(s) done, not listed in the checkpoint", im.Progress.Completed[0].Text)
		assert.Contains(t, im.Progress.Remaining, progress.Task{Text: "8 subtask(s) still to do, not listed in the checkpoint"})
		assert.Contains(t, r.ResumeInstructions, "Current task: task 4 of 7 — post-20.")
	})
	t.Run("seed002 blocking error is a blocker", func(t *testing.T) {
		im := load(t, "testdata/seed002/progress/checkpoints/migration-T060-blocked.json", "migration")
		r := im.Record
		assert.Equal(t, records.StatusBlocked, r.Status)
		require.Len(t, r.Errors, 1)
		assert.Equal(t, records.Error{Type: "dependency_missing", Message: "Cannot find source PDF: Post20English.pdf",
			Timestamp: r.Errors[0].Timestamp, Blocking: true}, r.Errors[0])
		assert.Equal(t, "2025-12-08T14:52:10Z", r.Errors[0].Timestamp.Format(time.RFC3339))
		assert.Equal(t, progress.Blocked, im.Progress.Status())
		assert.Equal(t, "migration", r.Agent, "--agent names a file that names no agent")
	})
	t.Run("seed002 complete sets completedAt", func(t *testing.T) {
		im := load(t, "testdata/seed002/progress/checkpoints/migration-T060-complete.json", "")
		assert.Equal(t, records.StatusComplete, im.Record.Status)
		assert.Equal(t, "2025-12-08T15:30:00Z", im.Record.CompletedAt.Format(time.RFC3339))
		assert.Equal(t, 100, im.Record.Subtasks.Percent)
	})
	t.Run("seed003 steps, heartbeat and recovery instructions", func(t *testing.T) {
		im := load(t, "testdata/seed003/agent_checkpoints/primary.json", "other")
		r := im.Record
		assert.Equal(t, "Agent-Primary", r.Agent, "the file's agent_id beats --agent")
		assert.Equal(t, "abc123def456", r.SessionID)
		assert.Equal(t, "feature_01_player_json", r.Issue)
		assert.Equal(t, "Specification", r.Phase)
		assert.Equal(t, "S2.P2", extra(t, im, "stage"))
		assert.Len(t, r.CompletedSteps, 3)
		assert.Equal(t, "Writing spec.md Requirements Section 5 (Error Handling)", r.CurrentStep)
		assert.Equal(t, []string{"Complete Requirements Section 5", "Write Acceptance Criteria", "Create checklist.md questions"}, r.NextSteps)
		assert.Equal(t, 900, r.Heartbeat.IntervalSeconds)
		assert.Equal(t, "2026-01-15T14:30:00Z", r.Heartbeat.LastBeat.Format(time.RFC3339))
		assert.Equal(t, "2026-01-15T14:45:00Z", r.NextCheckpointExpected.Format(time.RFC3339))
		assert.Equal(t, records.StatusInProgress, r.Status)
		assert.NotContains(t, r.Extra, "status", "IN_PROGRESS is in_progress: nothing lost")
		assert.Contains(t, r.ResumeInstructions, "Continue from Requirements Section 5")
		assert.Contains(t, r.ResumeInstructions, "feature_01_player_json/spec.md")
	})
	t.Run("seed003 WAITING keeps the original; linearIssue is the issue", func(t *testing.T) {
		im := load(t, "testdata/seed003-waiting/agent_checkpoints/secondary_b.json", "")
		r := im.Record
		assert.Equal(t, records.StatusInProgress, r.Status)
		assert.Equal(t, "WAITING", extra(t, im, "status"))
		assert.Equal(t, "CIA-812", r.Issue)
		assert.Equal(t, "CIA-812", im.Progress.Issue.Key)
		assert.NotContains(t, r.Extra, "linearIssue")
		assert.Equal(t, "feature_03_waivers", extra(t, im, "feature"), "not the issue: kept")
		assert.Equal(t, "2026-01-15T14:10:00Z", r.UpdatedAt.Format(time.RFC3339), "times are UTC")
		require.Len(t, r.Errors, 1)
		assert.True(t, r.Errors[0].Blocking)
		assert.Len(t, im.Progress.OpenBlockers(), 1)
		assert.Empty(t, progress.Validate("p.md", im.Progress.Render()), "with an issue key the document is valid")
	})
}

func TestImportErrors(t *testing.T) {
	tests := []struct {
		path      string
		line, col int
		want      string
		is        error
	}{
		{path: "testdata/bad/truncated.json", line: 4, col: 16, want: "invalid character ','"},
		{path: "testdata/bad/notes.json", is: ErrUnrecognised},
		{path: "testdata/bad/array.json", line: 1, col: 2, want: "expected a JSON object"},
		{path: "testdata/bad/empty.json", want: "empty file"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			data, err := os.ReadFile(tt.path)
			require.NoError(t, err)
			_, err = Import(tt.path, data, Options{Now: now})
			var ie *Error
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tt.path, ie.Path)
			assert.Equal(t, tt.line, ie.Line)
			assert.Equal(t, tt.col, ie.Col)
			assert.Contains(t, err.Error(), "import: "+tt.path)
			if tt.want != "" {
				assert.Contains(t, err.Error(), tt.want)
			}
			if tt.is != nil {
				assert.True(t, errors.Is(err, tt.is))
			}
		})
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, path, data string
		want             Format
	}{
		{"initiative by keys", "x.json", `{"name":"a","currentMilestone":"M1","progress":{"M1":"in_progress"}}`, Initiative},
		{"initiative progress map alone is not enough without the name", "notes.json", `{"progress":{"a":1}}`, ""},
		{"initiative progress map and file name", ".claude/initiative.json", `{"progress":{"M1":"completed"}}`, Initiative},
		{"workflow", "a.json", `{"workflow_type":"implement","current_phase":1}`, Workflow},
		{"sitebuilder fragment", "a.json", `{"status":"complete","progress_percent":100}`, Sitebuilder},
		{"agent checkpoint", "a.json", `{"agent_id":"A","recovery_instructions":"x"}`, AgentCheckpoint},
		{"file name alone is not enough", "agent_checkpoints/a.json", `{"status":"IN_PROGRESS"}`, ""},
		{"name breaks a tie", "agent_checkpoints/a.json", `{"stage":"S1","subtasks":{}}`, AgentCheckpoint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Detect(tt.path, []byte(tt.data))
			if tt.want == "" {
				assert.ErrorIs(t, err, ErrUnrecognised)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestUnexpectedTypesStayInExtra: a value of a type the record cannot hold
// is kept, not dropped or misread.
func TestUnexpectedTypesStayInExtra(t *testing.T) {
	data := `{"agent_id": "A", "current_step": 7, "files_modified": "one.go", "recovery_instructions": "go on",
	  "last_checkpoint": "yesterday"}`
	im, err := Import("agent_checkpoints/a.json", []byte(data), Options{Now: now})
	require.NoError(t, err)
	ex := im.Record.Extra
	assert.JSONEq(t, `7`, string(ex["current_step"]))
	assert.JSONEq(t, `"one.go"`, string(ex["files_modified"]))
	assert.JSONEq(t, `"yesterday"`, string(ex["last_checkpoint"]))
	assert.Equal(t, now, im.Record.UpdatedAt)
	assert.Len(t, im.Warnings, 4)

	// An item with a key the record has no place for keeps the whole list;
	// what the record did take of the object is not repeated.
	data = `{"agent": "b", "progress_percent": 50, "subtasks": {"total": "many", "completed": 2,
	  "items": [{"id": "x", "status": "complete", "weight": 3}]}, "heartbeat": {"last_beat": "2026-01-01T00:00:00Z", "status": "alive"}}`
	im, err = Import("b.json", []byte(data), Options{Now: now})
	require.NoError(t, err)
	ex = im.Record.Extra
	assert.JSONEq(t, `{"total":"many","items":[{"id":"x","status":"complete","weight":3}]}`, string(ex["subtasks"]))
	assert.JSONEq(t, `{"status":"alive"}`, string(ex["heartbeat"]))
	assert.Equal(t, []records.Subtask{{ID: "x", Status: "complete"}}, im.Record.Subtasks.Items)
	assert.Equal(t, 2, im.Record.Subtasks.Completed)
	assert.Equal(t, 50, im.Record.Subtasks.Percent)
}

func TestSafeName(t *testing.T) {
	tests := map[string]string{
		"Agent-Primary":  "Agent-Primary",
		"secondary a":    "secondary-a",
		"../etc/passwd":  "etc-passwd",
		"..":             "",
		"migration.v2_x": "migration.v2_x",
	}
	for in, want := range tests {
		assert.Equal(t, want, SafeName(in), in)
	}
}

func TestUnsafeAgentIsRenamed(t *testing.T) {
	im, err := Import("a.json", []byte(`{"agent_id": "../../x y", "current_step": "s"}`), Options{Now: now})
	require.NoError(t, err)
	assert.Equal(t, "x-y", im.Agent)
	assert.Contains(t, im.Warnings[0], `agent "../../x y" (from the file) is not a safe file name; using "x-y"`)

	_, err = Import(".json", []byte(`{"current_step": "s", "recovery_instructions": "r"}`), Options{Now: now})
	assert.ErrorContains(t, err, "pass --agent")
}

// marshalIndent renders a golden file as ccc writes JSON: indented, HTML
// left unescaped, one trailing newline.
func marshalIndent(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// A checkpoint file over MaxSize is refused before it is decoded (a 59 MB
// one took 630 MB); one at the limit is read.
func TestImportTooBig(t *testing.T) {
	pad := func(n int) []byte {
		return []byte(`{"schemaVersion": 1, "pad": "` + strings.Repeat("x", n) + `"}`)
	}
	big := pad(MaxSize)
	_, err := Import("ckpt.json", big, Options{Now: now})
	var ie *Error
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, fmt.Sprintf("import: ckpt.json: %d bytes, over the 1024 KB a checkpoint file may hold; not imported", len(big)), err.Error())

	atLimit := pad(MaxSize - len(pad(0)))
	require.Equal(t, MaxSize, len(atLimit))
	_, err = Import("ckpt.json", atLimit, Options{Now: now})
	assert.False(t, strings.Contains(fmt.Sprint(err), "not imported"), "%v", err)
}
