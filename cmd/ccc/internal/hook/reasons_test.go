package hook

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sentences of §6, as CCC words them, but for the task numbers: they
// count from 1, as .ccc-progress.md does (baseState is on its second task,
// taskIndex 1).
const (
	sHead      = "Continue CCC execution for CIA-12. Mode: quick."
	sRead      = "Read .ccc-progress.md for completed task context."
	sNoSignal  = "Task 2 did not signal TASK_COMPLETE. Retry attempt 2 of 5."
	sExecRetry = "Execute task 2 from the decomposed task list."
	sExecNext  = "Execute task 3 of 3 from the decomposed task list."
	sSpec      = "Spec: docs/spec.md."
	sTDD       = "Follow red-green-refactor cycle for each acceptance criterion."
	sCheckpt   = "Pause at any checkpoint gates for human review before proceeding."
	e1         = "Use parallel subagents for codebase reads; single subagent for build/test."
	e2         = "Before implementing, search the codebase for existing solutions. Don't assume functionality is missing."
	e3         = "Read .ccc-agents.md for project-specific build commands and codebase patterns."
	e4         = "When presenting options, always highlight your recommended choice."
	e5rice     = "Use RICE (Reach, Impact, Confidence, Effort) as a reasoning lens when prioritizing tasks."
	e5moscow   = "Use MoSCoW (Must, Should, Could, Won't) as a reasoning lens when prioritizing tasks."
	e5eisen    = "Use the Eisenhower Matrix (Urgent/Important) as a reasoning lens when prioritizing tasks."
	e6         = "For eval tools, run structural analysis first before expensive execution stages."
	e7pay      = "Cost profile: pay-per-use. Default to structural-only evaluation; require explicit opt-in for execution."
	e7budget   = "Cost profile: budget. Checkpoint if estimated eval cost exceeds $10."
	sSignal    = "Signal TASK_COMPLETE when done."

	sReplanHead = "REPLAN triggered for CIA-12 (replan 1 of 2)."
	sReplanRead = "Read the spec at docs/spec.md and .ccc-progress.md."
	sReplanRest = "Compare completed work against ALL acceptance criteria. Regenerate remaining tasks based on what actually exists in the codebase. Update .ccc-state.json: set phase back to execution, update totalTasks and taskIndex. Then continue executing from the first new task. Signal TASK_COMPLETE when done."
)

func words(s ...string) string { return strings.Join(s, " ") }

// defaultENR is ENR with every preference at its default and no .ccc-agents.md.
var defaultENR = []string{e1, e2, e4, e6, e7budget}

func retryWith(enr ...string) string {
	return words(append(append([]string{sHead, sRead, sNoSignal, sExecRetry}, enr...), sSignal)...)
}

func nextWith(enr ...string) string {
	return words(append(append([]string{sHead, sRead, sExecNext, sSpec}, enr...), sSignal)...)
}

