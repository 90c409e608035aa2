package gemini

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture/capturetest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
)

var (
	calcSteps     = capturetest.CalcSteps
	twoDone       = capturetest.TwoDone()
	firstPlan     = capturetest.FirstPlan()
	cancelledLast = []capture.Task{
		{Text: calcSteps[0], Status: "completed"},
		{Text: calcSteps[1], Status: "in_progress"},
		{Text: calcSteps[2], Status: "pending"},
		{Text: calcSteps[3], Status: "cancelled"},
	}
)

func TestReadChat(t *testing.T) {
	tests := []struct {
		file   string
		want   []capture.Task
		noList bool
	}{
		{file: "session-2026-11-25T16-00-7f3e9c2a.jsonl", want: twoDone}, // a message rewritten: its last version counts
		{file: "replaced-in-place.jsonl", want: cancelledLast},           // a rewritten message keeps its place
		{file: "rewind.jsonl", want: twoDone},                            // $rewindTo drops that message and later ones
		{file: "rewind-unknown.jsonl", noList: true},                     // an unknown id drops them all
		{file: "refused.jsonl", want: firstPlan},                         // a call that failed wrote nothing
		{file: "set-messages.jsonl", want: cancelledLast},                // $set.messages replaces the conversation
		{file: "no-list.jsonl", noList: true},
		{file: "session-2026-11-25T16-00-7f3e9c2a.json", want: twoDone}, // Gemini CLI 0.19–0.38: one JSON object
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			l, err := ReadChat(filepath.Join("testdata", tt.file))
			if tt.noList {
				assert.True(t, errors.Is(err, capture.ErrNoList), "%v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "gemini", l.Agent)
			assert.Equal(t, tt.want, l.Tasks)
		})
	}
}

func TestTodosInput(t *testing.T) {
	tasks, ok := TodosInput([]byte(`{"todos":[{"description":"Lex","status":"blocked"},{"description":"Parse","status":"cancelled"}]}`))
	require.True(t, ok)
	assert.Equal(t, []capture.Task{{Text: "Lex", Status: "blocked"}, {Text: "Parse", Status: "cancelled"}}, tasks)
	_, ok = TodosInput([]byte(`[1]`))
	assert.False(t, ok)
}

// A message rewritten without its write_todos call (the fast path: no list
// in the line) no longer holds a list; the one before it counts.
func TestReadChatRewrittenWithoutList(t *testing.T) {
	data, err := os.ReadFile("testdata/rewind.jsonl")
	require.NoError(t, err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	// lines: meta, user, g1 (first plan), $set, g2 (two done), g3 (cancelled last), $rewindTo g3
	body := bytes.Join(lines[:6], nil)
	body = append(body, []byte(`{"id":"b1c2d3e4-0000-4000-8000-0000000000a3","timestamp":"2026-11-25T16:00:09.000Z","type":"gemini","content":"Done.","thoughts":[],"model":"gemini-3-pro-preview"}`+"\n")...)
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, body, 0o644))
	l, err := ReadChat(p)
	require.NoError(t, err)
	assert.Equal(t, twoDone, l.Tasks)

	id, ok := plainMessageID([]byte(`{"id":"a\"b","type":"user"}`))
	assert.False(t, ok, "an escaped id is parsed in full: %q", id)
	_, ok = plainMessageID([]byte(`{"type":"user","id":"x"}`))
	assert.False(t, ok)
}

// A log in neither form is an error, said on stderr, not a silent "no
// list": a Gemini CLI that changed its format again must be noticed.
func TestReadChatUnknownFormat(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"array.json":  "[\n  1,\n  2\n]\n",
		"text.jsonl":  "hello\nworld\n",
		"object.json": "{\n  \"conversation\": []\n}\n",
	} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		_, err := ReadChat(p)
		require.Error(t, err, name)
		assert.False(t, errors.Is(err, capture.ErrNoList), "%s: %v", name, err)
		assert.Contains(t, err.Error(), "not recognised", name)
		assert.NotContains(t, err.Error(), "\n", name)
	}
	// An empty log is no list yet.
	p := filepath.Join(dir, "empty.jsonl")
	require.NoError(t, os.WriteFile(p, nil, 0o644))
	_, err := ReadChat(p)
	assert.True(t, errors.Is(err, capture.ErrNoList), "%v", err)
}

// The whole-file form is read only up to the byte cap: a longer one is an
// error, never a partial conversation.
func TestReadChatWholeFileBounded(t *testing.T) {
	data, err := os.ReadFile("testdata/session-2026-11-25T16-00-7f3e9c2a.json")
	require.NoError(t, err)
	defer func(m int64) { maxWhole = m }(maxWhole)
	maxWhole = int64(len(data)) - 1
	_, err = ReadChat("testdata/session-2026-11-25T16-00-7f3e9c2a.json")
	require.Error(t, err)
	assert.False(t, errors.Is(err, capture.ErrNoList), "%v", err)
	maxWhole = int64(len(data))
	l, err := ReadChat("testdata/session-2026-11-25T16-00-7f3e9c2a.json")
	require.NoError(t, err)
	assert.Equal(t, twoDone, l.Tasks)
}
