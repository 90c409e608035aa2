package hook

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/state"
)

// The deliberate differences from CCC's bash handler, §7 [a]–[f].

// [a] A halt allows the stop: the output has no decision key (CCC blocked,
// and kept blocking on every later stop until Claude Code's cap), and the
// state stays as it was for a person to look at.
func TestDifferenceA_HaltAllowsTheStop(t *testing.T) {
	for name, over := range map[string]map[string]any{
		"global": {"globalIteration": 50},
		"task":   {"taskIteration": 5},
		"replan": {"replanCount": 2},
	} {
		t.Run(name, func(t *testing.T) {
			p := newProj(t)
			orig := stateJSON(t, over)
			p.write(state.FileName, orig)
			for range 2 { // Claude Code's stop_hook_active changes nothing
				d := p.stop(input(t, "stop-active.json", map[string]any{"last_assistant_message": outReplan}))
				var out map[string]any
				require.NoError(t, json.Unmarshal(d.Stdout(), &out))
				assert.NotContains(t, out, "decision")
				assert.NotContains(t, out, "reason")
				assert.Contains(t, out, "systemMessage")
				assert.Equal(t, string(orig), string(p.read(state.FileName)))
			}
		})
	}
}

// [b] Session ownership: the first write records the session; another
// session's stops are allowed with nothing written and no checkpoint; a
// session id is never written on its own.
func TestDifferenceB_SessionOwnership(t *testing.T) {
	t.Run("first write takes ownership", func(t *testing.T) {
		p := newProj(t)
		p.write(state.FileName, stateJSON(t, nil))
		p.stop(input(t, "stop-active.json", nil))
		assert.Equal(t, `"`+sessionID+`"`, string(mustRaw(t, p.state(), "ownerSessionId")))
	})
	t.Run("no session id, no owner", func(t *testing.T) {
		p := newProj(t)
		p.write(state.FileName, stateJSON(t, nil))
		d := p.stop(input(t, "stop-active.json", map[string]any{"session_id": nil}))
		assert.Equal(t, RuleRetry, d.Rule)
		assert.False(t, p.state().Has("ownerSessionId"))
	})
	t.Run("an owner is never replaced", func(t *testing.T) {
		p := newProj(t)
		p.write(state.FileName, stateJSON(t, map[string]any{"ownerSessionId": sessionID}))
		p.stop(input(t, "stop-active.json", nil))
		st := p.state()
		assert.Equal(t, `"`+sessionID+`"`, string(mustRaw(t, st, "ownerSessionId")))
		assert.Equal(t, "2", string(mustRaw(t, st, "taskIteration")))
	})
	t.Run("another session is let go", func(t *testing.T) {
		p := newProj(t)
		orig := stateJSON(t, map[string]any{"ownerSessionId": "a-parallel-session", "taskIndex": 2})
		p.write(state.FileName, orig)
		d := p.stop(input(t, "stop.json", nil)) // TASK_COMPLETE of the last task
		assert.Equal(t, Decision{Outcome: Allow, Rule: RuleOwner}, d)
		assert.Equal(t, string(orig), string(p.read(state.FileName)))
		assert.Zero(t, p.cp.count())
	})
	t.Run("no write only to record ownership", func(t *testing.T) {
		for name, over := range map[string]map[string]any{
			"gate":   {"awaitingGate": "3"},
			"phase":  {"phase": "review"},
			"halt":   {"taskIteration": 9},
			"paired": {"executionMode": "pair"},
		} {
			p := newProj(t)
			orig := stateJSON(t, over)
			p.write(state.FileName, orig)
			p.stop(input(t, "stop.json", nil))
			assert.Equal(t, string(orig), string(p.read(state.FileName)), name)
		}
	})
}

// [c] The transcript is parsed as JSON. CCC grepped for the compact text
// "role":"assistant" and fed the last matching line to jq: a record written
// with spaces was never found, and a record torn by a crash made the output
// empty. Recent Claude Code sends last_assistant_message, which wins.
func TestDifferenceC_TranscriptParsedAsJSON(t *testing.T) {
	tests := []struct {
		name string
		set  map[string]any
		rule Rule
	}{
		{"spaced record", map[string]any{"transcript_path": transcript(t, "spaced.jsonl")}, RuleReplan},
		{"torn record at the end", map[string]any{"transcript_path": transcript(t, "torn-tail.jsonl")}, RuleNext},
		{"message.role", map[string]any{"transcript_path": transcript(t, "claude-code.jsonl")}, RuleNext},
		{"tool result text is not the assistant's", map[string]any{"transcript_path": transcript(t, "tool-use-last.jsonl")}, RuleRetry},
		{"last_assistant_message over the transcript", map[string]any{
			"transcript_path": transcript(t, "claude-code.jsonl"), "last_assistant_message": "still working"}, RuleRetry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProj(t)
			p.write(state.FileName, stateJSON(t, nil))
			d := p.stop(input(t, "stop-no-message.json", tt.set))
			assert.Equal(t, tt.rule, d.Rule)
		})
	}
}

