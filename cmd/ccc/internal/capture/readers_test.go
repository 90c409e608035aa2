package capture

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const codexRollout = "testdata/codex/rollout-2026-11-25T16-00-01-0199a1f2-7c3e-7d40-9b1e-5e0f2a6c8d11.jsonl"

var (
	calcSteps = []string{"Add the lexer", "Parse expressions", "Evaluate the AST", "Write the REPL"}
	// twoDone is the plan after the second update: two completed, the
	// third in progress.
	twoDone = []Task{
		{ID: "todo-1", Text: calcSteps[0], Status: "completed"},
		{ID: "todo-2", Text: calcSteps[1], Status: "completed"},
		{ID: "todo-3", Text: calcSteps[2], Status: "in_progress"},
		{ID: "todo-4", Text: calcSteps[3], Status: "pending"},
	}
	firstPlan = []Task{
		{ID: "todo-1", Text: calcSteps[0], Status: "in_progress"},
		{ID: "todo-2", Text: calcSteps[1], Status: "pending"},
		{ID: "todo-3", Text: calcSteps[2], Status: "pending"},
		{ID: "todo-4", Text: calcSteps[3], Status: "pending"},
	}
	cancelledLast = []Task{
		{ID: "todo-1", Text: calcSteps[0], Status: "completed"},
		{ID: "todo-2", Text: calcSteps[1], Status: "in_progress"},
		{ID: "todo-3", Text: calcSteps[2], Status: "pending"},
		{ID: "todo-4", Text: calcSteps[3], Status: "cancelled"},
	}
)

func TestReadCodex(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		want   []Task
		noList bool
	}{
		{name: "the last update_plan wins", path: codexRollout, want: twoDone},
		{name: "a call Codex refused and a compaction change nothing", path: "testdata/codex/rollout-refused.jsonl", want: twoDone},
		{name: "no update_plan", path: "testdata/codex/rollout-noplan.jsonl", noList: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ReadCodex(tt.path)
			if tt.noList {
				assert.ErrorIs(t, err, ErrNoList)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "codex", l.Agent)
			assert.Equal(t, tt.path, l.Source)
			assert.Equal(t, tt.want, l.Tasks)
		})
	}
}

// zstFixture writes the rollout fixture compressed, as Codex leaves an old
// session, and returns the plain path (which does not exist).
func zstFixture(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(codexRollout)
	require.NoError(t, err)
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	plain := filepath.Join(t.TempDir(), filepath.Base(codexRollout))
	require.NoError(t, os.WriteFile(plain+".zst", enc.EncodeAll(data, nil), 0o644))
	return plain
}

func TestReadCodexCompressed(t *testing.T) {
	plain := zstFixture(t)
	for _, p := range []string{plain + ".zst", plain} { // named, or found beside the plain name
		l, err := ReadCodex(p)
		require.NoError(t, err, p)
		assert.Equal(t, twoDone, l.Tasks)
		assert.Equal(t, plain+".zst", l.Source)
	}
}

