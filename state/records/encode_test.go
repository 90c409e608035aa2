package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encodeReflect is how Encode wrote a record before issue 26: a json.Encoder
// indenting by two spaces over MarshalJSON. Encode must write the same bytes.
func encodeReflect(r *Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// awkward are strings every escape rule of encoding/json meets.
var awkward = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnewline\ncr\r", "\x00\x01\x1f\x7f", "<html> & co",
	"é ✓ — 日本", "line\u2028para\u2029", "bad \xff utf-8 \xc3", "emoji 🙂",
}

// TestEncodeAgrees: Encode writes byte for byte what the encoder over
// MarshalJSON writes, for empty, nil and full records and every awkward
// string in every place a string goes; and Subtasks and Subtask have the
// fields writeSubtasks writes.
func TestEncodeAgrees(t *testing.T) {
	t.Parallel()
	require.Equal(t, 5, reflect.TypeFor[Subtasks]().NumField(), "a field was added to Subtasks: write it in writeSubtasks")
	require.Equal(t, 3, reflect.TypeFor[Subtask]().NumField(), "a field was added to Subtask: write it in writeSubtasks")
	now := time.Date(2026, 11, 21, 13, 45, 0, 123, time.UTC)
	out := "built <ok> \"x\""
	full := func(s string) *Record {
		return &Record{
			SchemaVersion: 1, ID: s, Agent: s, SessionID: s, Issue: s, Status: StatusBlocked, Phase: s,
			CurrentStep: s, CompletedSteps: []string{s, "b"}, NextSteps: []string{s},
			Subtasks: Subtasks{Total: 3, Completed: 1, Failed: 1, Percent: 33,
				Items: []Subtask{{ID: s, Status: "complete", Output: &out}, {ID: "b", Status: s}, {ID: "c", Status: "pending", Output: &s}}},
			FilesCreated: []string{s}, FilesModified: []string{},
			Errors:                []Error{{Type: "blocker", Message: s, Timestamp: now, Blocking: true}, {Type: "x"}},
			AcceptanceCriteriaMet: map[string]bool{s: true, "z": false},
			ResumeInstructions:    s, CreatedAt: now, UpdatedAt: now, CompletedAt: now,
			Heartbeat:              Beat{LastBeat: now, IntervalSeconds: 900},
			NextCheckpointExpected: now, Branch: s, Head: s,
			Extra: map[string]json.RawMessage{s: json.RawMessage(` { "a" : [1, 2, {"b": null}], "c": "<&>" } `), "n": json.RawMessage(`null`)},
		}
	}
	records := []*Record{{}, {Agent: "a", Status: StatusInProgress}, {Subtasks: Subtasks{Items: []Subtask{}}}}
	for _, s := range awkward {
		records = append(records, full(s))
	}
	for i, r := range records {
		want, err := encodeReflect(r)
		require.NoError(t, err)
		got, err := Encode(r)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "record %d", i)
	}
}

// TestEncodeManyTasks: a record of 10,000 subtasks is written into one
// buffer of about its size; the encoder over MarshalJSON allocated about 10×
// the record (each field's own buffer, the whole text compacted, then
// indented into a growing buffer).
func TestEncodeManyTasks(t *testing.T) {
	r := &Record{Agent: "main", Status: StatusInProgress}
	for i := range 10000 {
		task := fmt.Sprintf("task %d: migrate endpoint /api/v1/resource%d", i, i)
		r.CompletedSteps = append(r.CompletedSteps, task)
		r.Subtasks.Items = append(r.Subtasks.Items, Subtask{ID: task, Status: "complete"})
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	data, err := Encode(r)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	bytes := after.TotalAlloc - before.TotalAlloc
	assert.LessOrEqual(t, bytes, uint64(2*len(data)), "allocated %d bytes to encode a %d-byte record", bytes, len(data))
}