// [d] Every path allows rather than fails: CCC exited 1 on a mistyped
// field and read bad stdin as {}, which went on to block the agent.
func TestDifferenceD_RejectedInputAllows(t *testing.T) {
	for name, stdin := range map[string]string{
		"bad stdin":   "session_id=8f3c2a1e",
		"empty stdin": "",
		"array stdin": `[]`,
	} {
		t.Run(name, func(t *testing.T) {
			p := newProj(t)
			orig := stateJSON(t, nil) // CCC would have blocked with a retry
			p.write(state.FileName, orig)
			d := p.stop([]byte(stdin))
			assert.Equal(t, Decision{Outcome: Allow, Rule: RuleRejected}, d)
			assert.Empty(t, d.Stdout())
			assert.Equal(t, string(orig), string(p.read(state.FileName)))
		})
	}
	t.Run("mistyped field", func(t *testing.T) {
		p := newProj(t)
		orig := stateJSON(t, map[string]any{"globalIteration": "4"})
		p.write(state.FileName, orig)
		d := p.stop(input(t, "stop.json", nil))
		assert.Equal(t, Decision{Outcome: Allow, Rule: RuleRejected}, d)
		assert.Equal(t, "ccc hook stop: "+p.path(state.FileName)+`: globalIteration is "4", expected an integer; allowing the stop and leaving the file as it is`+"\n", p.errs.String())
	})
	t.Run("truncated state", func(t *testing.T) {
		p := newProj(t)
		p.write(state.FileName, []byte("{\n  \"phase\": \"exec"))
		d := p.stop(input(t, "stop.json", nil))
		assert.Equal(t, Decision{Outcome: Allow, Rule: RuleRejected}, d)
		assert.Equal(t, "ccc hook stop: "+p.path(state.FileName)+`:2:17: not valid JSON: unexpected end of JSON input; allowing the stop and leaving the file as it is`+"\n", p.errs.String(),
			"path:line:col, as checkpoint says it")
	})
}

// [e] A block is {"decision","reason"} and nothing else: Claude Code's hook
// output has no env key, so hooks.effort_env is retired. A file that still
// turns it on blocks the same, with one note on stderr.
func TestDifferenceE_NoEffortEnv(t *testing.T) {
	tests := []struct {
		mode, prefs, out, note string
	}{
		{"quick", "", outRetry, ""},
		{"quick", "hooks:\n  effort_env: false\n", outRetry, ""},
		{"quick", "hooks:\n  effort_env: true\n", outRetry, "hooks.effort_env is no longer supported"},
		{"tdd", "hooks:\n  effort_env: true\n", outComplete, "hooks.effort_env is no longer supported"},
		{"checkpoint", "hooks:\n  effort_env: true\n", outReplan, "hooks.effort_env is no longer supported"},
	}
	for _, tt := range tests {
		t.Run(tt.mode+" "+tt.prefs, func(t *testing.T) {
			p := newProj(t)
			p.write(state.FileName, stateJSON(t, map[string]any{"executionMode": tt.mode}))
			if tt.prefs != "" {
				p.write(PrefsFile, []byte(tt.prefs))
			}
			d := p.stop(input(t, "stop.json", map[string]any{"last_assistant_message": tt.out}))
			require.Equal(t, Block, d.Outcome)
			var out map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(d.Stdout(), &out))
			assert.Len(t, out, 2, "decision and reason only: %s", d.Stdout())
			assert.Contains(t, out, "decision")
			assert.Contains(t, out, "reason")
			if tt.note == "" {
				assert.Empty(t, p.errs.String())
			} else {
				assert.Equal(t, 1, strings.Count(p.errs.String(), "\n"), "one line: %s", p.errs.String())
				assert.Contains(t, p.errs.String(), tt.note)
			}
		})
	}
}

