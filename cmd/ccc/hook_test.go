package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/hook"
	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/outbox"
)

var hookNow = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

// hookRun runs `ccc args...` as Claude Code runs a hook: stdin holds the
// hook's JSON, the project root comes from CCC_PROJECT_ROOT.
func hookRun(t *testing.T, root, stdin string, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	vars := map[string]string{"CCC_PROJECT_ROOT": root}
	for k, v := range env {
		vars[k] = v
	}
	f := &Factory{
		IO:     IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errs},
		Getenv: func(k string) string { return vars[k] },
		Getwd:  func() (string, error) { return root, nil },
		Now:    func() time.Time { return hookNow },
	}
	code = run(args, f)
	return code, out.String(), errs.String()
}

// hookState is a CCC execution in quick mode on its second task of 3
// (taskIndex counts from 0).
func hookState(over string) string {
	s := `{
  "phase": "execution",
  "taskIndex": 1,
  "totalTasks": 3,
  "taskIteration": 1,
  "globalIteration": 4,
  "executionMode": "quick",
  "linearIssue": "CIA-12",
  "specPath": "docs/spec.md",
  "activeTaskFiles": ["parser.go"]` + over + `
}
`
	return s
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(t, err)
	return string(data)
}

func stopInput(msg string) string {
	b, _ := json.Marshal(map[string]any{
		"session_id": "8f3c2a1e", "transcript_path": "/nonexistent/t.jsonl", "cwd": "/home/dev/shop",
		"hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": msg,
	})
	return string(b)
}

const retryReason = "Continue CCC execution for CIA-12. Mode: quick. Read .ccc-progress.md for completed task context. " +
	"Task 2 did not signal TASK_COMPLETE. Retry attempt 2 of 5. Execute task 2 from the decomposed task list. " +
	"Use parallel subagents for codebase reads; single subagent for build/test. Before implementing, search the codebase for existing solutions. Don't assume functionality is missing. " +
	"When presenting options, always highlight your recommended choice. For eval tools, run structural analysis first before expensive execution stages. " +
	"Cost profile: budget. Checkpoint if estimated eval cost exceeds $10. Signal TASK_COMPLETE when done."

