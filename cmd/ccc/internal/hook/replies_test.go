package hook

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/state"
)

// A stop pressed in Linear's agent session halts the loop, naming who.
func TestStopHaltsOnALinearStop(t *testing.T) {
	p := newProj(t)
	p.write(state.FileName, stateJSON(t, nil))
	env := p.env()
	env.Replies = func(context.Context, string) (string, string) { return "", "Ada" }
	d := Stop(context.Background(), env, input(t, "stop.json", nil))
	assert.Equal(t, Halt, d.Outcome)
	assert.Equal(t, RuleLinearStop, d.Rule)
	assert.Contains(t, string(d.Stdout()), `"systemMessage":"ccc: stopped from Linear by Ada; the loop halts here."`)
	assert.Zero(t, p.cp.count())
}

// SessionStart hands the replies to the agent with the continuation prompt.
func TestSessionStartAddsLinearReplies(t *testing.T) {
	p := newProj(t)
	env := p.env()
	env.Replies = func(context.Context, string) (string, string) {
		return "Replies from Linear (CIA-9):\n- Ada: use the keychain", ""
	}
	out := SessionStart(context.Background(), env, input(t, "sessionstart-compact.json", nil), loader(resume, true, nil))
	var got struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Contains(t, got.HookSpecificOutput.AdditionalContext, resume.Context())
	assert.Contains(t, got.HookSpecificOutput.AdditionalContext, "\n\nReplies from Linear (CIA-9):\n- Ada: use the keychain")
}

// A stop-hook retry keeps the Linear session alive; the next task does not.
func TestStopRetryKeepsTheSessionAlive(t *testing.T) {
	p := newProj(t)
	p.write(state.FileName, stateJSON(t, nil))
	env := p.env()
	var kept []string
	env.KeepAlive = func(_ context.Context, _ string, what string) { kept = append(kept, what) }
	d := Stop(context.Background(), env, input(t, "stop-active.json", nil))
	require.Equal(t, RuleRetry, d.Rule)
	assert.Equal(t, []string{"Retrying the current task."}, kept)
}

// Replies read by the Stop hook reach the agent: with a block's reason, or
// as a block of their own where the stop would have been allowed.
func TestStopHandsRepliesOn(t *testing.T) {
	replies := func(context.Context, string) (string, string) { return "Replies from Linear (CIA-9):\n- Ada: yes", "" }
	p := newProj(t)
	p.write(state.FileName, stateJSON(t, nil))
	env := p.env()
	env.Replies = replies
	d := Stop(context.Background(), env, input(t, "stop-active.json", nil))
	assert.Equal(t, RuleRetry, d.Rule)
	assert.True(t, strings.HasSuffix(d.Reason, "\n\nReplies from Linear (CIA-9):\n- Ada: yes"), d.Reason)

	p = newProj(t)
	p.write(state.FileName, stateJSON(t, map[string]any{"ownerSessionId": "another-session"}))
	env = p.env()
	env.Replies = replies
	d = Stop(context.Background(), env, input(t, "stop-active.json", nil))
	assert.Equal(t, Decision{Outcome: Block, Rule: RuleLinearReply, Reason: "Replies from Linear (CIA-9):\n- Ada: yes"}, d)
}

// A stop read at SessionStart is not dropped: the agent is told who
// stopped it, and not to go on.
func TestSessionStartSaysTheSessionWasStopped(t *testing.T) {
	p := newProj(t)
	env := p.env()
	env.Replies = func(context.Context, string) (string, string) { return "", "Ada" }
	out := SessionStart(context.Background(), env, input(t, "sessionstart-compact.json", nil), loader(resume, true, nil))
	var got struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Contains(t, got.HookSpecificOutput.AdditionalContext, "Ada stopped this work from Linear")
}

// A stop pressed in Linear while the agent works ends its turn at the next
// tool hook (Claude Code's "continue": false), naming who.
func TestToolHookStopsOnALinearStop(t *testing.T) {
	p := newProj(t)
	env := p.env()
	env.StopCheck = func(context.Context, string) string { return "Ada" }
	out := ToolStop(context.Background(), env, input(t, "stop.json", nil))
	var got struct {
		Continue   *bool  `json:"continue"`
		StopReason string `json:"stopReason"`
	}
	require.NoError(t, json.Unmarshal(out, &got))
	require.NotNil(t, got.Continue)
	assert.False(t, *got.Continue)
	assert.Contains(t, got.StopReason, "stopped from Linear by Ada")

	env.StopCheck = func(context.Context, string) string { return "" }
	assert.Empty(t, ToolStop(context.Background(), env, input(t, "stop.json", nil)))
}
