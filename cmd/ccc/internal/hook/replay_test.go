package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/progress"
)

// The replay suite: sessions the agents recorded themselves, published by
// others (each agent's testdata/real/README.md names them), fed to the
// hooks event by event as the agent would call them, with the log as it
// stood at that event. After every event, what ccc captured (the progress
// file's marked tasks) must be the agent's own list at that point, which a
// small reader here works out on its own by the agent's rule.

// realLog is one recorded session's lines.
func realLog(t *testing.T, agent, name string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(captureFixture(t, agent, filepath.Join("real", name)))
	require.NoError(t, err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// logUpTo writes the log as it stood after line last (inclusive) to dir/name.
func logUpTo(t *testing.T, dir, name string, lines [][]byte, last int) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, bytes.Join(lines[:last+1], nil), 0o600))
	return path
}

// ownItem is one item of the agent's own list.
type ownItem struct{ text, status, active string }

// listView is what a progress file says of one agent's list: its marked
// tasks that are still on the list, by section.
type listView struct {
	Completed []string
	Current   string
	Status    string
	Remaining []string
}

// wantView is where the fold rules (DESIGN.md, "Fold rules") put a list:
// completed → Completed; the first in_progress → Current with its active
// form; other in_progress items, then pending ones → Remaining.
func wantView(items []ownItem) listView {
	var v listView
	var later []string
	for _, it := range items {
		text := capture.Clean(it.text)
		switch it.status {
		case "completed":
			v.Completed = append(v.Completed, text)
		case "cancelled":
			// Checked off in Completed, marked dropped: no longer the list's.
		case "in_progress":
			if v.Current == "" {
				v.Current, v.Status = text, capture.Clean(it.active)
				if v.Status == "" {
					v.Status = "in progress"
				}
				continue
			}
			v.Remaining = append(v.Remaining, text)
		default:
			later = append(later, text)
		}
	}
	v.Remaining = append(v.Remaining, later...)
	return v
}

// capturedView reads the progress file at root: the tasks marked agent's,
// dropped ones left out. No file is no list.
func capturedView(t *testing.T, root, agent string) (listView, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, ProgressFile))
	if os.IsNotExist(err) {
		return listView{}, false
	}
	require.NoError(t, err)
	doc, err := progress.Parse(data)
	require.NoError(t, err)
	ours := func(tk progress.Task) bool {
		return strings.HasPrefix(tk.Mark, agent+":") && !strings.HasSuffix(tk.Mark, " dropped")
	}
	var v listView
	for _, tk := range doc.Completed {
		if ours(tk) {
			v.Completed = append(v.Completed, tk.Text)
		}
	}
	if doc.Current != nil && ours(*doc.Current) {
		v.Current, v.Status = doc.Current.Text, doc.Current.Status
	}
	for _, tk := range doc.Remaining {
		if ours(tk) {
			v.Remaining = append(v.Remaining, tk.Text)
		}
	}
	return v, true
}

// sameList checks the captured view against the agent's own list. A
// finished task stays in Completed when a later list leaves it out (the
// fold rules keep done work), so Completed may also hold items an earlier
// list of the same thread had completed; and Completed is in the order the
// tasks were finished, not the list's: it is compared as a set.
func sameList(t *testing.T, at string, want []ownItem, doneBefore map[string]bool, got listView, have bool) {
	t.Helper()
	if want == nil {
		assert.False(t, have, "%s: no list yet, yet ccc captured %+v", at, got)
		return
	}
	require.True(t, have, "%s: the agent has a list, ccc captured none", at)
	w := wantView(want)
	assert.Equal(t, w.Current, got.Current, "%s: current task", at)
	assert.Equal(t, w.Status, got.Status, "%s: current task's status", at)
	assert.Equal(t, w.Remaining, got.Remaining, "%s: remaining tasks, in order", at)
	var extra []string
	for _, c := range got.Completed {
		if !slices.Contains(w.Completed, c) && !doneBefore[c] {
			extra = append(extra, c)
		}
	}
	assert.Empty(t, extra, "%s: completed tasks that are not the agent's", at)
	for _, c := range w.Completed {
		assert.Contains(t, got.Completed, c, "%s: completed task missing", at)
	}
}

