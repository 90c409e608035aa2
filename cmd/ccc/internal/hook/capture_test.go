package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/state/records"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const handProgress = "# Session Progress\n\n## Completed Tasks\n- None\n\n## Current Task\n- None\n\n## Remaining Tasks\n- Hand task\n\n## Blockers\n- None\n"

// captureProj is a project with a progress file and Claude Code's config
// folder beside it.
func captureProj(t *testing.T) (*proj, Env, string) {
	p := newProj(t)
	p.write(ProgressFile, []byte(handProgress))
	cfg := t.TempDir()
	env := p.env()
	env.Claude = &config.ClaudeEnv{ConfigDir: cfg}
	return p, env, cfg
}

func taskFile(t *testing.T, cfg, session, id, subject, status string) {
	t.Helper()
	dir := filepath.Join(cfg, "tasks", session)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	data, err := json.Marshal(map[string]any{"id": id, "subject": subject, "description": "", "status": status,
		"blocks": []string{}, "blockedBy": []string{}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, id+".json"), data, 0o600))
}

func hookInput(t *testing.T, m map[string]any) []byte {
	t.Helper()
	m["session_id"], m["cwd"], m["transcript_path"] = "s-1", "/w", "/nonexistent.jsonl"
	data, err := json.Marshal(m)
	require.NoError(t, err)
	return data
}

func TestPostToolUseWritesOnlyOnChangeAndDebouncesTheTracker(t *testing.T) {
	p, env, cfg := captureProj(t)
	taskFile(t, cfg, "s-1", "1", "Write the lexer", "in_progress")
	in := hookInput(t, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "TaskCreate", "tool_input": map[string]any{"subject": "Write the lexer"}})

	PostToolUse(context.Background(), env, in)
	assert.Contains(t, string(p.read(ProgressFile)), "- Write the lexer — in progress <!-- ccc:task claude:1 -->\n")
	assert.Contains(t, string(p.read(ProgressFile)), "- Hand task\n")
	assert.Equal(t, 1, p.cp.count(), "the first capture updates the tracker")

	fi, err := os.Stat(p.path(ProgressFile))
	require.NoError(t, err)
	old := time.Unix(1, 0)
	require.NoError(t, os.Chtimes(p.path(ProgressFile), old, old))
	PostToolUse(context.Background(), env, in)
	fi2, err := os.Stat(p.path(ProgressFile))
	require.NoError(t, err)
	assert.Equal(t, old, fi2.ModTime(), "an unchanged list writes nothing (was %s)", fi.ModTime())

	taskFile(t, cfg, "s-1", "1", "Write the lexer", "completed")
	PostToolUse(context.Background(), env, in)
	assert.Contains(t, string(p.read(ProgressFile)), "- Write the lexer ✓ <!-- ccc:task claude:1 -->\n")
	assert.Equal(t, 1, p.cp.count(), "within hooks.capture_interval the tracker is not called")

	env.Now = func() time.Time { return testNow.Add(6 * time.Minute) }
	taskFile(t, cfg, "s-1", "2", "Write the parser", "pending")
	PostToolUse(context.Background(), env, in)
	assert.Equal(t, 2, p.cp.count(), "once the interval passed, a change updates the tracker")
	assert.Empty(t, p.errs.String())
}

func TestPostToolUseTodoWriteFromItsInput(t *testing.T) {
	p, env, _ := captureProj(t)
	in := hookInput(t, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "TodoWrite", "tool_input": map[string]any{
		"todos": []map[string]string{{"content": "Lexer", "status": "completed", "activeForm": "Lexing"},
			{"content": "Parser", "status": "in_progress", "activeForm": "Parsing"}}}})
	PostToolUse(context.Background(), env, in)
	got := string(p.read(ProgressFile))
	assert.Contains(t, got, "- Lexer ✓ <!-- ccc:task claude:t-44ed3057 -->\n")
	assert.Contains(t, got, "- Parser — Parsing <!-- ccc:task claude:t-b17d4512 -->\n")
}