// TestHookStop runs `ccc hook stop` end to end, with the real checkpoint
// pipeline at gate boundaries and no tracker configured.
func TestHookStop(t *testing.T) {
	t.Parallel()
	t.Run("retry: no checkpoint", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, state.FileName), hookState(""))
		code, out, errs := hookRun(t, root, stopInput("still working"), nil, "hook", "stop")
		assert.Equal(t, 0, code)
		assert.Equal(t, `{"decision":"block","reason":"`+retryReason+`"}`+"\n", out)
		assert.Empty(t, errs)
		assert.NoFileExists(t, filepath.Join(root, ".ccc-progress.md"))
	})
	t.Run("next task: the checkpoint saves progress first", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, state.FileName), hookState(""))
		code, out, errs := hookRun(t, root, stopInput("done. TASK_COMPLETE"), nil, "hook", "stop")
		assert.Equal(t, 0, code)
		assert.Contains(t, out, `{"decision":"block","reason":"Continue CCC execution for CIA-12. Mode: quick. Read .ccc-progress.md for completed task context. Execute task 3 of 3 from the decomposed task list. Spec: docs/spec.md.`)
		assert.Empty(t, errs)
		progress := readFile(t, filepath.Join(root, ".ccc-progress.md"))
		assert.Contains(t, progress, "CIA-12", "the progress document names the issue")
		st, err := state.Parse([]byte(readFile(t, filepath.Join(root, state.FileName))))
		require.NoError(t, err)
		n, _ := st.Int("taskIndex")
		assert.Equal(t, 2, n)
		assert.False(t, st.Has("ccc"), "no tracker: the checkpoint leaves nothing in CCC's state")
	})
	t.Run("last task: state deleted, progress kept", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, state.FileName), hookState(`, "taskIndex": 2`))
		mine := "# Session Progress\n\n**Issue:** CIA-12\n\n## Notes\n\nkeep this line\n"
		writeFile(t, filepath.Join(root, ".ccc-progress.md"), mine)
		code, out, _ := hookRun(t, root, stopInput("TASK_COMPLETE"), nil, "hook", "stop")
		assert.Equal(t, 0, code)
		assert.Empty(t, out)
		assert.NoFileExists(t, filepath.Join(root, state.FileName), "not recreated by the checkpoint")
		assert.Contains(t, readFile(t, filepath.Join(root, ".ccc-progress.md")), "keep this line")
	})
	t.Run("halt: state byte-identical", func(t *testing.T) {
		root := t.TempDir()
		orig := hookState(`, "taskIteration": 5`)
		writeFile(t, filepath.Join(root, state.FileName), orig)
		code, out, _ := hookRun(t, root, stopInput("still failing"), nil, "hook", "stop")
		assert.Equal(t, 0, code)
		assert.Equal(t, `{"systemMessage":"Task 2 failed after 5 attempts. Halting — manual intervention required."}`+"\n", out)
		assert.Equal(t, orig, readFile(t, filepath.Join(root, state.FileName)))
		assert.FileExists(t, filepath.Join(root, ".ccc-progress.md"))
	})
	for name, stdin := range map[string]string{"bad stdin": "not json", "empty stdin": "", "array": "[]"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			orig := hookState("")
			writeFile(t, filepath.Join(root, state.FileName), orig)
			code, out, errs := hookRun(t, root, stdin, nil, "hook", "stop")
			assert.Equal(t, 0, code, "[d] never exits 2")
			assert.Empty(t, out)
			assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
			assert.Equal(t, orig, readFile(t, filepath.Join(root, state.FileName)))
		})
	}
	t.Run("mistyped field", func(t *testing.T) {
		root := t.TempDir()
		orig := hookState(`, "maxTaskIterations": "5"`)
		writeFile(t, filepath.Join(root, state.FileName), orig)
		code, out, errs := hookRun(t, root, stopInput("x"), nil, "hook", "stop")
		assert.Equal(t, 0, code)
		assert.Empty(t, out)
		assert.Contains(t, errs, "maxTaskIterations")
	})
	t.Run("missing project root", func(t *testing.T) {
		code, out, errs := hookRun(t, filepath.Join(t.TempDir(), "gone"), stopInput("x"), nil, "hook", "stop")
		assert.Equal(t, 0, code)
		assert.Empty(t, out)
		assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	})
}

// TestHookStopTracker: with Linear configured, a gate boundary updates the
// issue's status comment, and the comment's id is the only thing the
// checkpoint adds to CCC's state.
func TestHookStopTracker(t *testing.T) {
	t.Parallel()
	srv := linearfake.New()
	defer srv.Close()
	srv.AddIssue("CIA-12", "Parser")
	env := map[string]string{"LINEAR_API_KEY": linearfake.APIKey, "LINEAR_API_URL": srv.URL}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, state.FileName), hookState(""))

	code, out, errs := hookRun(t, root, stopInput("TASK_COMPLETE"), env, "hook", "stop")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "Execute task 3 of 3")
	assert.Empty(t, errs)
	comments := srv.Comments("CIA-12")
	require.Len(t, comments, 1)
	assert.Contains(t, comments[0].Body, "Checkpoint Status")
	assert.NotContains(t, errs+out, linearfake.APIKey)

	st, err := state.Parse([]byte(readFile(t, filepath.Join(root, state.FileName))))
	require.NoError(t, err)
	assert.Equal(t, comments[0].ID, st.String("checkpointCommentId"))
	raw, _ := st.Raw("ccc")
	assert.Contains(t, string(raw), `"refs"`)
	assert.NotContains(t, string(raw), `"checkpoint"`, "only the tracker's bookkeeping")

	// The last task: the state goes, the same comment is updated.
	code, out, _ = hookRun(t, root, stopInput("TASK_COMPLETE"), env, "hook", "stop")
	require.Equal(t, 0, code)
	assert.Empty(t, out)
	assert.NoFileExists(t, filepath.Join(root, state.FileName))
	require.Len(t, srv.Comments("CIA-12"), 1, "updated in place")
}

