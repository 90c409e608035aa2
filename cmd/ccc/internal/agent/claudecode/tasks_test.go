package claudecode

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
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
	}, list.Tasks, "ordered by number; .highwatermark, the lock, a torn file and an internal task (metadata._internal) skipped")

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

func writeTranscript(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	return p
}

const (
	todoOK   = `{"parentUuid":null,"isSidechain":false,"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"TodoWrite","input":{"todos":[{"content":"Lexer","status":"in_progress","activeForm":"Lexing"}]}}]},"uuid":"a1"}`
	okResult = `{"parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"Todos have been modified successfully."}]},"uuid":"u1"}`
	// Claude Code refused this call (no activeForm): its list did not change.
	todoRefused = `{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_02","name":"TodoWrite","input":{"todos":[{"content":"Something else","status":"pending"}]}}]},"uuid":"a2"}`
	refusal     = `{"parentUuid":"a2","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"<tool_use_error>InputValidationError: TodoWrite failed due to the following issue:\nThe required parameter ` + "`todos[0].activeForm`" + ` is missing</tool_use_error>","is_error":true,"tool_use_id":"toolu_02"}]},"toolUseResult":"Error: The required parameter ` + "`todos[0].activeForm`" + ` is missing","uuid":"u2"}`
)

func TestReadTranscriptSkipsARefusedTodoWrite(t *testing.T) {
	tr, err := ReadTranscript(writeTranscript(t, todoOK, okResult, todoRefused, refusal), true)
	require.NoError(t, err)
	require.NotNil(t, tr.Todos)
	assert.Equal(t, []capture.Task{{Text: "Lexer", Status: capture.InProgress, ActiveForm: "Lexing"}}, tr.Todos.Tasks,
		"the refused call never changed Claude's list")
}

// A subagent's lines (isSidechain) are not the session's: neither its
// TodoWrite nor its last message.
func TestReadTranscriptSkipsSidechains(t *testing.T) {
	side := `{"parentUuid":"u1","isSidechain":true,"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_s1","name":"TodoWrite","input":{"todos":[{"content":"Read the code","status":"in_progress","activeForm":"Reading"}]}}]},"uuid":"s1"}`
	sideText := `{"parentUuid":"s1","isSidechain":true,"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Subagent: found three files."}]},"uuid":"s2"}`
	mainText := `{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Main: lexing now."}]},"uuid":"a3"}`
	tr, err := ReadTranscript(writeTranscript(t, todoOK, okResult, mainText, side, sideText), true)
	require.NoError(t, err)
	require.NotNil(t, tr.Todos)
	assert.Equal(t, []capture.Task{{Text: "Lexer", Status: capture.InProgress, ActiveForm: "Lexing"}}, tr.Todos.Tasks)
	assert.Equal(t, "Main: lexing now.", tr.LastText)
	assert.Equal(t, "Main: lexing now.", tr.LastLine)
}

// A TodoWrite that Claude Code 1.0.x reports without agent_id is a
// subagent's when the newest call of the transcript with that list is on
// a subagent's line (isSidechain): ListTasks then has no list for the
// session. The session's own call, a list found nowhere, and a call older
// than the transcript's last MaxScan bytes are the session's.
func TestSubagentCall(t *testing.T) {
	sideInput := `{"todos":[{"content":"Read the code","status":"in_progress","activeForm":"Reading"}]}`
	side := `{"parentUuid":"u1","isSidechain":true,"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_s1","name":"TodoWrite","input":` + sideInput + `}]},"uuid":"s1"}`
	mainInput := `{"todos":[{"content":"Lexer","status":"in_progress","activeForm":"Lexing"}]}`
	path := writeTranscript(t, todoOK, okResult, side)

	for name, tc := range map[string]struct {
		path, input string
		want        bool
	}{
		"the subagent's call":       {path, sideInput, true},
		"the session's call":        {path, mainInput, false},
		"a list on no line":         {path, `{"todos":[{"content":"Other","status":"pending"}]}`, false},
		"the call before the bound": {writeTranscript(t, side, strings.Repeat(okResult+"\n", MaxScan/len(okResult)+1)), sideInput, false},
	} {
		got, err := SubagentCall(tc.path, []byte(tc.input))
		require.NoError(t, err, name)
		assert.Equal(t, tc.want, got, name)
	}

	in := func(input, agentID string) agent.Input {
		return agent.Input{ToolName: "TodoWrite", ToolInput: []byte(input), TranscriptPath: path, AgentID: agentID}
	}
	_, err := Agent{}.ListTasks(nil, in(sideInput, ""))
	require.ErrorIs(t, err, ErrSubagentCall)
	assert.ErrorIs(t, err, capture.ErrNoList, "the session's list did not change")
	l, err := Agent{}.ListTasks(nil, in(mainInput, ""))
	require.NoError(t, err)
	assert.Equal(t, "Lexer", l.Tasks[0].Text)
	_, err = Agent{}.ListTasks(nil, in(sideInput, "a-1"))
	assert.NoError(t, err, "with agent_id, the hook routes the list to the subagent itself")
}