func TestReadCodexMissing(t *testing.T) {
	_, err := ReadCodex(filepath.Join(t.TempDir(), "rollout-x.jsonl"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// A line longer than MaxLine (a huge tool output) is skipped without being
// held; the plan before and after it is read.
func TestReadCodexSkipsHugeLine(t *testing.T) {
	data, err := os.ReadFile(codexRollout)
	require.NoError(t, err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	huge := `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"update_plan ` +
		strings.Repeat("x", MaxLine+10) + `"}}` + "\n"
	var out bytes.Buffer
	out.Write(bytes.Join(lines[:5], nil)) // the first plan
	out.WriteString(huge)
	p := filepath.Join(t.TempDir(), "rollout-huge.jsonl")
	require.NoError(t, os.WriteFile(p, out.Bytes(), 0o644))
	l, err := ReadCodex(p)
	require.NoError(t, err)
	assert.Equal(t, firstPlan, l.Tasks)
}

func TestReadGemini(t *testing.T) {
	tests := []struct {
		file   string
		want   []Task
		noList bool
	}{
		{file: "session-2026-11-25T16-00-7f3e9c2a.jsonl", want: twoDone}, // a message rewritten: its last version counts
		{file: "replaced-in-place.jsonl", want: cancelledLast},           // a rewritten message keeps its place
		{file: "rewind.jsonl", want: twoDone},                            // $rewindTo drops that message and later ones
		{file: "rewind-unknown.jsonl", noList: true},                     // an unknown id drops them all
		{file: "refused.jsonl", want: firstPlan},                         // a call that failed wrote nothing
		{file: "set-messages.jsonl", want: cancelledLast},                // $set.messages replaces the conversation
		{file: "no-list.jsonl", noList: true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			l, err := ReadGemini(filepath.Join("testdata/gemini", tt.file))
			if tt.noList {
				assert.True(t, errors.Is(err, ErrNoList), "%v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "gemini", l.Agent)
			assert.Equal(t, tt.want, l.Tasks)
		})
	}
}

func TestToolInputs(t *testing.T) {
	tasks, ok := CodexPlanInput([]byte(`{"explanation":"e","plan":[{"step":"  Add   the lexer ","status":"completed"},{"step":"","status":"pending"},{"step":"Parse","status":"weird"}]}`))
	require.True(t, ok)
	assert.Equal(t, []Task{{ID: "todo-1", Text: "Add the lexer", Status: "completed"}, {ID: "todo-3", Text: "Parse", Status: "pending"}}, tasks)
	_, ok = CodexPlanInput([]byte(`{"command":"ls"}`))
	assert.False(t, ok)

	tasks, ok = GeminiTodosInput([]byte(`{"todos":[{"description":"Lex","status":"blocked"},{"description":"Parse","status":"cancelled"}]}`))
	require.True(t, ok)
	assert.Equal(t, []Task{{ID: "todo-1", Text: "Lex", Status: "blocked"}, {ID: "todo-2", Text: "Parse", Status: "cancelled"}}, tasks)
	_, ok = GeminiTodosInput([]byte(`[1]`))
	assert.False(t, ok)
}

func TestEachLine(t *testing.T) {
	in := "a\r\n\n" + strings.Repeat("b", 100) + "\nc"
	var got []string
	skipped, err := eachLine(strings.NewReader(in), 50, func(l []byte) { got = append(got, string(l)) })
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "c"}, got)
	assert.Equal(t, 1, skipped)
}

// A message rewritten without its write_todos call (the fast path: no list
// in the line) no longer holds a list; the one before it counts.
func TestReadGeminiRewrittenWithoutList(t *testing.T) {
	data, err := os.ReadFile("testdata/gemini/rewind.jsonl")
	require.NoError(t, err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	// lines: meta, user, g1 (first plan), $set, g2 (two done), g3 (cancelled last), $rewindTo g3
	body := bytes.Join(lines[:6], nil)
	body = append(body, []byte(`{"id":"b1c2d3e4-0000-4000-8000-0000000000a3","timestamp":"2026-11-25T16:00:09.000Z","type":"gemini","content":"Done.","thoughts":[],"model":"gemini-3-pro-preview"}`+"\n")...)
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, body, 0o644))
	l, err := ReadGemini(p)
	require.NoError(t, err)
	assert.Equal(t, twoDone, l.Tasks)

	id, ok := plainMessageID([]byte(`{"id":"a\"b","type":"user"}`))
	assert.False(t, ok, "an escaped id is parsed in full: %q", id)
	_, ok = plainMessageID([]byte(`{"type":"user","id":"x"}`))
	assert.False(t, ok)
}

// bomb is a rollout of n bytes of one update_plan line repeated, with a
// last plan at its end, as a hostile or runaway log holds.
func bomb(t *testing.T, w io.Writer, n int) {
	t.Helper()
	data, err := os.ReadFile(codexRollout)
	require.NoError(t, err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	pad := []byte(`{"type":"event_msg","payload":{"type":"agent_message","message":"` + strings.Repeat("x", 1<<20) + `"}}` + "\n")
	for written := 0; written < n; written += len(pad) {
		_, err := w.Write(pad)
		require.NoError(t, err)
	}
	_, err = w.Write(bytes.Join(lines[:5], nil)) // the first plan, last
	require.NoError(t, err)
}

// A compressed rollout that expands past MaxRollout is refused once the cap
// is read: the hook does not decompress gigabytes to reach the plan at the
// end. One that stays within the cap is read whole.
func TestReadCodexCapsDecompressedText(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
		err  error
	}{
		{"past the cap", MaxRollout + 2<<20, ErrTooBig},
		{"within the cap", MaxRollout - 2<<20, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "rollout-bomb.jsonl.zst")
			f, err := os.Create(p)
			require.NoError(t, err)
			enc, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest))
			require.NoError(t, err)
			bomb(t, enc, tc.size)
			require.NoError(t, enc.Close())
			require.NoError(t, f.Close())
			l, err := ReadCodex(p)
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, firstPlan, l.Tasks)
		})
	}
}

// A plain rollout past MaxRollout is read from its tail: the last plan is
// there.
func TestReadCodexReadsThePlainTail(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rollout-long.jsonl")
	f, err := os.Create(p)
	require.NoError(t, err)
	bomb(t, f, MaxRollout+2<<20)
	require.NoError(t, f.Close())
	l, err := ReadCodex(p)
	require.NoError(t, err)
	assert.Equal(t, firstPlan, l.Tasks)
}