// TestReasons has a case per sentence of §6 and per preference that adds,
// removes or changes one.
func TestReasons(t *testing.T) {
	tests := []struct {
		name   string
		state  map[string]any
		prefs  string
		agents bool // .ccc-agents.md exists
		out    string
		want   string
	}{
		{name: "R_retry", out: outRetry, want: retryWith(defaultENR...)},
		{name: "R_next", out: outComplete, want: nextWith(defaultENR...)},
		{name: "R_next without spec", state: map[string]any{"specPath": ""}, out: outComplete,
			want: words(sHead, sRead, sExecNext, e1, e2, e4, e6, e7budget, sSignal)},
		{name: "R_replan", out: outReplan, want: words(sReplanHead, sReplanRead, sReplanRest)},
		{name: "R_replan without spec", state: map[string]any{"specPath": drop{}}, out: outReplan,
			want: words(sReplanHead, "Read the spec and .ccc-progress.md.", sReplanRest)},
		{name: "R_replan second", state: map[string]any{"replanCount": 1}, prefs: "replan:\n  max_replans_per_session: 3\n", out: outReplan,
			want: words("REPLAN triggered for CIA-12 (replan 2 of 3).", sReplanRead, sReplanRest)},
		{name: "unknown issue", state: map[string]any{"linearIssue": ""}, out: outReplan,
			want: words("REPLAN triggered for unknown issue (replan 1 of 2).", sReplanRead, sReplanRest)},
		{name: "MODE tdd", state: map[string]any{"executionMode": "tdd"}, out: outRetry,
			want: words("Continue CCC execution for CIA-12. Mode: tdd.", sRead, sNoSignal, sExecRetry, sTDD, e1, e2, e4, e6, e7budget, sSignal)},
		{name: "MODE checkpoint", state: map[string]any{"executionMode": "checkpoint"}, out: outComplete,
			want: words("Continue CCC execution for CIA-12. Mode: checkpoint.", sRead, sExecNext, sSpec, sCheckpt, e1, e2, e4, e6, e7budget, sSignal)},
		{name: "MODE other", state: map[string]any{"executionMode": "autonomous"}, out: outRetry,
			want: words("Continue CCC execution for CIA-12. Mode: autonomous.", sRead, sNoSignal, sExecRetry, e1, e2, e4, e6, e7budget, sSignal)},
		{name: "execution.default_mode", prefs: "execution:\n  default_mode: tdd\n", out: outRetry,
			want: words("Continue CCC execution for CIA-12. Mode: tdd.", sRead, sNoSignal, sExecRetry, sTDD, e1, e2, e4, e6, e7budget, sSignal)},
		{name: "execution.max_task_iterations", prefs: "execution:\n  max_task_iterations: 8\n", out: outRetry,
			want: words(sHead, sRead, "Task 2 did not signal TASK_COMPLETE. Retry attempt 2 of 8.", sExecRetry, e1, e2, e4, e6, e7budget, sSignal)},
		{name: "E1 off", prefs: "prompts:\n  subagent_discipline: false\n", out: outRetry, want: retryWith(e2, e4, e6, e7budget)},
		{name: "E2 off", prefs: "prompts:\n  search_before_build: false\n", out: outRetry, want: retryWith(e1, e4, e6, e7budget)},
		{name: "E3 with .ccc-agents.md", agents: true, out: outRetry, want: retryWith(e1, e2, e3, e4, e6, e7budget)},
		{name: "E3 off", agents: true, prefs: "prompts:\n  agents_file: false\n", out: outRetry, want: retryWith(defaultENR...)},
		{name: "E4 off", prefs: "planning:\n  always_recommend: false\n", out: outComplete, want: nextWith(e1, e2, e6, e7budget)},
		{name: "E5 rice", prefs: "planning:\n  prioritization_framework: rice\n", out: outRetry, want: retryWith(e1, e2, e4, e5rice, e6, e7budget)},
		{name: "E5 moscow", prefs: "planning:\n  prioritization_framework: moscow\n", out: outComplete, want: nextWith(e1, e2, e4, e5moscow, e6, e7budget)},
		{name: "E5 eisenhower", prefs: "planning:\n  prioritization_framework: eisenhower\n", out: outRetry, want: retryWith(e1, e2, e4, e5eisen, e6, e7budget)},
		{name: "E5 other", prefs: "planning:\n  prioritization_framework: kano\n", out: outRetry, want: retryWith(defaultENR...)},
		{name: "E6 off", prefs: "eval:\n  analyze_before_execute: false\n", out: outRetry, want: retryWith(e1, e2, e4, e7budget)},
		{name: "E7 pay-per-use", prefs: "eval:\n  cost_profile: pay-per-use\n", out: outRetry, want: retryWith(e1, e2, e4, e6, e7pay)},
		{name: "E7 budget as written", prefs: "eval:\n  max_budget_usd: 25.50\n", out: outRetry,
			want: retryWith(e1, e2, e4, e6, "Cost profile: budget. Checkpoint if estimated eval cost exceeds $25.50.")},
		{name: "E7 other", prefs: "eval:\n  cost_profile: unlimited\n", out: outComplete, want: nextWith(e1, e2, e4, e6)},
		{name: "E8 explanatory", prefs: "style:\n  explanatory: detailed\n", out: outRetry,
			want: retryWith(append(defaultENR, "Explanation depth for scan/execution output: detailed.")...)},
		{name: "E8 scan override", prefs: "style:\n  explanatory: detailed\n  explanatory_by_role:\n    scan: terse\n", out: outComplete,
			want: nextWith(append(defaultENR, "Explanation depth for scan/execution output: terse.")...)},
		{name: "E8 scan balanced", prefs: "style:\n  explanatory: detailed\n  explanatory_by_role:\n    scan: balanced\n", out: outRetry,
			want: retryWith(defaultENR...)},
		{name: "E8 empty scan", prefs: "style:\n  explanatory: minimal\n  explanatory_by_role:\n    scan: \"\"\n", out: outRetry,
			want: retryWith(append(defaultENR, "Explanation depth for scan/execution output: minimal.")...)},
		{name: "every enrichment", agents: true, out: outComplete, prefs: `
planning: {prioritization_framework: rice}
eval: {cost_profile: pay-per-use}
style: {explanatory: verbose}
`, want: nextWith(e1, e2, e3, e4, e5rice, e6, e7pay, "Explanation depth for scan/execution output: verbose.")},
		{name: "no enrichment", agents: true, out: outRetry, prefs: `
prompts: {subagent_discipline: false, search_before_build: false, agents_file: no}
planning: {always_recommend: "off"}
eval: {analyze_before_execute: 0, cost_profile: none}
`, want: retryWith()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decideOn(t, stateJSON(t, tt.state), tt.prefs, input(t, "stop.json", map[string]any{"last_assistant_message": tt.out}),
				func(x *Facts) { x.AgentsFile = tt.agents }).d
			require.Equal(t, Block, d.Outcome, "rule %s", d.Rule)
			assert.Equal(t, tt.want, d.Reason)
		})
	}
}