// claudeCall is one TodoWrite call of a transcript.
type claudeCall struct {
	at, result int // line indexes of the call and of its tool_result (-1: none)
	id         string
	input      json.RawMessage
	response   json.RawMessage // the result line's toolUseResult
	failed     bool
	sidechain  bool
	session    string
}

type claudeLine struct {
	SessionID   string          `json:"sessionId"`
	IsSidechain bool            `json:"isSidechain"`
	Type        string          `json:"type"`
	Result      json.RawMessage `json:"toolUseResult"`
	Message     struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type claudeItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Text      string          `json:"text"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
}

func claudeItems(l claudeLine) []claudeItem {
	var items []claudeItem
	if len(l.Message.Content) > 0 && l.Message.Content[0] == '[' {
		_ = json.Unmarshal(l.Message.Content, &items) // a string content has no items
	}
	return items
}

// claudeCalls lists a transcript's TodoWrite calls in order.
func claudeCalls(t *testing.T, lines [][]byte) []claudeCall {
	t.Helper()
	var calls []claudeCall
	byID := map[string]int{}
	for i, raw := range lines {
		var l claudeLine
		require.NoError(t, json.Unmarshal(raw, &l), "line %d", i+1)
		for _, it := range claudeItems(l) {
			switch {
			case it.Type == "tool_use" && it.Name == "TodoWrite":
				byID[it.ID] = len(calls)
				calls = append(calls, claudeCall{at: i, result: -1, id: it.ID, input: it.Input,
					sidechain: l.IsSidechain, session: l.SessionID})
			case it.Type == "tool_result":
				if k, ok := byID[it.ToolUseID]; ok {
					calls[k].result, calls[k].failed, calls[k].response = i, it.IsError, l.Result
				}
			}
		}
	}
	return calls
}

// claudeOwnList is Claude Code's own list after the lines: the todos of the
// main thread's last TodoWrite that did not fail (a subagent's list is its
// own, kept apart by Claude Code), read forwards. done gathers the texts
// the main thread's lists completed before the last one. nil: no list.
func claudeOwnList(t *testing.T, lines [][]byte) (list []ownItem, done map[string]bool) {
	t.Helper()
	done = map[string]bool{}
	failed := map[string]bool{}
	for _, raw := range lines {
		var l claudeLine
		require.NoError(t, json.Unmarshal(raw, &l))
		for _, it := range claudeItems(l) {
			if it.Type == "tool_result" && it.IsError {
				failed[it.ToolUseID] = true
			}
		}
	}
	for _, raw := range lines {
		var l claudeLine
		require.NoError(t, json.Unmarshal(raw, &l))
		if l.IsSidechain {
			continue
		}
		for _, it := range claudeItems(l) {
			if it.Type != "tool_use" || it.Name != "TodoWrite" || failed[it.ID] {
				continue
			}
			var in struct {
				Todos []struct{ Content, Status, ActiveForm string }
			}
			require.NoError(t, json.Unmarshal(it.Input, &in))
			for _, o := range list {
				if o.status == "completed" {
					done[capture.Clean(o.text)] = true
				}
			}
			list = []ownItem{}
			for _, td := range in.Todos {
				list = append(list, ownItem{td.Content, td.Status, td.ActiveForm})
			}
		}
	}
	return list, done
}

// claudeLastText is the text of the main thread's last assistant record.
func claudeLastText(t *testing.T, lines [][]byte) string {
	t.Helper()
	last := ""
	for _, raw := range lines {
		var l claudeLine
		require.NoError(t, json.Unmarshal(raw, &l))
		if l.IsSidechain || l.Message.Role != "assistant" {
			continue
		}
		var texts []string
		for _, it := range claudeItems(l) {
			if it.Type == "text" {
				texts = append(texts, it.Text)
			}
		}
		last = strings.Join(texts, "\n")
	}
	return last
}

// claudeEnv is a project for a replay: no progress file yet, and Claude
// Code's config folder (no task files) beside it.
func claudeEnv(t *testing.T) (*proj, Env) {
	p := newProj(t)
	env := p.env()
	env.Claude = &config.ClaudeEnv{ConfigDir: t.TempDir()}
	return p, env
}

// TestReplayRealClaude replays real transcripts (1.0.98 to 2.0.26) as
// Claude Code calls the hooks: for each TodoWrite call that succeeded, one
// PostToolUse with the fields its cli.js sends (session_id,
// transcript_path, cwd, permission_mode, hook_event_name, tool_name,
// tool_input, tool_response: 1.0.98 builds exactly these and runs no
// PostToolUse for a failed call), the transcript written up to the call;
// then a Stop with the transcript up to the call's result. Subagents'
// calls in 1.0.98 carry no agent_id: their lines are in the session's own
// transcript, marked isSidechain.
func TestReplayRealClaude(t *testing.T) {
	for _, name := range []string{"claude-1.0.98.jsonl", "claude-1.0.98-subagents.jsonl", "claude-1.0.108.jsonl",
		"claude-2.0.14.jsonl", "claude-2.0.26.jsonl"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lines := realLog(t, "claudecode", name)
			calls := claudeCalls(t, lines)
			require.NotEmpty(t, calls)
			p, env := claudeEnv(t)
			dir := t.TempDir()
			ctx := context.Background()
			for k, c := range calls {
				at := func(event string, line int) string {
					return name + ": " + event + " after TodoWrite #" + itoa(k+1) + " (line " + itoa(line+1) + ")"
				}
				if !c.failed {
					path := logUpTo(t, dir, c.session+".jsonl", lines, c.at)
					PostToolUse(ctx, env, mustJSON(t, map[string]any{
						"session_id": c.session, "transcript_path": path, "cwd": p.root, "permission_mode": "default",
						"hook_event_name": "PostToolUse", "tool_name": "TodoWrite", "tool_input": c.input,
						"tool_response": c.response,
					}))
					want, done := claudeOwnList(t, lines[:max(c.result, c.at)+1])
					got, have := capturedView(t, p.root, "claude")
					sameList(t, at("PostToolUse", c.at), want, done, got, have)
				}
				if c.result < 0 {
					continue
				}
				path := logUpTo(t, dir, c.session+".jsonl", lines, c.result)
				Stop(ctx, env, mustJSON(t, map[string]any{
					"session_id": c.session, "transcript_path": path, "cwd": p.root, "permission_mode": "default",
					"hook_event_name": "Stop", "stop_hook_active": false,
				}))
				want, done := claudeOwnList(t, lines[:c.result+1])
				got, have := capturedView(t, p.root, "claude")
				sameList(t, at("Stop", c.result), want, done, got, have)
			}
			assert.NotContains(t, p.errs.String(), ": capture: ", "no capture went wrong")
		})
	}
}

// TestReplayRealClaudeLastMessage: at the end of every assistant record
// of real transcripts, the stop logic's last output is the main thread's
// last assistant text, and a session without a checklist leaves the
// project without a progress file.
func TestReplayRealClaudeLastMessage(t *testing.T) {
	for _, name := range []string{"claude-2.1.38-no-list.jsonl", "claude-1.0.98-subagents.jsonl"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lines := realLog(t, "claudecode", name)
			p, env := claudeEnv(t)
			dir := t.TempDir()
			stops := 0
			for i, raw := range lines {
				var l claudeLine
				require.NoError(t, json.Unmarshal(raw, &l))
				if l.Message.Role != "assistant" {
					continue
				}
				stops++
				path := logUpTo(t, dir, l.SessionID+".jsonl", lines, i)
				in := mustJSON(t, map[string]any{"session_id": l.SessionID, "transcript_path": path, "cwd": p.root,
					"hook_event_name": "Stop", "stop_hook_active": false})
				parsed, err := ParseInput(in)
				require.NoError(t, err)
				got, err := env.withTranscript().lastOutput(parsed)
				require.NoError(t, err)
				assert.Equal(t, claudeLastText(t, lines[:i+1]), got, "%s: last output at line %d", name, i+1)
				Stop(context.Background(), env, in)
			}
			require.Positive(t, stops)
			if calls := claudeCalls(t, lines); len(calls) == 0 {
				_, have := capturedView(t, p.root, "claude")
				assert.False(t, have, "a session without a checklist writes no progress file")
			}
		})
	}
}

// codexOwnPlan is Codex's own plan after the lines: the arguments of the
// last update_plan call that its types accept and whose output is not a
// failure, read forwards. nil: no plan.
func codexOwnPlan(t *testing.T, lines [][]byte) []ownItem {
	t.Helper()
	type rec struct {
		Type    string `json:"type"`
		Payload struct {
			Type      string          `json:"type"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			CallID    string          `json:"call_id"`
			Output    json.RawMessage `json:"output"`
		} `json:"payload"`
	}
	failed := map[string]bool{}
	for _, raw := range lines {
		var r rec
		require.NoError(t, json.Unmarshal(raw, &r))
		var s string
		if r.Payload.Type == "function_call_output" && json.Unmarshal(r.Payload.Output, &s) == nil &&
			strings.HasPrefix(s, "failed to parse function arguments") {
			failed[r.Payload.CallID] = true
		}
	}
	var plan []ownItem
	for _, raw := range lines {
		var r rec
		require.NoError(t, json.Unmarshal(raw, &r))
		if r.Type != "response_item" || r.Payload.Type != "function_call" || r.Payload.Name != "update_plan" ||
			failed[r.Payload.CallID] {
			continue
		}
		var a struct {
			Plan []struct{ Step, Status string }
		}
		if json.Unmarshal([]byte(r.Payload.Arguments), &a) != nil {
			continue
		}
		plan = []ownItem{}
		for _, s := range a.Plan {
			plan = append(plan, ownItem{text: s.Step, status: s.Status})
		}
	}
	return plan
}

