package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/testutil"
	"github.com/ccc-checkpoint/ccc/state"
)

// What a case expects of the state file afterwards.
const (
	same    = "same"    // byte-identical
	deleted = "deleted" // gone
)

const (
	outRetry    = "Still on it: the lexer handles strings, numbers are next."
	outComplete = "The parser is done and its tests pass.\n\nTASK_COMPLETE"
	outReplan   = "Two remaining tasks are already done upstream. REPLAN"
)

// TestStopDecisionOrder has one case per path of the decision order (§3)
// after the input is read, decided by Decide alone (no project, no
// process), with its stdout compared to testdata/stop/<name>.golden and the
// state its effects leave.
func TestStopDecisionOrder(t *testing.T) {
	tests := []struct {
		name    string
		state   map[string]any // over baseState
		prefs   string
		fixture string
		set     map[string]any // changes to the recorded input
		rule    Rule
		outcome Outcome
		gate    bool
		after   any // same, deleted, or map[string]any of fields
	}{
		// 3.2
		{name: "other-owner", state: map[string]any{"ownerSessionId": "another-session"}, fixture: "stop-active.json",
			rule: RuleOwner, outcome: Allow, after: same},
		{name: "owner-no-session-id", state: map[string]any{"ownerSessionId": sessionID}, fixture: "stop-active.json",
			set: map[string]any{"session_id": nil}, rule: RuleOwner, outcome: Allow, after: same},
		{name: "same-owner", state: map[string]any{"ownerSessionId": sessionID}, fixture: "stop-active.json",
			rule: RuleRetry, outcome: Block, after: map[string]any{"taskIteration": 2, "globalIteration": 5}},
		// 3.3
		{name: "awaiting-gate", state: map[string]any{"awaitingGate": "2"}, fixture: "stop-active.json",
			rule: RuleGate, outcome: Allow, gate: true, after: same},
		{name: "awaiting-gate-not-executing", state: map[string]any{"awaitingGate": 1, "phase": "spec"}, fixture: "stop-active.json",
			rule: RuleGate, outcome: Allow, gate: true, after: same},
		// 3.4
		{name: "phase-spec", state: map[string]any{"phase": "spec"}, fixture: "stop.json", rule: RulePhase, outcome: Allow, after: same},
		{name: "phase-replan", state: map[string]any{"phase": "replan"}, fixture: "stop.json", rule: RulePhase, outcome: Allow, after: same},
		{name: "phase-empty", state: map[string]any{"phase": ""}, fixture: "stop.json", rule: RulePhase, outcome: Allow, after: same},
		{name: "phase-null", state: map[string]any{"phase": nil}, fixture: "stop.json", rule: RulePhase, outcome: Allow, after: same},
		{name: "phase-absent", state: map[string]any{"phase": drop{}}, fixture: "stop.json", rule: RulePhase, outcome: Allow, after: same},
		// 3.5
		{name: "mode-pair", state: map[string]any{"executionMode": "pair"}, fixture: "stop.json", rule: RuleMode, outcome: Allow, after: same},
		{name: "mode-swarm", state: map[string]any{"executionMode": "swarm"}, fixture: "stop.json", rule: RuleMode, outcome: Allow, after: same},
		{name: "prefs-mode-pair", prefs: "execution:\n  default_mode: pair\n", fixture: "stop.json", rule: RuleMode, outcome: Allow, after: same},
		// 3.6
		{name: "max-global", state: map[string]any{"globalIteration": 50}, fixture: "stop.json",
			rule: RuleGlobalCap, outcome: Halt, gate: true, after: same},
		{name: "max-global-over", state: map[string]any{"globalIteration": 51, "taskIteration": 9}, fixture: "stop.json",
			rule: RuleGlobalCap, outcome: Halt, gate: true, after: same},
		// 3.7
		{name: "max-task", state: map[string]any{"taskIteration": 5}, fixture: "stop.json",
			rule: RuleTaskCap, outcome: Halt, gate: true, after: same},
		// 3.8
		{name: "all-done", state: map[string]any{"taskIndex": 3}, fixture: "stop.json",
			rule: RuleAllDone, outcome: Allow, gate: true, after: deleted},
		{name: "no-tasks", state: map[string]any{"taskIndex": drop{}, "totalTasks": drop{}}, fixture: "stop.json",
			rule: RuleAllDone, outcome: Allow, gate: true, after: deleted},
		// 3.9
		{name: "max-replans", state: map[string]any{"replanCount": 2}, fixture: "stop.json", set: map[string]any{"last_assistant_message": outReplan},
			rule: RuleReplanCap, outcome: Halt, gate: true, after: same},
		{name: "replan", fixture: "stop.json", set: map[string]any{"last_assistant_message": outReplan},
			rule: RuleReplan, outcome: Block, gate: true,
			after: map[string]any{"replanCount": 1, "phase": "replan", "globalIteration": 5, "taskIndex": 1, "taskIteration": 1}},
		{name: "replan-and-complete", fixture: "stop.json", set: map[string]any{"last_assistant_message": "TASK_COMPLETE, but REPLAN"},
			rule: RuleReplan, outcome: Block, gate: true, after: map[string]any{"replanCount": 1, "phase": "replan"}},
		{name: "replan-disabled", prefs: "replan:\n  enabled: false\n", fixture: "stop.json", set: map[string]any{"last_assistant_message": outReplan},
			rule: RuleRetry, outcome: Block, after: map[string]any{"replanCount": 0, "phase": "execution", "taskIteration": 2}},
		{name: "replan-disabled-complete", prefs: "replan:\n  enabled: false\n", fixture: "stop.json",
			set:  map[string]any{"last_assistant_message": "REPLAN? No. TASK_COMPLETE"},
			rule: RuleNext, outcome: Block, gate: true, after: map[string]any{"taskIndex": 2, "replanCount": 0}},
		{name: "replan-lowercase", fixture: "stop.json", set: map[string]any{"last_assistant_message": "maybe we should replan"},
			rule: RuleRetry, outcome: Block, after: map[string]any{"taskIteration": 2}},
		// 3.10
		{name: "retry", state: map[string]any{"taskIteration": 2}, fixture: "stop-active.json",
			rule: RuleRetry, outcome: Block, after: map[string]any{"taskIndex": 1, "taskIteration": 3, "globalIteration": 5}},
		{name: "retry-no-output", fixture: "stop-no-message.json", set: map[string]any{"transcript_path": nil},
			rule: RuleRetry, outcome: Block, after: map[string]any{"taskIteration": 2}},
		{name: "retry-missing-transcript", fixture: "stop-no-message.json",
			rule: RuleRetry, outcome: Block, after: map[string]any{"taskIteration": 2}},
		{name: "task-complete-lowercase", fixture: "stop.json", set: map[string]any{"last_assistant_message": "task_complete"},
			rule: RuleRetry, outcome: Block, after: map[string]any{"taskIteration": 2}},
		// 3.11
		{name: "next", state: map[string]any{"taskIteration": 3}, fixture: "stop.json",
			rule: RuleNext, outcome: Block, gate: true, after: map[string]any{"taskIndex": 2, "taskIteration": 1, "globalIteration": 5}},
		{name: "last-task", state: map[string]any{"taskIndex": 2}, fixture: "stop.json",
			rule: RuleLastTask, outcome: Allow, gate: true, after: deleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := stateJSON(t, tt.state)
			r := decideOn(t, orig, tt.prefs, input(t, tt.fixture, tt.set))

			assert.Equal(t, tt.rule, r.d.Rule)
			assert.Equal(t, tt.outcome, r.d.Outcome)
			assert.Equal(t, tt.gate, r.d.Gate)
			if tt.gate {
				assert.Equal(t, 1, r.gates(), "the checkpoint runs once at a gate boundary")
			} else {
				assert.Zero(t, r.gates(), "no checkpoint off gate boundaries")
			}
			testutil.Golden(t, filepath.Join("testdata", "stop", tt.name+".golden"), r.d.Stdout())
			switch after := tt.after.(type) {
			case string:
				if after == same {
					assert.False(t, r.writes(), "state untouched")
				} else {
					assert.Nil(t, r.after(t, orig), "state removed")
				}
			case map[string]any:
				st := r.after(t, orig)
				require.NotNil(t, st, "state kept")
				for k, want := range after {
					wantRaw, _ := json.Marshal(want)
					assert.JSONEq(t, string(wantRaw), string(st[k]), k)
				}
			}
		})
	}
}