// TestHaltMessages has a case per halt sentence, with the limits from the
// state and from the preferences.
func TestHaltMessages(t *testing.T) {
	tests := []struct {
		name  string
		state map[string]any
		prefs string
		out   string
		want  string
	}{
		{"global", map[string]any{"globalIteration": 50}, "", outRetry,
			"Max global iterations (50) reached. Halting to prevent runaway execution."},
		{"global from prefs", map[string]any{"globalIteration": 12}, "execution:\n  max_global_iterations: 12\n", outRetry,
			"Max global iterations (12) reached. Halting to prevent runaway execution."},
		{"global from state", map[string]any{"globalIteration": 7, "maxGlobalIterations": 7}, "", outRetry,
			"Max global iterations (7) reached. Halting to prevent runaway execution."},
		{"task", map[string]any{"taskIteration": 5, "taskIndex": 2}, "", outRetry,
			"Task 3 failed after 5 attempts. Halting — manual intervention required."},
		{"first task", map[string]any{"taskIteration": 5, "taskIndex": 0}, "", outRetry,
			"Task 1 failed after 5 attempts. Halting — manual intervention required."},
		{"task from prefs", map[string]any{"taskIteration": 3}, "execution:\n  max_task_iterations: 3\n", outComplete,
			"Task 2 failed after 3 attempts. Halting — manual intervention required."},
		{"replans", map[string]any{"replanCount": 2}, "", outReplan,
			"Max replans (2) reached after 2 replans. Halting — review .ccc-progress.md and adjust tasks manually."},
		{"replans from prefs", map[string]any{"replanCount": 4}, "replan:\n  max_replans_per_session: 1\n", outReplan,
			"Max replans (1) reached after 4 replans. Halting — review .ccc-progress.md and adjust tasks manually."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decideOn(t, stateJSON(t, tt.state), tt.prefs, input(t, "stop.json", map[string]any{"last_assistant_message": tt.out})).d
			require.Equal(t, Halt, d.Outcome, "rule %s", d.Rule)
			assert.Equal(t, tt.want, d.Message)
		})
	}
}

// TestReasonsFirstTask: on the first task (taskIndex 0) every reason says
// task 1, as .ccc-progress.md does; the next one is task 2 of 3.
func TestReasonsFirstTask(t *testing.T) {
	tests := []struct {
		out, want string
	}{
		{outRetry, "Task 1 did not signal TASK_COMPLETE. Retry attempt 2 of 5. Execute task 1 from the decomposed task list."},
		{outComplete, "Execute task 2 of 3 from the decomposed task list."},
	}
	for _, tt := range tests {
		d := decideOn(t, stateJSON(t, map[string]any{"taskIndex": 0}), "", input(t, "stop.json", map[string]any{"last_assistant_message": tt.out})).d
		require.Equal(t, Block, d.Outcome, "rule %s", d.Rule)
		assert.Contains(t, d.Reason, tt.want)
	}
}