// TestReplayRealCodex replays real Codex CLI 0.40.0 rollouts through the
// hooks Codex fires today (0.169.0's schemas, hooks.json as `ccc init
// codex` writes it): for each update_plan call a PostToolUse (`ccc hook
// capture`) with its tool_input and the rollout up to the call's output,
// then a Stop with the rollout up to the end of that turn.
func TestReplayRealCodex(t *testing.T) {
	for _, name := range []string{"rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl",
		"rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lines := realLog(t, "codex", name)
			type rec struct {
				Type    string `json:"type"`
				Payload struct {
					Type      string `json:"type"`
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
					CallID    string `json:"call_id"`
					ID        string `json:"id"`
					Message   string `json:"message"`
				} `json:"payload"`
			}
			recs := make([]rec, len(lines))
			for i, raw := range lines {
				require.NoError(t, json.Unmarshal(raw, &recs[i]), "line %d", i+1)
			}
			session := recs[0].Payload.ID
			p := newProj(t)
			env := p.env()
			dir := t.TempDir()
			ctx := context.Background()
			calls := 0
			for i, r := range recs {
				if r.Type != "response_item" || r.Payload.Type != "function_call" || r.Payload.Name != "update_plan" {
					continue
				}
				calls++
				out := i
				for j := i + 1; j < len(recs); j++ {
					if recs[j].Payload.Type == "function_call_output" && recs[j].Payload.CallID == r.Payload.CallID {
						out = j
						break
					}
				}
				path := logUpTo(t, dir, name, lines, out)
				Capture(ctx, env, mustJSON(t, map[string]any{
					"session_id": session, "transcript_path": path, "cwd": p.root, "hook_event_name": "PostToolUse",
					"model": "gpt-5-codex", "permission_mode": "default", "turn_id": "turn-" + itoa(calls),
					"tool_name": "update_plan", "tool_input": json.RawMessage(r.Payload.Arguments),
					"tool_response": "Plan updated", "tool_use_id": r.Payload.CallID,
				}))
				got, have := capturedView(t, p.root, "codex")
				sameList(t, name+": PostToolUse update_plan at line "+itoa(i+1), codexOwnPlan(t, lines[:out+1]), nil, got, have)

				end, last := out, ""
				for j := out; j < len(recs); j++ {
					if recs[j].Payload.Type == "agent_message" {
						last = recs[j].Payload.Message
					}
					if recs[j].Payload.Type == "task_complete" || recs[j].Payload.Type == "user_message" && j > out {
						break
					}
					end = j
				}
				path = logUpTo(t, dir, name, lines, end)
				Stop(ctx, env, mustJSON(t, map[string]any{
					"session_id": session, "transcript_path": path, "cwd": p.root, "hook_event_name": "Stop",
					"model": "gpt-5-codex", "permission_mode": "default", "turn_id": "turn-" + itoa(calls),
					"stop_hook_active": false, "last_assistant_message": last,
				}))
				got, have = capturedView(t, p.root, "codex")
				sameList(t, name+": Stop at line "+itoa(end+1), codexOwnPlan(t, lines[:end+1]), nil, got, have)
			}
			require.Equal(t, 3, calls)
			assert.NotContains(t, p.errs.String(), ": capture: ", "no capture went wrong")
		})
	}
}

