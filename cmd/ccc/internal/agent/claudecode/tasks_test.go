package claudecode

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
	"github.com/ccc-checkpoint/ccc/config"
)

func env(m map[string]string) config.ClaudeEnv { return config.EnvOf(m).Claude }

func TestTaskDir(t *testing.T) {
	assert.Equal(t, filepath.Join("/cfg", "tasks", "s-1-x"), TaskDir(env(map[string]string{"CLAUDE_CONFIG_DIR": "/cfg"}), "s.1/x"),
		"the list id is sanitized as Claude Code does")
	assert.Equal(t, filepath.Join("/home/u", ".claude", "tasks", "team"),
		TaskDir(env(map[string]string{"HOME": "/home/u", "CLAUDE_CODE_TASK_LIST_ID": "team"}), "s1"))
	assert.Empty(t, TaskDir(env(map[string]string{"HOME": "/h"}), ""))
}

func TestReadTasks(t *testing.T) {
	list, err := ReadTasks(filepath.Join("testdata", "tasks", "sess-1"))
	require.NoError(t, err)
	assert.Equal(t, "claude", list.Agent)
	assert.Equal(t, []capture.Task{
		{ID: "1", Text: "Write the lexer", Status: capture.Completed, ActiveForm: "Writing the lexer", BlockedBy: []string{}},
		{ID: "2", Text: "Write the parser", Status: capture.InProgress, ActiveForm: "Writing the parser", BlockedBy: []string{}},
		{ID: "3", Text: "Add tests", Status: capture.Pending, ActiveForm: "Adding tests", BlockedBy: []string{"1", "2"}},
		{ID: "10", Text: "Write the docs", Status: capture.Pending, BlockedBy: []string{}},
	}, list.Tasks, "ordered by number; .highwatermark, the lock and a torn file skipped")

	_, err = ReadTasks(filepath.Join(t.TempDir(), "nope"))
	assert.ErrorIs(t, err, capture.ErrNoList)
	empty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(empty, ".highwatermark"), []byte("3"), 0o600))
	_, err = ReadTasks(empty)
	assert.ErrorIs(t, err, capture.ErrNoList, "every task deleted")
}

func TestReadTasksBounded(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i <= MaxTasks; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "t"+strconv.Itoa(i)+".json"), []byte(`{}`), 0o600))
	}
	_, err := ReadTasks(dir)
	assert.ErrorContains(t, err, "more than 1000 tasks")
}

func TestReadTranscript(t *testing.T) {
	tr, err := ReadTranscript(filepath.Join("testdata", "transcript.jsonl"), true)
	require.NoError(t, err)
	require.NotNil(t, tr.Todos)
	assert.Equal(t, []capture.Task{
		{Text: "Write the lexer", Status: capture.Completed, ActiveForm: "Writing the lexer"},
		{Text: "Write the parser", Status: capture.InProgress, ActiveForm: "Writing the parser"},
		{Text: "Add tests", Status: capture.Pending, ActiveForm: "Adding tests"},
	}, tr.Todos.Tasks, "the newest TodoWrite, after the compact boundary")
	assert.Equal(t, []string{"/work/p/parser.go", "/work/p/lexer.go"}, tr.Files, "Edit/Write paths, newest first, once; Read is not a change")
	assert.Equal(t, "Next: precedence climbing for * and /.", tr.LastLine)

	_, err = ReadTranscript(filepath.Join(t.TempDir(), "none.jsonl"), true)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestTodoWrite(t *testing.T) {
	list, err := TodoWrite([]byte(`{"todos":[{"content":"A","status":"pending","activeForm":"Doing A"}]}`), "hook")
	require.NoError(t, err)
	assert.Equal(t, capture.List{Agent: "claude", Source: "hook", Tasks: []capture.Task{{Text: "A", Status: capture.Pending, ActiveForm: "Doing A"}}}, list)
	_, err = TodoWrite([]byte(`{"todos":"x"}`), "hook")
	assert.Error(t, err)
}
