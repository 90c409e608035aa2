package all

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/claudecode"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/codex"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/gemini"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
	"github.com/ccc-checkpoint/ccc/progress"
)

// dirty is a task text with everything an agent's log can carry that a
// progress file must not: a NUL byte, an ANSI colour, a bidi override, a
// line break.
const dirty = "Fix\x00 the \x1b[31mlexer\x1b[0m\u202e\nnow"

const cleaned = "Fix the lexer now"

// Every agent's reader cleans what it captures, and the document the fold makes
// parses again.
func TestReadersCleanCapturedText(t *testing.T) {
	js := func(v any) string { b, err := json.Marshal(v); require.NoError(t, err); return string(b) }
	dir := t.TempDir()

	tasks := filepath.Join(dir, "tasks")
	require.NoError(t, os.MkdirAll(tasks, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(tasks, "1.json"), []byte(js(map[string]any{
		"id": "1\x00 -->", "subject": dirty, "activeForm": dirty, "status": "in_progress", "blockedBy": []string{"2\n"},
	})), 0o600))
	claude, err := claudecode.ReadTasks(tasks)
	require.NoError(t, err)

	todo, err := claudecode.TodoWrite([]byte(js(map[string]any{"todos": []any{map[string]any{"content": dirty, "status": "pending", "activeForm": dirty}}})), "TodoWrite")
	require.NoError(t, err)

	args := js(map[string]any{"plan": []any{map[string]any{"step": dirty, "status": "in_progress"}}})
	rollout := filepath.Join(dir, "rollout.jsonl")
	require.NoError(t, os.WriteFile(rollout, []byte(js(map[string]any{"type": "response_item",
		"payload": map[string]any{"type": "function_call", "name": "update_plan", "arguments": args}})+"\n"), 0o600))
	plan, err := codex.ReadRollout(rollout)
	require.NoError(t, err)

	chat := filepath.Join(dir, "session.jsonl")
	require.NoError(t, os.WriteFile(chat, []byte(js(map[string]any{"id": "m1", "type": "gemini", "toolCalls": []any{map[string]any{
		"name": "write_todos", "status": "success", "args": map[string]any{"todos": []any{map[string]any{"description": dirty, "status": "pending"}}}}}})+"\n"), 0o600))
	todos, err := gemini.ReadChat(chat)
	require.NoError(t, err)

	transcript := filepath.Join(dir, "transcript.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(js(map[string]any{"type": "assistant", "message": map[string]any{
		"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Done.\n" + strings.ReplaceAll(dirty, "\n", " ")}}}})+"\n"), 0o600))
	tr, err := claudecode.ReadTranscript(transcript, false)
	require.NoError(t, err)
	assert.Equal(t, cleaned, tr.LastLine)

	for _, l := range []capture.List{claude, todo, plan, todos} {
		require.Len(t, l.Tasks, 1, l.Agent)
		task := l.Tasks[0]
		assert.Equal(t, cleaned, task.Text, l.Agent)
		if task.ActiveForm != "" {
			assert.Equal(t, cleaned, task.ActiveForm, l.Agent)
		}
		doc := progress.New("", time.Date(2026, 11, 25, 16, 0, 0, 0, time.UTC))
		capture.Fold(doc, l)
		_, err := progress.Parse(doc.Render())
		assert.NoError(t, err, "%s: ccc reads the file it wrote", l.Agent)
	}
	assert.Equal(t, "1-----", claude.Tasks[0].ID, "an id is a file name, as Claude Code sanitizes it")
	assert.Equal(t, []string{"2-"}, claude.Tasks[0].BlockedBy)
}