// TestReplayRealGemini replays chat logs recorded by Gemini CLI's own
// code (0.30.0's whole-object session-*.json, 0.61.0's .jsonl; made by
// agent/gemini/testdata/real/gen-gemini.mjs with the published
// @google/gemini-cli-core) through the hooks Gemini CLI fires: AfterTool
// (`ccc hook capture`) after each write_todos that ran, AfterAgent (`ccc
// hook stop`) at the end of each turn, the log as it stood then. The list
// to match is what Gemini CLI's own loader rebuilt from the log at that
// point (events.json's want): a refused call and a rewound turn included.
func TestReplayRealGemini(t *testing.T) {
	for _, version := range []string{"gemini-0.30.0", "gemini-0.61.0"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			dir := captureFixture(t, "gemini", filepath.Join("real", version))
			raw, err := os.ReadFile(filepath.Join(dir, "events.json"))
			require.NoError(t, err)
			var rec struct {
				Log    string
				Events []struct {
					Lines    int
					Snapshot string
					Input    map[string]any
					Want     []struct{ Description, Status string }
				}
			}
			require.NoError(t, json.Unmarshal(raw, &rec))
			require.NotEmpty(t, rec.Events)
			log, err := os.ReadFile(filepath.Join(dir, rec.Log))
			require.NoError(t, err)
			lines := bytes.SplitAfter(log, []byte("\n"))
			p := newProj(t)
			env := p.env()
			chats := filepath.Join(t.TempDir(), "chats")
			require.NoError(t, os.MkdirAll(chats, 0o700))
			path := filepath.Join(chats, filepath.Base(rec.Log))
			ctx := context.Background()
			for k, ev := range rec.Events {
				data := bytes.Join(lines[:min(ev.Lines, len(lines))], nil)
				if ev.Snapshot != "" {
					data, err = os.ReadFile(filepath.Join(dir, ev.Snapshot))
					require.NoError(t, err)
				}
				require.NoError(t, os.WriteFile(path, data, 0o600))
				ev.Input["transcript_path"], ev.Input["cwd"] = path, p.root
				in := mustJSON(t, ev.Input)
				event := ev.Input["hook_event_name"].(string)
				switch event {
				case "AfterTool":
					Capture(ctx, env, in)
				case "AfterAgent":
					Stop(ctx, env, in)
				default:
					t.Fatalf("event %s", event)
				}
				var want []ownItem
				if ev.Want != nil {
					want = []ownItem{}
				}
				for _, w := range ev.Want {
					want = append(want, ownItem{text: w.Description, status: w.Status})
				}
				got, have := capturedView(t, p.root, "gemini")
				sameList(t, version+": "+event+" #"+itoa(k+1), want, nil, got, have)
			}
			assert.NotContains(t, p.errs.String(), ": capture: ", "no capture went wrong")
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func itoa(i int) string { return strconv.Itoa(i) }