// TestStopRejects: stdin or a state the hook must not act on (3.1) allows
// the stop and leaves the state as it is; no state file is no loop.
func TestStopRejects(t *testing.T) {
	tests := []struct {
		name    string
		state   map[string]any
		raw     string
		noState bool
		fixture string
		stdin   string
		rule    Rule
		outcome Outcome
		after   string
	}{
		// 3.1
		{name: "no-state", noState: true, fixture: "stop-active.json", rule: RuleRejected, outcome: Allow, after: deleted},
		{name: "blank-state", raw: " \n\t\n", fixture: "stop-active.json", rule: RuleRejected, outcome: Allow, after: same},
		{name: "invalid-state", raw: "NOT VALID JSON {{{", fixture: "stop-active.json", rule: RuleRejected, outcome: Allow, after: same},
		{name: "array-state", raw: `[{"phase":"execution"}]`, fixture: "stop-active.json", rule: RuleRejected, outcome: Allow, after: same},
		{name: "string-state", raw: `"execution"`, fixture: "stop-active.json", rule: RuleRejected, outcome: Allow, after: same},
		{name: "trailing-garbage-state", raw: `{"phase":"execution"} {}`, fixture: "stop-active.json", rule: RuleRejected, outcome: Allow, after: same},
		{name: "mistyped-state", state: map[string]any{"taskIndex": "1"}, fixture: "stop-active.json", rule: RuleRejected, outcome: Allow, after: same},
		{name: "empty-stdin", stdin: "", rule: RuleRejected, outcome: Allow, after: same},
		{name: "invalid-stdin", stdin: `{"session_id":`, rule: RuleRejected, outcome: Allow, after: same},
		{name: "array-stdin", stdin: `[{"session_id":"x"}]`, rule: RuleRejected, outcome: Allow, after: same},
		{name: "null-stdin", stdin: `null`, rule: RuleRejected, outcome: Allow, after: same},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProj(t)
			var orig []byte
			switch {
			case tt.noState:
			case tt.raw != "":
				orig = []byte(tt.raw)
			default:
				orig = stateJSON(t, tt.state)
			}
			if orig != nil {
				p.write(state.FileName, orig)
			}
			stdin := []byte(tt.stdin)
			if tt.fixture != "" {
				stdin = input(t, tt.fixture, nil)
			}
			d := p.stop(stdin)
			assert.Equal(t, tt.rule, d.Rule)
			assert.Equal(t, tt.outcome, d.Outcome)
			assert.False(t, d.Gate)
			assert.Zero(t, p.cp.count(), "no checkpoint")
			testutil.Golden(t, filepath.Join("testdata", "stop", tt.name+".golden"), d.Stdout())
			if tt.after == same {
				assert.Equal(t, string(orig), string(p.read(state.FileName)), "state byte-identical")
			} else {
				assert.Nil(t, p.read(state.FileName), "no state")
			}
		})
	}
}