// TestHookStopSlowTracker: a tracker slower than hooks.checkpoint_timeout
// does not hold the agent: the block is the same, the failure is a line
// on stderr.
func TestHookStopSlowTracker(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits for the checkpoint deadline")
	}
	srv := linearfake.New()
	defer srv.Close()
	srv.AddIssue("CIA-12", "Parser")
	srv.Inject(linearfake.Repeat(20, linearfake.Slow(5*time.Second))...)
	root := t.TempDir()
	writeFile(t, filepath.Join(root, state.FileName), hookState(""))
	writeFile(t, filepath.Join(root, ".ccc-preferences.yaml"), "hooks:\n  checkpoint_timeout: 300ms\n")
	env := map[string]string{"LINEAR_API_KEY": linearfake.APIKey, "LINEAR_API_URL": srv.URL}
	code, out, errs := hookRun(t, root, stopInput("TASK_COMPLETE"), env, "hook", "stop")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "Execute task 3 of 3")
	assert.Contains(t, errs, "ccc hook stop: checkpoint: ")
	assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	// The update that did not land in time waits in the outbox for the
	// next run (or ccc sync).
	queued, err := outbox.List(root, hookNow)
	require.NoError(t, err)
	require.Len(t, queued, 1)
	assert.Equal(t, "linear", queued[0].Sink)
	assert.Equal(t, "CIA-12", queued[0].Target)
	assert.Contains(t, queued[0].Body, "Checkpoint Status")
	assert.NotContains(t, readFile(t, filepath.Join(root, projectfs.Dir, outbox.Dir, queued[0].Key()+".json")), linearfake.APIKey)
}

// TestHookStopFinalCheckpoint: the stop that ends CCC's loop deletes the
// state, and its checkpoint still records that every task is done: in
// .ccc-progress.md, in the tracker comment, and in what session-start
// gives the next session.
func TestHookStopFinalCheckpoint(t *testing.T) {
	t.Parallel()
	srv := linearfake.New()
	defer srv.Close()
	srv.AddIssue("CIA-12", "Parser")
	env := map[string]string{"LINEAR_API_KEY": linearfake.APIKey, "LINEAR_API_URL": srv.URL}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, state.FileName), hookState(`, "taskIndex": 0, "totalTasks": 2`))

	code, out, errs := hookRun(t, root, stopInput("TASK_COMPLETE"), env, "hook", "stop")
	require.Equal(t, 0, code)
	require.Contains(t, out, "Execute task 2 of 2", "the reason and the progress file name the same task")
	require.Empty(t, errs)
	require.Contains(t, readFile(t, filepath.Join(root, ".ccc-progress.md")), "Current task: task 2 of 2")

	code, out, errs = hookRun(t, root, stopInput("Second task done. TASK_COMPLETE"), env, "hook", "stop")
	require.Equal(t, 0, code)
	assert.Empty(t, out, "the loop is over: the stop is allowed")
	assert.Equal(t, "ccc hook stop: task loop over (2 of 2 tasks done): removed .ccc-state.json; its backup is .ccc/backups/.ccc-state.json.20261121T134500.000000000Z\n", errs,
		"the only line: the state's removal, naming its backup")
	assert.NoFileExists(t, filepath.Join(root, state.FileName))

	doc, err := progress.Parse([]byte(readFile(t, filepath.Join(root, ".ccc-progress.md"))))
	require.NoError(t, err)
	assert.Equal(t, 2, doc.CompletedCount())
	assert.Equal(t, 2, doc.TaskM())
	assert.Equal(t, progress.Complete, doc.Status())
	assert.Nil(t, doc.Current)
	assert.Contains(t, doc.ContinuationPrompt, "Current task: none (2 of 2 tasks done)")
	assert.NotContains(t, doc.ContinuationPrompt, "continue")

	comments := srv.Comments("CIA-12")
	require.Len(t, comments, 1, "updated in place")
	body := comments[0].Body
	assert.Contains(t, body, "2 of 2")
	assert.Contains(t, body, "Complete")
	assert.NotContains(t, body, "continue Task 2")

	code, out, _ = hookRun(t, root, `{"session_id":"s2","hook_event_name":"SessionStart","source":"startup"}`, nil, "hook", "session-start")
	require.Equal(t, 0, code)
	assert.NotContains(t, out, "continue Task 2", "the finished task is not handed to the next session")
	assert.NotContains(t, out, "Current task: task 2 of 2")
}