// [f] The automated checkpoint runs at gate boundaries, after the state
// mutation and before the output, and never on the other paths; its
// failures change neither the decision nor the output.
func TestDifferenceF_CheckpointAtGateBoundaries(t *testing.T) {
	tests := []struct {
		name string
		over map[string]any
		out  string
		gate bool
		// loop is where the stop moved CCC's loop, for the checkpoint
		// (the state file is gone once the loop is done).
		loop *checkpoint.Loop
	}{
		{"3.2 other owner", map[string]any{"ownerSessionId": "other"}, outComplete, false, nil},
		{"3.3 awaiting gate", map[string]any{"awaitingGate": "2"}, outComplete, true, nil},
		{"3.4 not executing", map[string]any{"phase": "decompose"}, outComplete, false, nil},
		{"3.5 pair", map[string]any{"executionMode": "pair"}, outComplete, false, nil},
		{"3.6 max global", map[string]any{"globalIteration": 50}, outComplete, true, nil},
		{"3.7 max task", map[string]any{"taskIteration": 5}, outComplete, true, nil},
		{"3.8 all done", map[string]any{"taskIndex": 3}, outComplete, true, &checkpoint.Loop{TaskIndex: 3, TotalTasks: 3}},
		{"3.8 past the end", map[string]any{"taskIndex": 7}, outComplete, true, &checkpoint.Loop{TaskIndex: 3, TotalTasks: 3}},
		{"3.9 max replans", map[string]any{"replanCount": 2}, outReplan, true, nil},
		{"3.9 replan", nil, outReplan, true, nil},
		{"3.10 retry", nil, outRetry, false, nil},
		{"3.11 next", nil, outComplete, true, &checkpoint.Loop{TaskIndex: 2, TotalTasks: 3}},
		{"3.11 last task", map[string]any{"taskIndex": 2}, outComplete, true, &checkpoint.Loop{TaskIndex: 3, TotalTasks: 3}},
	}
	failures := map[string]func(f *fakeCheckpoint){
		"succeeds": func(f *fakeCheckpoint) {},
		"fails":    func(f *fakeCheckpoint) { f.err = errors.New("Linear update (HTTP 503)") },
		"panics":   func(f *fakeCheckpoint) { f.panic = true },
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var outputs []string
			for fname, fail := range failures {
				p := newProj(t)
				fail(p.cp)
				p.write(state.FileName, stateJSON(t, tt.over))
				// What the checkpoint sees is the state after the mutation.
				var seen []byte
				p.cp.do = func(c CheckpointRequest) { seen = p.read(state.FileName) }
				d := p.stop(input(t, "stop.json", map[string]any{"last_assistant_message": tt.out}))
				outputs = append(outputs, string(d.Stdout())+string(d.Rule))
				if !tt.gate {
					assert.Zero(t, p.cp.count(), fname)
					continue
				}
				require.Equal(t, 1, p.cp.count(), fname)
				assert.Equal(t, CheckpointRequest{Root: p.root, Deadline: config.DefaultHookTimeout, Issue: "CIA-12", KeepState: true, SessionID: "8f3c2a1e-4b7d-4e2a-9c51-0d6e7f8a9b10",
					Loop: tt.loop}, p.cp.calls[0])
				assert.Equal(t, string(p.read(state.FileName)), string(seen), "%s: the checkpoint ran after the state mutation", fname)
				if fname != "succeeds" {
					assert.Contains(t, p.errs.String(), "ccc hook stop: checkpoint: ", fname)
				}
			}
			for _, o := range outputs[1:] {
				assert.Equal(t, outputs[0], o, "the checkpoint's outcome changes nothing")
			}
		})
	}
}

// TestCheckpointDeadline: hooks.checkpoint_timeout is the checkpoint's
// deadline, and a checkpoint that overruns it is not waited for.
func TestCheckpointDeadline(t *testing.T) {
	p := newProj(t)
	p.write(state.FileName, stateJSON(t, nil))
	p.write(PrefsFile, []byte("hooks:\n  checkpoint_timeout: 0.02\n"))
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	p.cp.do = func(c CheckpointRequest) { <-release }
	d := p.stop(input(t, "stop.json", nil))
	assert.Equal(t, RuleNext, d.Rule)
	assert.Contains(t, string(d.Stdout()), "Execute task 3 of 3")
	require.Equal(t, 1, p.cp.count())
	assert.Equal(t, "20ms", p.cp.calls[0].Deadline.String())
	assert.Contains(t, p.errs.String(), "ccc hook stop: checkpoint: still running after 20ms; not waiting for it")
}

// TestCheckpointKeepsState: every gate checkpoint asks the pipeline to leave
// the state file alone apart from the tracker's bookkeeping (4.2) and not to
// re-create a state the hook deleted (3.8); the checkpoint package tests that
// it honours KeepState. The issue read before a deletion is passed along.
func TestCheckpointKeepsState(t *testing.T) {
	tests := []struct {
		name string
		over map[string]any
		out  string
	}{
		{"gate", map[string]any{"awaitingGate": "2"}, outComplete},
		{"halt", map[string]any{"taskIteration": 5}, outRetry},
		{"all done", map[string]any{"taskIndex": 3}, outComplete},
		{"last task", map[string]any{"taskIndex": 2}, outComplete},
		{"next", nil, outComplete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProj(t)
			p.write(state.FileName, stateJSON(t, tt.over))
			d := p.stop(input(t, "stop.json", map[string]any{"last_assistant_message": tt.out}))
			require.True(t, d.Gate)
			require.Equal(t, 1, p.cp.count())
			c := p.cp.calls[0]
			assert.True(t, c.KeepState)
			assert.Equal(t, "CIA-12", c.Issue)
			assert.Equal(t, p.root, c.Root)
		})
	}
}

func TestNoCheckpointer(t *testing.T) {
	p := newProj(t)
	p.write(state.FileName, stateJSON(t, map[string]any{"taskIndex": 3}))
	env := p.env()
	env.Checkpoint = nil
	d := Stop(context.Background(), env, input(t, "stop.json", nil))
	assert.Equal(t, Decision{Outcome: Allow, Rule: RuleAllDone, Gate: true}, d)
	assert.Nil(t, p.read(state.FileName))
}