func mustRaw(t *testing.T, st *state.State, key string) []byte {
	t.Helper()
	raw, ok := st.Raw(key)
	require.True(t, ok, key)
	return raw
}

// TestStopUnreadableState: a state path that cannot be read is left alone.
func TestStopUnreadableState(t *testing.T) {
	p := newProj(t)
	require.NoError(t, os.Mkdir(p.path(state.FileName), 0o755))
	d := p.stop(input(t, "stop-active.json", nil))
	assert.Equal(t, Decision{Outcome: Allow, Rule: RuleRejected}, d)
	assert.Contains(t, p.errs.String(), "ccc hook stop: ")
	assert.Equal(t, 1, strings.Count(p.errs.String(), "\n"), "one line on stderr")
	fi, err := os.Stat(p.path(state.FileName))
	require.NoError(t, err)
	assert.True(t, fi.IsDir())
}

// TestStopMistypedFields: every listed field of another JSON type rejects
// the state, which stays byte-identical; null takes the default.
func TestStopMistypedFields(t *testing.T) {
	ints := []string{"taskIndex", "totalTasks", "taskIteration", "maxTaskIterations", "globalIteration", "maxGlobalIterations", "replanCount"}
	strs := []string{"phase", "executionMode", "linearIssue", "specPath", "ownerSessionId"}
	type tc struct {
		key string
		val string
	}
	var bad []tc
	for _, k := range ints {
		for _, v := range []string{`"1"`, `true`, `1.5`, `[]`, `{}`, `1e30`, `-1e30`} {
			bad = append(bad, tc{k, v})
		}
	}
	for _, k := range strs {
		for _, v := range []string{`1`, `true`, `false`, `[]`, `{"a":1}`} {
			bad = append(bad, tc{k, v})
		}
	}
	for _, c := range bad {
		t.Run(c.key+"="+c.val, func(t *testing.T) {
			p := newProj(t)
			orig := stateJSON(t, map[string]any{c.key: json.RawMessage(c.val)})
			p.write(state.FileName, orig)
			d := p.stop(input(t, "stop.json", nil))
			assert.Equal(t, Decision{Outcome: Allow, Rule: RuleRejected}, d)
			assert.Equal(t, string(orig), string(p.read(state.FileName)))
			assert.Contains(t, p.errs.String(), c.key)
			assert.Zero(t, p.cp.count())
		})
	}
}

