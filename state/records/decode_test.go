package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bigRecord is a record as ccc writes it, with n subtasks.
func bigRecord(t testing.TB, n int) []byte {
	now := time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)
	s := Snapshot{Agent: "agent-1", Issue: "CIA-1", Current: "the current task", Prompt: "Resume CIA-1."}
	for i := range n {
		s.Completed = append(s.Completed, fmt.Sprintf("task %d: migrate endpoint /api/v1/resource%d", i, i))
	}
	data, err := Encode(build(nil, s, now))
	require.NoError(t, err)
	return data
}

// TestDecodeOnce: a record as ccc writes it is decoded in one pass, not
// read into a map of keys and then decoded again. Counted in allocations:
// the one pass costs what a plain decode of the bytes costs.
func TestDecodeOnce(t *testing.T) {
	data := bigRecord(t, 200)
	plain := testing.AllocsPerRun(20, func() {
		dec := json.NewDecoder(bytes.NewReader(data))
		var r Record
		require.NoError(t, dec.Decode(&r))
	})
	got := testing.AllocsPerRun(20, func() {
		_, _, err := Decode("x.json", data)
		require.NoError(t, err)
	})
	assert.LessOrEqual(t, got, plain+10, "Decode allocates like one decode of the record (plain decode: %.0f)", plain)
}

// TestDecodeOnePassAgrees: what the one pass takes, it reads as the long
// way does; what it must not take (keys spelled in another case, escaped
// keys, text after the object) goes the long way.
func TestDecodeOnePassAgrees(t *testing.T) {
	const v1 = `"agent":"a","status":"in_progress"`
	for _, tt := range []struct {
		name, body string
		err        string
		check      func(t *testing.T, r *Record)
	}{
		{name: "another case is an unknown key", body: `{"schemaVersion":1,"Agent":"b",` + v1 + `}`,
			check: func(t *testing.T, r *Record) {
				assert.Equal(t, "a", r.Agent)
				assert.JSONEq(t, `"b"`, string(r.Extra["Agent"]))
			}},
		{name: "another case only: no agent", body: `{"schemaVersion":1,"AGENT":"b","status":"in_progress"}`, err: "agent is missing"},
		{name: "escaped key", body: `{"schemaVersion":1,"\u0061gent":"b","status":"blocked"}`,
			check: func(t *testing.T, r *Record) { assert.Equal(t, "b", r.Agent) }},
		{name: "text after the object", body: `{"schemaVersion":1,` + v1 + `} x`, err: "not a JSON object"},
		{name: "a second object after it", body: `{"schemaVersion":1,` + v1 + `}{}`, err: "not a JSON object"},
		{name: "white space after it", body: "{\"schemaVersion\":1," + v1 + "}\n\n",
			check: func(t *testing.T, r *Record) { assert.Equal(t, "a", r.Agent) }},
		{name: "nested braces in strings", body: `{"schemaVersion":1,` + v1 + `,"resumeInstructions":"a } \" { ] [","extra":{"k":[{"x":"}"}]}}`,
			check: func(t *testing.T, r *Record) {
				assert.Equal(t, `a } " { ] [`, r.ResumeInstructions)
				assert.JSONEq(t, `[{"x":"}"}]`, string(r.Extra["k"]))
			}},
		{name: "null schemaVersion is version 0", body: `{"schemaVersion":null,` + v1 + `}`,
			check: func(t *testing.T, r *Record) { assert.Equal(t, SchemaVersion, r.SchemaVersion) }},
		{name: "empty object", body: `{}`, err: "agent is missing"},
		{name: "bad value", body: `{"schemaVersion":1,` + v1 + `,"phase":tru}`, err: "not a JSON object"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, _, err := Decode("x.json", []byte(tt.body))
			if tt.err != "" {
				require.Error(t, err)
				assert.Nil(t, r)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			tt.check(t, r)
		})
	}
}

// TestDecodeRoundTrip: every record Encode writes decodes in one pass to
// the record it was.
func TestDecodeRoundTrip(t *testing.T) {
	data := bigRecord(t, 3)
	require.True(t, onlyKnownKeys(data))
	r, from, err := Decode("x.json", data)
	require.NoError(t, err)
	assert.Equal(t, SchemaVersion, from)
	again, err := Encode(r)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again))
}

func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{10, 1000} {
		data := bigRecord(b, n)
		b.Run(fmt.Sprintf("subtasks=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, _, err := Decode("x.json", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTopReadsOnlyInside: Top checks the directory once and trusts plain
// files listed in it, so a record that is a symlink must still be resolved:
// one pointing out of the directory is reported, never read; one pointing
// at a record inside it is read.
func TestTopReadsOnlyInside(t *testing.T) {
	root := tempDir(t)
	dir := filepath.Join(root, ".ccc", "checkpoints")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	rec := bigRecord(t, 1)
	outside := filepath.Join(tempDir(t), "stolen.json")
	require.NoError(t, os.WriteFile(outside, bytes.Replace(rec, []byte(`"agent-1"`), []byte(`"thief"`), 1), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "thief.json")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "agent-1.json"), rec, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "kept"), 0o755))
	inside := filepath.Join(dir, "kept", "agent-2.json")
	require.NoError(t, os.WriteFile(inside, bytes.Replace(rec, []byte(`"agent-1"`), []byte(`"agent-2"`), 1), 0o644))
	require.NoError(t, os.Symlink(inside, filepath.Join(dir, "agent-2.json")))

	top, err := Top(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "thief.json")
	assert.Contains(t, err.Error(), "outside the project")
	var agents []string
	for _, s := range top {
		agents = append(agents, s.Agent)
	}
	assert.Equal(t, []string{"agent-1", "agent-2"}, agents)
}

// TestDecodeSharesTaskText: a record's subtasks repeat its steps' text
// (and a few status words), and the decode keeps one string for both: a
// checkpoint decodes the previous record, 10,000 tasks of it (issue 26).
// About one allocation per task (its step), not three.
func TestDecodeSharesTaskText(t *testing.T) {
	const n = 2000
	data := bigRecord(t, n)
	allocs := testing.AllocsPerRun(5, func() {
		if _, _, err := Decode("x.json", data); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.0f allocations for %d tasks", allocs, n)
	assert.LessOrEqual(t, allocs, 1.1*n+50, "allocations of a record of %d tasks", n)
	r, _, err := Decode("x.json", data)
	require.NoError(t, err)
	whole, ok := decodeWhole(data)
	require.True(t, ok)
	assert.Equal(t, whole, r, "the same record as encoding/json reads")
}