// TestHookPreCompactKeepsLoop: pre-compact leaves CCC's loop keys to the
// stop hook, even when the progress document says more tasks are done than
// the state does (the recovery sync would otherwise rewrite the state).
func TestHookPreCompactKeepsLoop(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	orig := `{
  "phase": "execution",
  "taskIndex": 0,
  "totalTasks": 3,
  "taskIteration": 2,
  "globalIteration": 7,
  "executionMode": "quick",
  "linearIssue": "CIA-12",
  "lastUpdatedAt": "2025-06-01T10:00:00Z"
}
`
	writeFile(t, filepath.Join(root, state.FileName), orig)
	writeFile(t, filepath.Join(root, ".ccc-progress.md"), "# Session Progress\n\n**Issue:** CIA-12\n**Session:** 2026-11-20T09:00:00Z\n\n"+
		"## Completed Tasks\n- Lexer ✓\n- Parser ✓\n\n## Current Task\n- Printer\n\n## Remaining Tasks\n\n## Continuation Prompt\nResume CIA-12.\n")
	code, out, errs := hookRun(t, root, `{"session_id":"s","hook_event_name":"PreCompact","trigger":"auto"}`, nil, "hook", "pre-compact")
	require.Equal(t, 0, code)
	assert.Empty(t, out)
	assert.Empty(t, errs)
	assert.Equal(t, orig, readFile(t, filepath.Join(root, state.FileName)), "CCC's state byte-identical")
	assert.Contains(t, readFile(t, filepath.Join(root, ".ccc-progress.md")), "**Session:** 2026-11-21T13:45:00Z", "progress saved")
}

// TestHookStopNoSubprocess: with CCC_PROJECT_ROOT set, `ccc hook stop`
// needs no other program: the binary, run with an empty PATH, answers as
// it does with one, on the plain paths and at a gate boundary.
func TestHookStopNoSubprocess(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("ccc") // this test binary, which TestMain puts on PATH as ccc
	require.NoError(t, err)
	for _, msg := range []string{"still working", "TASK_COMPLETE"} {
		t.Run(msg, func(t *testing.T) {
			type result struct{ stdout, stderr, state, progress string }
			runWith := func(path string) result {
				root := t.TempDir()
				writeFile(t, filepath.Join(root, state.FileName), hookState(""))
				cmd := exec.Command(bin, "hook", "stop")
				cmd.Dir = t.TempDir() // not the project: only CCC_PROJECT_ROOT leads there
				cmd.Env = []string{"PATH=" + path, "HOME=" + t.TempDir(), "CCC_PROJECT_ROOT=" + root, "CCC_NOW=2026-11-21T13:45:00Z",
					"GORACE=atexit_sleep_ms=0"}
				cmd.Stdin = strings.NewReader(stopInput(msg))
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				require.NoError(t, cmd.Run(), stderr.String())
				return result{stdout.String(), stderr.String(), readFile(t, filepath.Join(root, state.FileName)),
					readFile(t, filepath.Join(root, ".ccc-progress.md"))}
			}
			withPath, empty := runWith(os.Getenv("PATH")), runWith("")
			assert.Equal(t, withPath, empty)
			assert.Contains(t, empty.stdout, `{"decision":"block"`)
			assert.Empty(t, empty.stderr)
		})
	}
}