// TestStopFieldDefaults: absent and null fields take CCC's defaults, and
// integral numbers in any JSON spelling are integers.
func TestStopFieldDefaults(t *testing.T) {
	tests := []struct {
		name  string
		over  map[string]any
		out   string
		rule  Rule
		check func(t *testing.T, d Decision, st map[string]json.RawMessage)
	}{
		{"taskIteration null is 1", map[string]any{"taskIteration": nil}, outRetry, RuleRetry,
			func(t *testing.T, d Decision, st map[string]json.RawMessage) {
				assert.Contains(t, d.Reason, "Retry attempt 2 of 5.")
			}},
		{"maxTaskIterations absent is 5", map[string]any{"maxTaskIterations": drop{}, "taskIteration": 4}, outRetry, RuleRetry,
			func(t *testing.T, d Decision, st map[string]json.RawMessage) {
				assert.Contains(t, d.Reason, "Retry attempt 5 of 5.")
			}},
		{"maxGlobalIterations null is 50", map[string]any{"maxGlobalIterations": nil, "globalIteration": 50}, outRetry, RuleGlobalCap, nil},
		{"globalIteration absent is 0", map[string]any{"globalIteration": drop{}}, outRetry, RuleRetry,
			func(t *testing.T, d Decision, st map[string]json.RawMessage) {
				assert.Equal(t, "1", string(st["globalIteration"]))
			}},
		{"taskIndex null is 0", map[string]any{"taskIndex": nil}, outComplete, RuleNext,
			func(t *testing.T, d Decision, st map[string]json.RawMessage) {
				assert.Contains(t, d.Reason, "Execute task 2 of 3 from")
			}},
		{"replanCount absent is 0", map[string]any{"replanCount": drop{}}, outReplan, RuleReplan,
			func(t *testing.T, d Decision, st map[string]json.RawMessage) {
				assert.Contains(t, d.Reason, "(replan 1 of 2)")
			}},
		{"executionMode absent is quick", map[string]any{"executionMode": drop{}}, outRetry, RuleRetry,
			func(t *testing.T, d Decision, st map[string]json.RawMessage) {
				assert.Contains(t, d.Reason, "Mode: quick.")
			}},
		{"executionMode empty stays empty", map[string]any{"executionMode": ""}, outRetry, RuleRetry,
			func(t *testing.T, d Decision, st map[string]json.RawMessage) {
				assert.Contains(t, d.Reason, "Mode: .")
			}},
		{"linearIssue null is unknown issue", map[string]any{"linearIssue": nil}, outRetry, RuleRetry,
			func(t *testing.T, d Decision, st map[string]json.RawMessage) {
				assert.True(t, strings.HasPrefix(d.Reason, "Continue CCC execution for unknown issue. Mode: quick."))
			}},
		{"specPath absent", map[string]any{"specPath": drop{}}, outComplete, RuleNext,
			func(t *testing.T, d Decision, st map[string]json.RawMessage) {
				assert.NotContains(t, d.Reason, "Spec:")
			}},
		{"3.0 is an integer", map[string]any{"taskIteration": json.RawMessage(`3.0`)}, outRetry, RuleRetry,
			func(t *testing.T, d Decision, st map[string]json.RawMessage) {
				assert.Contains(t, d.Reason, "Retry attempt 4 of 5.")
			}},
		{"5e1 is an integer", map[string]any{"globalIteration": json.RawMessage(`5e1`)}, outRetry, RuleGlobalCap, nil},
		{"negative integers", map[string]any{"taskIndex": -1}, outRetry, RuleRetry,
			func(t *testing.T, d Decision, st map[string]json.RawMessage) {
				assert.Contains(t, d.Reason, "Task 0 did not signal TASK_COMPLETE.")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := stateJSON(t, tt.over)
			r := decideOn(t, orig, "", input(t, "stop.json", map[string]any{"last_assistant_message": tt.out}))
			require.Equal(t, tt.rule, r.d.Rule)
			if tt.check != nil {
				tt.check(t, r.d, r.after(t, orig))
			}
		})
	}
}