func TestPostToolUseCreatesTheProgressFileFromTheFirstList(t *testing.T) {
	p, env, cfg := captureProj(t)
	require.NoError(t, os.Remove(p.path(ProgressFile)))
	PostToolUse(context.Background(), env, hookInput(t, map[string]any{"tool_name": "TodoWrite", "tool_input": map[string]any{"todos": []any{}}}))
	assert.Nil(t, p.read(ProgressFile), "an empty list creates nothing")
	assert.Zero(t, p.cp.count())
	assert.Empty(t, p.errs.String())

	taskFile(t, cfg, "s-1", "1", "Write the lexer", "pending")
	PostToolUse(context.Background(), env, hookInput(t, map[string]any{"tool_name": "TaskUpdate"}))
	assert.Contains(t, string(p.read(ProgressFile)), "- Write the lexer <!-- ccc:task claude:1 -->\n")
	assert.Equal(t, "ccc hook post-tool-use: created .ccc-progress.md from the agent's task list\n", p.errs.String())
	assert.Equal(t, 1, p.cp.count(), "the first capture tells the tracker")

	taskFile(t, cfg, "s-1", "2", "Write the parser", "pending")
	PostToolUse(context.Background(), env, hookInput(t, map[string]any{"tool_name": "TaskCreate"}))
	assert.Contains(t, string(p.read(ProgressFile)), "- Write the parser <!-- ccc:task claude:2 -->\n")
	assert.Equal(t, "ccc hook post-tool-use: created .ccc-progress.md from the agent's task list\n", p.errs.String(), "said once")
}

func TestPostToolUseOtherTools(t *testing.T) {
	p, env, _ := captureProj(t)
	p.write(ProgressFile, []byte(handProgress))
	PostToolUse(context.Background(), env, hookInput(t, map[string]any{"tool_name": "Bash"}))
	assert.Equal(t, handProgress, string(p.read(ProgressFile)))
	assert.Zero(t, p.cp.count())
	assert.Empty(t, p.errs.String())
}

func TestTaskCompletedIsABoundary(t *testing.T) {
	p, env, cfg := captureProj(t)
	taskFile(t, cfg, "s-1", "1", "Write the lexer", "in_progress")
	TaskCompleted(context.Background(), env, hookInput(t, map[string]any{"hook_event_name": "TaskCompleted", "task_id": "1", "task_subject": "Write the lexer"}))
	assert.Contains(t, string(p.read(ProgressFile)), "- Write the lexer ✓ <!-- ccc:task claude:1 -->\n", "completed from the event")
	assert.Equal(t, 1, p.cp.count())
}

func TestStopFailureBlocksUntilTheNextStop(t *testing.T) {
	p, env, _ := captureProj(t)
	StopFailure(context.Background(), env, hookInput(t, map[string]any{"hook_event_name": "StopFailure", "error": "rate_limit", "error_details": "429\nToo Many Requests"}))
	assert.Contains(t, string(p.read(ProgressFile)), "## Blockers\n- API error: rate_limit — 429 Too Many Requests\n")
	assert.Equal(t, 1, p.cp.count())
	Stop(context.Background(), env, hookInput(t, map[string]any{"hook_event_name": "Stop", "last_assistant_message": "done"}))
	assert.Contains(t, string(p.read(ProgressFile)), "## Blockers\n- None\n")
	assert.NotContains(t, string(p.read(ProgressFile)), "API error")
}

// An API error's text is captured text too: a NUL byte or an escape in it
// must not make a progress file ccc refuses.
func TestStopFailureCleansTheErrorText(t *testing.T) {
	p, env, _ := captureProj(t)
	StopFailure(context.Background(), env, hookInput(t, map[string]any{"hook_event_name": "StopFailure", "error": "rate\x00_limit",
		"error_details": "\x1b[31m429\x1b[0m\u202e Too Many Requests"}))
	assert.Contains(t, string(p.read(ProgressFile)), "## Blockers\n- API error: rate_limit — 429 Too Many Requests\n")
}