func TestHookOtherEvents(t *testing.T) {
	t.Parallel()
	t.Run("pre-compact saves progress", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, state.FileName), hookState(""))
		code, out, errs := hookRun(t, root, `{"session_id":"s","hook_event_name":"PreCompact","trigger":"auto"}`, nil, "hook", "pre-compact")
		assert.Equal(t, 0, code)
		assert.Empty(t, out)
		assert.Empty(t, errs)
		assert.Contains(t, readFile(t, filepath.Join(root, ".ccc-progress.md")), "CIA-12")
	})
	t.Run("pre-compact outside a ccc project", func(t *testing.T) {
		root := t.TempDir()
		code, out, errs := hookRun(t, root, `{"hook_event_name":"PreCompact","trigger":"manual"}`, nil, "hook", "pre-compact")
		assert.Equal(t, 0, code)
		assert.Empty(t, out)
		assert.Contains(t, errs, "not a ccc project")
		assert.NoFileExists(t, filepath.Join(root, ".ccc-progress.md"))
	})
	t.Run("session-start after compaction", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, state.FileName), hookState(""))
		code, _, _ := hookRun(t, root, `{"hook_event_name":"PreCompact","trigger":"auto"}`, nil, "hook", "pre-compact")
		require.Equal(t, 0, code)
		code, out, errs := hookRun(t, root, `{"session_id":"s","hook_event_name":"SessionStart","source":"compact"}`, nil, "hook", "session-start")
		assert.Equal(t, 0, code)
		assert.Empty(t, errs)
		var got struct {
			HookSpecificOutput struct {
				HookEventName     string `json:"hookEventName"`
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		assert.Equal(t, "SessionStart", got.HookSpecificOutput.HookEventName)
		assert.Contains(t, got.HookSpecificOutput.AdditionalContext, "Resume CIA-12")
		assert.Contains(t, got.HookSpecificOutput.AdditionalContext, "ccc status: CIA-12, task ")
	})
	t.Run("session-start without a checkpoint", func(t *testing.T) {
		code, out, errs := hookRun(t, t.TempDir(), `{"hook_event_name":"SessionStart","source":"resume"}`, nil, "hook", "session-start")
		assert.Equal(t, 0, code)
		assert.Empty(t, out)
		assert.Contains(t, errs, "no checkpoint")
	})
	t.Run("session-end keeps a copy", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, ".ccc-progress.md"), "# Session Progress\n")
		code, out, errs := hookRun(t, root, `{"hook_event_name":"SessionEnd","reason":"logout"}`, nil, "hook", "session-end")
		assert.Equal(t, 0, code)
		assert.Empty(t, out)
		assert.Empty(t, errs)
		assert.Equal(t, "# Session Progress\n", readFile(t, filepath.Join(root, ".ccc", "sessions", ".ccc-progress-20261121T134500Z.md")))
	})
}

// TestHookNeverFails: whatever the command line, a hook exits 0 and prints
// nothing on stdout that Claude Code could take for an answer.
func TestHookNeverFails(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"hook", "stop", "extra", "args"},
		{"hook", "stop", "--from-a-newer-plugin", "x"},
		{"hook", "post-compact"},
		{"hook", "session-start", "--verbose"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, _ := hookRun(t, t.TempDir(), `{"session_id":"s"}`, nil, args...)
			assert.Equal(t, 0, code)
			assert.Empty(t, out)
		})
	}
	// Flags cobra cannot parse: [d] holds for them too (exit 2 would block
	// the agent), with one line on stderr.
	for _, args := range [][]string{
		{"hook", "stop", "--dir"},
		{"--bogus", "hook", "stop"},
		{"--dir", "hook", "stop"},
		{"hook", "--bogus", "stop"},
		{"hook", "pre-compact", "--dir"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errs := hookRun(t, t.TempDir(), `{"session_id":"s"}`, nil, args...)
			assert.Equal(t, 0, code)
			assert.Empty(t, out)
			assert.Equal(t, 1, strings.Count(errs, "\n"), "one line on stderr: %q", errs)
			assert.True(t, strings.HasPrefix(errs, "ccc hook"), errs)
		})
	}
	// Not a hook: usage errors keep their exit status.
	for _, args := range [][]string{{"checkpoint", "--bogus", "hook"}, {"--bogus"}, {"--dir", "/x", "checkpoint", "--nope"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, _ := hookRun(t, t.TempDir(), "", nil, args...)
			assert.Equal(t, 2, code)
		})
	}
}