// TestAwaitingGate: any value is a set gate except absent, null, false and "".
func TestAwaitingGate(t *testing.T) {
	for _, v := range []string{`"2"`, `2`, `0`, `true`, `"x"`, `{}`, `[]`, `"false"`} {
		t.Run("set "+v, func(t *testing.T) {
			r := decideOn(t, stateJSON(t, map[string]any{"awaitingGate": json.RawMessage(v)}), "", input(t, "stop.json", nil))
			assert.Equal(t, RuleGate, r.d.Rule)
			assert.False(t, r.writes(), "state untouched")
		})
	}
	for _, v := range []string{`null`, `false`, `""`, ""} {
		t.Run("unset "+v, func(t *testing.T) {
			over := map[string]any{"awaitingGate": json.RawMessage(v)}
			if v == "" {
				over["awaitingGate"] = drop{}
			}
			r := decideOn(t, stateJSON(t, over), "", input(t, "stop.json", nil))
			assert.Equal(t, RuleNext, r.d.Rule, "falls through to the execution loop")
		})
	}
}

// TestStopStateWrite: the whole file after a write: the changed keys keep
// their place, unknown keys survive, lastUpdatedAt and ownership are added.
func TestStopStateWrite(t *testing.T) {
	p := newProj(t)
	p.write(state.FileName, []byte(`{"phase":"execution","taskIndex":0,"totalTasks":2,"custom":{"keep":[1,"two"]},"executionMode":"tdd","lastUpdatedAt":"2026-11-20T09:00:00Z"}`))
	d := p.stop(input(t, "stop-active.json", nil))
	require.Equal(t, RuleRetry, d.Rule)
	assert.Equal(t, `{
  "phase": "execution",
  "taskIndex": 0,
  "totalTasks": 2,
  "custom": {
    "keep": [
      1,
      "two"
    ]
  },
  "executionMode": "tdd",
  "lastUpdatedAt": "2026-11-21T13:45:00Z",
  "taskIteration": 2,
  "globalIteration": 1,
  "ownerSessionId": "8f3c2a1e-4b7d-4e2a-9c51-0d6e7f8a9b10"
}
`, string(p.read(state.FileName)))
	entries, err := os.ReadDir(p.root)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.Contains(e.Name(), ".tmp"), "no temp file left: %s", e.Name())
	}
}