// clearInput is SessionStart source clear for session s-2, whose transcript
// sits in transcripts beside the ones of the project's earlier sessions.
func clearInput(t *testing.T, transcripts string) []byte {
	t.Helper()
	data, err := json.Marshal(map[string]any{"hook_event_name": "SessionStart", "source": "clear", "session_id": "s-2",
		"cwd": "/w", "transcript_path": filepath.Join(transcripts, "s-2.jsonl")})
	require.NoError(t, err)
	return data
}

// The error's details are cut to 200 characters after they are redacted,
// never before: a token cut in two no longer has a token's shape, and its
// first part would reach the progress file and the tracker.
func TestStopFailureRedactsBeforeItCuts(t *testing.T) {
	p, env, _ := captureProj(t)
	tok := "gh" + "p_" + strings.Repeat("Ab3", 12)
	details := strings.Repeat("x", 180) + " " + tok + " rejected"
	StopFailure(context.Background(), env, hookInput(t, map[string]any{"hook_event_name": "StopFailure", "error": "authentication_failed", "error_details": details}))
	got := string(p.read(ProgressFile))
	assert.Contains(t, got, "- API error: authentication_failed — ")
	assert.NotContains(t, got, tok[:12])
}

func TestSessionStartClearCarriesTheTaskListOver(t *testing.T) {
	p, env, cfg := captureProj(t)
	taskFile(t, cfg, "s-1", "1", "Write the lexer", "in_progress")
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "tasks", "s-1", ".highwatermark"), []byte("1"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "tasks", "s-1", ".lock"), nil, 0o600))
	PostToolUse(context.Background(), env, hookInput(t, map[string]any{"tool_name": "TaskCreate"}))
	transcripts := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(transcripts, "s-1.jsonl"), []byte("{}\n"), 0o600))

	out := SessionStart(context.Background(), env, clearInput(t, transcripts), func(context.Context, string) (Resume, bool, error) { return Resume{}, false, nil })
	assert.Empty(t, out, "clear adds no context")
	assert.Empty(t, p.errs.String())
	got, err := os.ReadFile(filepath.Join(cfg, "tasks", "s-2", "1.json"))
	require.NoError(t, err)
	assert.Contains(t, string(got), "Write the lexer")
	_, err = os.Stat(filepath.Join(cfg, "tasks", "s-2", ".highwatermark"))
	assert.NoError(t, err, "new ids go on from the old ones")
	_, err = os.Stat(filepath.Join(cfg, "tasks", "s-2", ".lock"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the lock stays behind")
}

// .ccc/capture-session is a project file: a cloned repository can plant it
// to have another project's task list (a session of the same user that
// Claude Code keeps elsewhere) copied into this one. It is followed only
// when it names a session of this project, one whose transcript Claude Code
// keeps beside the new session's; anything else is ignored with one line.
func TestSessionStartClearIgnoresAPlantedSession(t *testing.T) {
	for name, planted := range map[string]string{
		"another project's session": "other-project-session",
		"a path out of the tasks":   "../../secret",
		"a line break":              "s-1\nx",
	} {
		t.Run(name, func(t *testing.T) {
			p, env, cfg := captureProj(t)
			taskFile(t, cfg, "other-project-session", "1", "Other project's plan", "in_progress")
			require.NoError(t, os.MkdirAll(filepath.Join(p.root, ".ccc"), 0o755))
			p.write(filepath.Join(".ccc", "capture-session"), []byte(planted))
			transcripts := t.TempDir() // this project's: no other-project-session.jsonl in it

			SessionStart(context.Background(), env, clearInput(t, transcripts), func(context.Context, string) (Resume, bool, error) { return Resume{}, false, nil })
			_, err := os.Stat(filepath.Join(cfg, "tasks", "s-2"))
			assert.ErrorIs(t, err, os.ErrNotExist, "nothing carried over")
			assert.Equal(t, 1, strings.Count(p.errs.String(), "\n"), p.errs.String())
			assert.Contains(t, p.errs.String(), "capture-session")
		})
	}
}

func TestSessionStartWithoutAListAsksToRecreateIt(t *testing.T) {
	p, env, _ := captureProj(t)
	p.write(ProgressFile, []byte(strings.Replace(handProgress, "- Hand task\n", "- Lexer <!-- ccc:task claude:1 -->\n", 1)))
	in := hookInput(t, map[string]any{"hook_event_name": "SessionStart", "source": "resume"})
	out := SessionStart(context.Background(), env, in, func(context.Context, string) (Resume, bool, error) {
		return Resume{Prompt: "Resume the session.", TaskM: 1}, true, nil
	})
	assert.Contains(t, string(out), "Remaining (1): Lexer")
	assert.Contains(t, string(out), "Your task list is empty in this session. Re-create it")
	assert.NotContains(t, string(out), "ccc:task")
}

// A call the agent refused never changed its list: its input is not the list.
func TestToolEventOfARefusedCallChangesNothing(t *testing.T) {
	todos := map[string]any{"todos": []map[string]string{{"content": "Something else", "status": "pending"}}}
	for name, extra := range map[string]map[string]any{
		"tool_response is_error":      {"hook_event_name": "PostToolUse", "tool_response": map[string]any{"is_error": true, "content": "InputValidationError"}},
		"tool_response error":         {"hook_event_name": "PostToolUse", "tool_response": map[string]any{"error": "activeForm is missing"}},
		"PostToolUseFailure":          {"hook_event_name": "PostToolUseFailure", "error": "InputValidationError: activeForm is missing"},
		"tool_response error message": {"hook_event_name": "PostToolUse", "tool_response": map[string]any{"error": map[string]any{"message": "bad"}}},
	} {
		t.Run(name, func(t *testing.T) {
			p, env, _ := captureProj(t)
			before := p.read(ProgressFile)
			m := map[string]any{"tool_name": "TodoWrite", "tool_input": todos}
			for k, v := range extra {
				m[k] = v
			}
			PostToolUse(context.Background(), env, hookInput(t, m))
			assert.Equal(t, string(before), string(p.read(ProgressFile)))
		})
	}
}

// A subagent's TodoWrite (agent_id set) is the subagent's list, never the
// session's: it goes to the subagent's record when there is one.
func TestPostToolUseOfASubagent(t *testing.T) {
	p, env, _ := captureProj(t)
	before := string(p.read(ProgressFile))
	sub := func() []byte {
		return hookInput(t, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "TodoWrite",
			"agent_id": "a1b2c3d4e5", "agent_type": "Explore", "tool_input": map[string]any{
				"todos": []map[string]string{{"content": "Read the lexer", "status": "completed", "activeForm": "Reading"},
					{"content": "Read the parser", "status": "in_progress", "activeForm": "Reading the parser"}}}})
	}
	PostToolUse(context.Background(), env, sub())
	assert.Equal(t, before, string(p.read(ProgressFile)), "no record: ignored")
	assert.Empty(t, records.ReadSubagents(p.root))

	require.NoError(t, records.WriteSubagent(p.root, records.Subagent{ID: "a1b2c3d4e5", Type: "Explore", Session: "s-1", Status: "running"}))
	PostToolUse(context.Background(), env, sub())
	assert.Equal(t, before, string(p.read(ProgressFile)), "the session's list is untouched")
	subs := records.ReadSubagents(p.root)
	require.Len(t, subs, 1)
	assert.Equal(t, "Reading the parser", subs[0].Task)
	assert.Equal(t, 1, subs[0].Done)
	assert.Equal(t, 2, subs[0].Total)
	assert.Equal(t, "running", subs[0].Status)
}