// commandTree is the binary's command tree, with `ccc hook` in it.
func commandTree(t *testing.T) *cobra.Command {
	t.Helper()
	f := &Factory{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
	root := NewCmdRoot(f)
	if c, _, err := root.Find([]string{"hook"}); err != nil || c == root {
		dir := ""
		root.AddCommand(NewCmdHook(f, &dir))
	}
	return root
}

// cccCall finds the `ccc ...` calls in a plugin file's text: the plugin's
// launcher (${CLAUDE_PLUGIN_ROOT}/bin/ccc, quoted or not) or ccc on PATH.
var cccCall = regexp.MustCompile("(?:^|[`\"(])(?:\\$\\{CLAUDE_PLUGIN_ROOT\\}/bin/ccc\"?|ccc) ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)*)")

// launcher is how the plugin's hooks call ccc: its own launcher, which finds
// or fetches the binary (plugin/bin/ccc), quoted for a path with spaces.
const launcher = `"${CLAUDE_PLUGIN_ROOT}/bin/ccc"`

// TestPluginFiles checks the plugin against Claude Code's formats and
// checks that every ccc command it calls exists in this binary.
func TestPluginFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "plugin")
	var manifest struct {
		Name        string         `json:"name"`
		Version     string         `json:"version"`
		Description string         `json:"description"`
		Author      map[string]any `json:"author"`
		Hooks       string         `json:"hooks"`
	}
	data, err := os.ReadFile(filepath.Join(dir, ".claude-plugin", "plugin.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &manifest))
	assert.Equal(t, "ccc", manifest.Name, "commands are /ccc:...")
	assert.Regexp(t, `^[0-9]+\.[0-9]+\.[0-9]+$`, manifest.Version)
	assert.NotEmpty(t, manifest.Description)
	assert.Empty(t, manifest.Hooks, "hooks/hooks.json is loaded from its standard place")

	var hooks struct {
		Description string `json:"description"`
		Hooks       map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string  `json:"type"`
				Command string  `json:"command"`
				Timeout float64 `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	data, err = os.ReadFile(filepath.Join(dir, "hooks", "hooks.json"))
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&hooks))
	want := map[string]string{
		"Stop": launcher + " hook stop", "PreCompact": launcher + " hook pre-compact",
		"SessionStart": launcher + " hook session-start", "SessionEnd": launcher + " hook session-end",
		"PostToolUse": launcher + " hook post-tool-use", "TaskCompleted": launcher + " hook task-completed",
		"PostCompact": launcher + " hook post-compact", "StopFailure": launcher + " hook stop-failure",
		"SubagentStart": launcher + " hook subagent-start", "SubagentStop": launcher + " hook subagent-stop",
	}
	assert.Len(t, hooks.Hooks, len(want))
	var calls []string
	for event, groups := range hooks.Hooks {
		require.Len(t, groups, 1, event)
		require.Len(t, groups[0].Hooks, 1, event)
		h := groups[0].Hooks[0]
		assert.Equal(t, "command", h.Type, event)
		assert.Equal(t, want[event], h.Command, event)
		assert.Greater(t, h.Timeout, 0.0, "%s: explicit timeout", event)
		calls = append(calls, "ccc "+strings.TrimPrefix(h.Command, launcher+" "))
	}
	// Claude Code kills a hook at its timeout: the longest checkpoint
	// deadline the hooks accept must end well before it.
	longest := hook.MaxCheckpointTimeout.Seconds() + 5
	assert.GreaterOrEqual(t, hooks.Hooks["Stop"][0].Hooks[0].Timeout, longest, "Stop outlasts the checkpoint deadline")
	assert.GreaterOrEqual(t, hooks.Hooks["PreCompact"][0].Hooks[0].Timeout, longest)
	assert.Equal(t, "manual|auto", hooks.Hooks["PreCompact"][0].Matcher)
	assert.Equal(t, "startup|resume|compact|clear", hooks.Hooks["SessionStart"][0].Matcher, "clear carries the task list over")
	assert.Equal(t, "TaskCreate|TaskUpdate|TodoWrite", hooks.Hooks["PostToolUse"][0].Matcher, "only the task tools, never every tool")
	assert.GreaterOrEqual(t, hooks.Hooks["TaskCompleted"][0].Hooks[0].Timeout, longest, "TaskCompleted updates the tracker")
	assert.GreaterOrEqual(t, hooks.Hooks["StopFailure"][0].Hooks[0].Timeout, longest)

	cmds, err := filepath.Glob(filepath.Join(dir, "commands", "*.md"))
	require.NoError(t, err)
	var names []string
	for _, path := range cmds {
		names = append(names, filepath.Base(path))
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		text := string(data)
		require.True(t, strings.HasPrefix(text, "---\n"), "%s: frontmatter", path)
		front, _, ok := strings.Cut(strings.TrimPrefix(text, "---\n"), "\n---\n")
		require.True(t, ok, "%s: frontmatter closes", path)
		assert.Contains(t, front, "description: ", path)
		for _, m := range cccCall.FindAllStringSubmatch(text, -1) {
			calls = append(calls, "ccc "+m[1])
		}
	}
	assert.ElementsMatch(t, []string{"checkpoint.md", "go.md", "status.md"}, names)
	// /ccc:checkpoint passes what the user typed after it to ccc.
	data, err = os.ReadFile(filepath.Join(dir, "commands", "checkpoint.md"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "`${CLAUDE_PLUGIN_ROOT}/bin/ccc checkpoint $ARGUMENTS`")
	// Every call in a command (a !`...` line, a "Run `...`" step) goes
	// through the launcher; the bare ccc form is only in allowed-tools (the launcher's directory is on the
	// Bash tool's PATH).
	for _, path := range cmds {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		body := regexp.MustCompile(`Bash\([^)]*\)`).ReplaceAllString(string(data), "")
		for _, m := range regexp.MustCompile("(?:!`|Run `)ccc [a-z]").FindAllString(body, -1) {
			t.Errorf("%s: %q calls ccc from PATH, not ${CLAUDE_PLUGIN_ROOT}/bin/ccc", path, m)
		}
	}
	assert.Contains(t, string(data), "argument-hint: ")

	tree := commandTree(t)
	for _, call := range calls {
		args := strings.Fields(strings.TrimPrefix(call, "ccc "))
		c, rest, err := tree.Find(args)
		require.NoError(t, err, call)
		assert.NotEqual(t, tree, c, "%s: a ccc command", call)
		assert.Empty(t, rest, "%s: every word is a command", call)
	}
	assert.Contains(t, calls, "ccc checkpoint")
	assert.Contains(t, calls, "ccc go")
	assert.Contains(t, calls, "ccc validate")
}

// TestPluginMarketplace: .claude-plugin/marketplace.json, which
// `/plugin marketplace add` reads, parses and lists the plugin directory.
func TestPluginMarketplace(t *testing.T) {
	t.Parallel()
	repo := filepath.Join("..", "..")
	var market struct {
		Name  string `json:"name"`
		Owner struct {
			Name string `json:"name"`
		} `json:"owner"`
		// Claude Code's strict validator warns without a description.
		Metadata struct {
			Description string `json:"description"`
		} `json:"metadata"`
		Plugins []struct {
			Name        string `json:"name"`
			Source      string `json:"source"`
			Description string `json:"description"`
			// Version equals the plugin's (internal/launchtest checks).
			Version string `json:"version"`
		} `json:"plugins"`
	}
	data, err := os.ReadFile(filepath.Join(repo, ".claude-plugin", "marketplace.json"))
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&market))
	assert.NotEmpty(t, market.Name)
	assert.NotEmpty(t, market.Owner.Name)
	assert.NotEmpty(t, market.Metadata.Description)
	require.Len(t, market.Plugins, 1)
	p := market.Plugins[0]
	assert.NotEmpty(t, p.Description)
	require.True(t, strings.HasPrefix(p.Source, "./"), "a path inside the repository: %s", p.Source)
	var manifest struct {
		Name string `json:"name"`
	}
	data, err = os.ReadFile(filepath.Join(repo, filepath.FromSlash(p.Source), ".claude-plugin", "plugin.json"))
	require.NoError(t, err, "the source names the plugin's directory")
	require.NoError(t, json.Unmarshal(data, &manifest))
	assert.Equal(t, manifest.Name, p.Name, "the marketplace entry names the plugin it points to")
}

// TestHookRoot: a hook finds its project from Claude Code's directory, not
// from its own: stdin's cwd, else $CLAUDE_PROJECT_DIR; --dir and
// $CCC_PROJECT_ROOT, set on purpose, win over both.
func TestHookRoot(t *testing.T) {
	t.Parallel()
	proj, other, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(proj, state.FileName), hookState(""))
	writeFile(t, filepath.Join(other, state.FileName), hookState(`, "linearIssue": "OTH-1"`))
	withCwd := func(cwd string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "8f3c2a1e", "cwd": cwd, "last_assistant_message": "still working"})
		return string(b)
	}
	tests := []struct {
		name  string
		stdin string
		env   map[string]string
		args  []string
		want  string // the issue of the project the hook found
	}{
		{"stdin cwd", withCwd(proj), nil, nil, "CIA-12"},
		{"CLAUDE_PROJECT_DIR without cwd", stopInput("still working"), map[string]string{"CLAUDE_PROJECT_DIR": proj}, nil, "CIA-12"},
		{"cwd before CLAUDE_PROJECT_DIR", withCwd(other), map[string]string{"CLAUDE_PROJECT_DIR": proj}, nil, "OTH-1"},
		{"a cwd that does not exist is skipped", withCwd(filepath.Join(elsewhere, "gone")), map[string]string{"CLAUDE_PROJECT_DIR": proj}, nil, "CIA-12"},
		{"CCC_PROJECT_ROOT over cwd", withCwd(proj), map[string]string{"CCC_PROJECT_ROOT": other}, nil, "OTH-1"},
		{"--dir over cwd", withCwd(proj), nil, []string{"--dir", other}, "OTH-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			env := map[string]string{}
			for k, v := range tt.env {
				env[k] = v
			}
			f := &Factory{
				IO:     IOStreams{In: strings.NewReader(tt.stdin), Out: &out, ErrOut: &errs},
				Getenv: func(k string) string { return env[k] },
				Getwd:  func() (string, error) { return elsewhere, nil },
				Now:    func() time.Time { return hookNow },
			}
			code := run(append([]string{"hook", "stop"}, tt.args...), f)
			assert.Equal(t, 0, code)
			assert.Contains(t, out.String(), "Continue CCC execution for "+tt.want+".")
			assert.Empty(t, errs.String())
		})
	}
}

// TestHookUnknownFlag: a flag the hook does not know (a newer plugin's) is
// ignored in exactly one stderr line, and the hook still does its work.
func TestHookUnknownFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		line string
	}{
		{[]string{"hook", "stop", "--from-a-newer-plugin"}, "ccc hook stop: ignoring unknown flag --from-a-newer-plugin"},
		{[]string{"hook", "stop", "--mode=fast", "-q", "x"}, "ccc hook stop: ignoring unknown flag --mode, -q"},
		{[]string{"hook", "stop", "--dir", "", "--later", "--", "--not-a-flag"}, "ccc hook stop: ignoring unknown flag --later"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, filepath.Join(root, state.FileName), hookState(""))
			code, out, errs := hookRun(t, root, stopInput("still working"), nil, tt.args...)
			assert.Equal(t, 0, code)
			assert.Equal(t, `{"decision":"block","reason":"`+retryReason+`"}`+"\n", out, "the hook ran")
			assert.Equal(t, tt.line+"\n", errs)
		})
	}
	t.Run("help is not unknown", func(t *testing.T) {
		code, out, errs := hookRun(t, t.TempDir(), "", nil, "hook", "session-end", "-h")
		assert.Equal(t, 0, code)
		assert.Contains(t, out, "EXIT STATUS")
		assert.Empty(t, errs)
	})
}

// TestHookHelp: every hook subcommand's --help shows examples, how the
// project is found and the exit status.
func TestHookHelp(t *testing.T) {
	t.Parallel()
	for _, event := range []string{"stop", "pre-compact", "session-start", "session-end"} {
		t.Run(event, func(t *testing.T) {
			code, out, errs := hookRun(t, t.TempDir(), "", nil, "hook", event, "--help")
			assert.Equal(t, 0, code)
			assert.Empty(t, errs)
			assert.Contains(t, out, "Examples:\n  # in .claude/settings.json\n")
			assert.Contains(t, out, "| ccc hook "+event)
			assert.Contains(t, out, `the "cwd" of the hook's stdin`)
			assert.Contains(t, out, "EXIT STATUS\n  0  always")
		})
	}
}