// TestStopWriteFailure: a state that cannot be written allows the stop,
// leaves the file as it was and runs no checkpoint (4.3).
func TestStopWriteFailure(t *testing.T) {
	for _, out := range []string{outRetry, outComplete, outReplan} {
		t.Run(out, func(t *testing.T) {
			p := newProj(t)
			orig := stateJSON(t, map[string]any{"taskIndex": 2}) // TASK_COMPLETE ends here: write and delete
			p.write(state.FileName, orig)
			p.write(projectfs.Dir, []byte("a file where ccc's directory goes: no lock, no write"))
			d := p.stop(input(t, "stop.json", map[string]any{"last_assistant_message": out}))
			assert.Equal(t, Decision{Outcome: Allow, Rule: RuleWriteFailed}, d)
			assert.Empty(t, d.Stdout())
			assert.Equal(t, string(orig), string(p.read(state.FileName)))
			assert.Zero(t, p.cp.count())
			assert.Contains(t, p.errs.String(), "ccc hook stop: .ccc-state.json: ")
		})
	}
}

// TestStopStateChangedMeanwhile: a state file changed between read and
// write is not overwritten.
func TestStopStateChangedMeanwhile(t *testing.T) {
	p := newProj(t)
	p.write(state.FileName, stateJSON(t, nil))
	s := &stopper{env: p.env(), in: Input{SessionID: sessionID, LastAssistantMessage: outRetry}, root: p.root}
	s.orig = stateJSON(t, map[string]any{"taskIteration": 4}) // what it read, no longer on disk
	st, f, err := parseState(s.orig)
	require.NoError(t, err)
	s.st, s.f = st, f
	d := s.decide(context.Background())
	assert.Equal(t, RuleWriteFailed, d.Rule)
	assert.Equal(t, string(stateJSON(t, nil)), string(p.read(state.FileName)))
}

func TestDecisionStdout(t *testing.T) {
	tests := []struct {
		d    Decision
		want string
	}{
		{Decision{Outcome: Allow}, ""},
		{Decision{Outcome: Block, Reason: `Fix "a" & <b> — then go.`}, `{"decision":"block","reason":"Fix \"a\" & <b> — then go."}` + "\n"},
		{Decision{Outcome: Halt, Message: "m"}, `{"systemMessage":"m"}` + "\n"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(tt.d.Stdout()))
	}
}

func TestStopDebug(t *testing.T) {
	p := newProj(t)
	p.write(state.FileName, stateJSON(t, nil))
	env := p.env()
	env.Debug = true
	Stop(context.Background(), env, input(t, "stop-active.json", nil))
	assert.Equal(t, "ccc hook stop: block: 3.10 retry\n", p.errs.String())
}

func TestStopNeedsNoProjectFilesBesidesState(t *testing.T) {
	// The retry path reads only the state and the preferences: no
	// progress file, no transcript, no .ccc-agents.md are created.
	p := newProj(t)
	p.write(state.FileName, stateJSON(t, nil))
	p.stop(input(t, "stop-active.json", nil))
	entries, err := os.ReadDir(p.root)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{state.FileName, projectfs.Dir}, names)
	_, err = os.Stat(filepath.Join(p.root, projectfs.Dir, projectfs.LockFile))
	assert.NoError(t, err, "the write took the project lock")
}

// TestStopBacksUpState: before the hook overwrites or deletes
// .ccc-state.json it keeps the previous bytes in .ccc/backups, as every
// writer of the state does; the paths that change nothing keep none.
func TestStopBacksUpState(t *testing.T) {
	tests := []struct {
		name string
		over map[string]any
		out  string
		rule Rule
		// backups are the states kept, oldest first: "orig" or the state
		// the hook wrote before it deleted the file.
		backups []string
	}{
		{"retry", nil, outRetry, RuleRetry, []string{"orig"}},
		{"replan", nil, outReplan, RuleReplan, []string{"orig"}},
		{"next", nil, outComplete, RuleNext, []string{"orig"}},
		{"last task: write, then delete", map[string]any{"taskIndex": 2}, outComplete, RuleLastTask, []string{"orig", "written"}},
		{"all done: delete", map[string]any{"taskIndex": 3}, outComplete, RuleAllDone, []string{"orig"}},
		{"halt", map[string]any{"taskIteration": 5}, outRetry, RuleTaskCap, nil},
		{"awaiting gate", map[string]any{"awaitingGate": 2}, outComplete, RuleGate, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProj(t)
			orig := stateJSON(t, tt.over)
			p.write(state.FileName, orig)
			// A clock that moves, as the real one does between the write
			// and the delete of the last task.
			now := testNow
			env := p.env()
			env.Now = func() time.Time { now = now.Add(time.Millisecond); return now }
			d := Stop(context.Background(), env, input(t, "stop.json", map[string]any{"last_assistant_message": tt.out}))
			require.Equal(t, tt.rule, d.Rule)

			paths, err := projectfs.Backups(p.root, state.FileName)
			require.NoError(t, err)
			require.Len(t, paths, len(tt.backups))
			for i, want := range tt.backups {
				got, err := os.ReadFile(paths[len(paths)-1-i]) // Backups lists newest first
				require.NoError(t, err)
				switch want {
				case "orig":
					assert.Equal(t, string(orig), string(got))
				case "written":
					st, err := state.Parse(got)
					require.NoError(t, err)
					n, _ := st.Int("taskIndex")
					assert.Equal(t, 3, n, "the state as the hook wrote it, before the delete")
				}
			}
			if tt.backups == nil {
				assert.NoDirExists(t, filepath.Join(p.root, projectfs.Dir, projectfs.BackupDir))
			}
		})
	}
}

// TestStopBackupFails: a state that cannot be backed up is not overwritten
// (the write fails, so the stop is allowed, §4.3).
func TestStopBackupFails(t *testing.T) {
	p := newProj(t)
	orig := stateJSON(t, nil)
	p.write(state.FileName, orig)
	p.write(filepath.Join(projectfs.Dir, projectfs.BackupDir), []byte("a file where the backups go"))
	d := p.stop(input(t, "stop.json", map[string]any{"last_assistant_message": outRetry}))
	assert.Equal(t, Decision{Outcome: Allow, Rule: RuleWriteFailed}, d)
	assert.Equal(t, string(orig), string(p.read(state.FileName)))
	assert.Contains(t, p.errs.String(), "backup")
}

// TestStopNoState: without a state file the stop is allowed, nothing is
// created, and one line on stderr says why (issue 4: every hook reports a
// missing project).
func TestStopNoState(t *testing.T) {
	p := newProj(t)
	d := p.stop(input(t, "stop.json", nil))
	assert.Equal(t, Decision{Outcome: Allow, Rule: RuleRejected}, d)
	assert.Equal(t, "ccc hook stop: no .ccc-state.json in ROOT: no CCC task loop here; allowing the stop\n",
		strings.ReplaceAll(p.errs.String(), p.root, "ROOT"))
	entries, err := os.ReadDir(p.root)
	require.NoError(t, err)
	assert.Empty(t, entries)
	assert.Zero(t, p.cp.count())
}

// progressOf3 is a progress file on its first of 3 tasks.
const progressOf3 = `# Session Progress

**Issue:** CIA-12 — Parser

## Completed Tasks

## Current Task
- lexer

## Remaining Tasks
- parser
- printer

## Continuation Prompt
Write the lexer.
`

// TestStopTotalFromProgress: a state without totalTasks (one the user
// wrote by hand) takes the task count from .ccc-progress.md, so the first
// TASK_COMPLETE moves to task 2 of 3 instead of ending the loop. CCC's
// default, 0 tasks, stays for a project without tasks; a progress file that
// cannot be read leaves the state alone.
func TestStopTotalFromProgress(t *testing.T) {
	handWritten := map[string]any{"taskIndex": 0, "totalTasks": drop{}}
	t.Run("three tasks", func(t *testing.T) {
		p := newProj(t)
		p.write(state.FileName, stateJSON(t, handWritten))
		p.write(ProgressFile, []byte(progressOf3))
		d := p.stop(input(t, "stop.json", nil))
		require.Equal(t, RuleNext, d.Rule)
		assert.Contains(t, d.Reason, "Execute task 2 of 3 from the decomposed task list.")
		assert.Equal(t, "1", string(mustRaw(t, p.state(), "taskIndex")))
		_, has := p.state().Raw("totalTasks")
		assert.False(t, has, "the count is read, not written into CCC's state")
		require.Equal(t, 1, p.cp.count())
		assert.Equal(t, &checkpoint.Loop{TaskIndex: 1, TotalTasks: 3}, p.cp.calls[0].Loop)
		assert.Empty(t, p.errs.String())
	})
	t.Run("totalTasks null", func(t *testing.T) {
		p := newProj(t)
		p.write(state.FileName, stateJSON(t, map[string]any{"taskIndex": 2, "totalTasks": nil}))
		p.write(ProgressFile, []byte(progressOf3))
		d := p.stop(input(t, "stop.json", nil))
		assert.Equal(t, RuleLastTask, d.Rule, "task 3 of 3 was the last")
		assert.Nil(t, p.read(state.FileName))
	})
	t.Run("the state's count wins", func(t *testing.T) {
		p := newProj(t)
		p.write(state.FileName, stateJSON(t, map[string]any{"taskIndex": 0, "totalTasks": 5}))
		p.write(ProgressFile, []byte(progressOf3))
		d := p.stop(input(t, "stop.json", nil))
		assert.Contains(t, d.Reason, "Execute task 2 of 5 from")
	})
	t.Run("no progress file", func(t *testing.T) {
		p := newProj(t)
		p.write(state.FileName, stateJSON(t, handWritten))
		d := p.stop(input(t, "stop.json", nil))
		assert.Equal(t, RuleAllDone, d.Rule)
		assert.Nil(t, p.read(state.FileName))
	})
	t.Run("unreadable progress file", func(t *testing.T) {
		p := newProj(t)
		orig := stateJSON(t, handWritten)
		p.write(state.FileName, orig)
		p.write(ProgressFile, []byte("binary\x00data"))
		d := p.stop(input(t, "stop.json", nil))
		assert.Equal(t, Decision{Outcome: Allow, Rule: RuleRejected}, d)
		assert.Equal(t, string(orig), string(p.read(state.FileName)), "left alone")
		assert.Equal(t, 1, strings.Count(p.errs.String(), "\n"), "one line: %s", p.errs.String())
		assert.Contains(t, p.errs.String(), "ccc hook stop: .ccc-state.json has no totalTasks and .ccc-progress.md cannot be read for the task count: ")
	})
}

// TestStopRemovalNamesBackup: whenever the stop hook deletes the state
// (the loop is over), one line says so and names the backup, which holds
// the state as the hook found it or left it.
func TestStopRemovalNamesBackup(t *testing.T) {
	for _, tt := range []struct {
		name  string
		over  map[string]any
		rule  Rule
		index string
	}{
		{"last task", map[string]any{"taskIndex": 2}, RuleLastTask, `"taskIndex": 3`},
		{"all done", map[string]any{"taskIndex": 3}, RuleAllDone, `"taskIndex": 3`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newProj(t)
			p.write(state.FileName, stateJSON(t, tt.over))
			d := p.stop(input(t, "stop.json", nil))
			require.Equal(t, tt.rule, d.Rule)
			require.Nil(t, p.read(state.FileName))
			backups, err := projectfs.Backups(p.root, state.FileName)
			require.NoError(t, err)
			require.NotEmpty(t, backups)
			newest := backups[0]
			rel, err := filepath.Rel(p.root, newest)
			require.NoError(t, err)
			assert.Equal(t, "ccc hook stop: task loop over (3 of 3 tasks done): removed .ccc-state.json; its backup is "+rel+"\n", p.errs.String())
			data, err := os.ReadFile(newest)
			require.NoError(t, err)
			assert.Contains(t, string(data), tt.index)
		})
	}
}
