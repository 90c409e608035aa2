package hook

import (
	"fmt"
	"strings"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/state"
)

// Facts are everything the Stop hook's decision order reads. The executor
// (stopper.run) gathers them; Decide only reads them. The preferences, the
// task count, the last output and .ccc-agents.md are gathered only for a
// state in the loop (needsPrefs, inLoop), and a problem gathering one is
// said only by the rule that reads it (a Say effect), so what a stop costs
// and says is what it was before the rules were taken apart from it.
type Facts struct {
	// Session is the hook's session_id.
	Session string
	// State are the loop keys of .ccc-state.json (after a pending change).
	State fields
	// Prefs are the hooks' preferences (the defaults when unread).
	Prefs config.HookPrefs
	// Tasks is .ccc-progress.md's task count: 0 with a nil error when the
	// file is missing, 0 with the error when it cannot be read or parsed.
	Tasks    int64
	TasksErr error
	// Output is the agent's last output; OutputErr why it reads as empty.
	Output    string
	OutputErr error
	// AgentsFile: .ccc-agents.md exists (read only when prompts.agents_file).
	AgentsFile bool
}

// An Effect is one thing the executor does for a decision, in order. A
// state write or removal that fails ends the run: the stop is allowed
// (RuleWriteFailed) and the later effects are dropped.
type Effect interface{ effect() }

// WriteState sets loop keys in .ccc-state.json (with lastUpdatedAt and the
// session's ownership), or queues them in .ccc/pending when the lock stays
// busy.
type WriteState struct{ Set map[string]any }

// RemoveState ends the loop: the state file is deleted after a backup (or
// the removal is queued, the lock busy).
type RemoveState struct{ Total int64 }

// GateCheckpoint runs the automated checkpoint at a gate boundary; Loop is
// the loop's new position when the stop moved or ended it.
type GateCheckpoint struct{ Loop *checkpoint.Loop }

// Say is one stderr line of the hook.
type Say struct{ Line string }

func (WriteState) effect()     {}
func (RemoveState) effect()    {}
func (GateCheckpoint) effect() {}
func (Say) effect()            {}

// needsPrefs reports whether the decision reads the preferences: a state
// this session may act on that is at a gate or executing.
func needsPrefs(f fields, session string) bool {
	return ownedBy(f, session) && (f.awaitingGate || f.phase == "execution")
}

// inLoop reports whether the decision reaches the loop's rules (3.5 on),
// which read the task count and the last output.
func inLoop(f fields, session string) bool {
	return ownedBy(f, session) && !f.awaitingGate && f.phase == "execution"
}

func ownedBy(f fields, session string) bool { return f.owner == "" || f.owner == session }

// Decide is the Stop hook's decision order (DESIGN.md, "Stop decision
// order"), rule by rule, first match wins: the decision and the effects
// that carry it out. It reads nothing but x.
func Decide(x Facts) (Decision, []Effect) {
	f := x.State
	if !ownedBy(f, x.Session) {
		return Decision{Outcome: Allow, Rule: RuleOwner}, nil
	}
	if f.awaitingGate {
		return atGate(Decision{Outcome: Allow, Rule: RuleGate}, nil, nil)
	}
	if f.phase != "execution" {
		return Decision{Outcome: Allow, Rule: RulePhase}, nil
	}
	p := x.Prefs
	mode := f.executionMode
	if p.Execution.DefaultMode != "" {
		mode = p.Execution.DefaultMode
	}
	if mode == "pair" || mode == "swarm" {
		return Decision{Outcome: Allow, Rule: RuleMode}, nil
	}
	mt, mg := f.maxTaskIterations, f.maxGlobalIterations
	if p.Execution.MaxTaskIterations != nil {
		mt = *p.Execution.MaxTaskIterations
	}
	if p.Execution.MaxGlobalIterations != nil {
		mg = *p.Execution.MaxGlobalIterations
	}
	var effects []Effect
	if !f.hasTotal {
		// A state the user wrote by hand names the task it is on but not
		// how many there are: the progress file counts them. One that
		// cannot be read leaves the state alone rather than end on a guess.
		if x.TasksErr != nil {
			return Decision{Outcome: Allow, Rule: RuleRejected}, []Effect{Say{fmt.Sprintf(
				"%s has no totalTasks and %s cannot be read for the task count: %v; allowing the stop and leaving the file as it is",
				state.FileName, ProgressFile, x.TasksErr)}}
		}
		f.totalTasks = x.Tasks
	} else if x.Tasks > f.totalTasks {
		// One count everywhere: tasks listed past the plan (the agent's
		// own list, an --add-task the state missed) are the loop's too.
		effects = append(effects, WriteState{map[string]any{"totalTasks": x.Tasks}})
		f.totalTasks = x.Tasks
	}
	i, n, t, g, rc := f.taskIndex, f.totalTasks, f.taskIteration, f.globalIteration, f.replanCount

	if g >= mg {
		return atGate(Decision{Outcome: Halt, Rule: RuleGlobalCap,
			Message: fmt.Sprintf("Max global iterations (%d) reached. Halting to prevent runaway execution.", mg)}, effects, nil)
	}
	if t >= mt {
		return atGate(Decision{Outcome: Halt, Rule: RuleTaskCap,
			Message: fmt.Sprintf("Task %d failed after %d attempts. Halting — manual intervention required.", i+1, mt)}, effects, nil)
	}
	if i >= n {
		effects = append(effects, RemoveState{n})
		return atGate(Decision{Outcome: Allow, Rule: RuleAllDone}, effects, &checkpoint.Loop{TaskIndex: int(n), TotalTasks: int(n)})
	}

	if x.OutputErr != nil {
		effects = append(effects, Say{fmt.Sprintf("%v; reading the last output as empty", x.OutputErr)})
	}
	out := x.Output
	r := reasons{f: f, p: p, mode: mode, mt: mt, issue: f.linearIssue, agentsFile: x.AgentsFile}
	if r.issue == "" {
		r.issue = "unknown issue"
	}
	if strings.Contains(out, "REPLAN") && p.Replan.Enabled {
		if rc >= p.Replan.MaxReplansPerSession {
			return atGate(Decision{Outcome: Halt, Rule: RuleReplanCap,
				Message: fmt.Sprintf("Max replans (%d) reached after %d replans. Halting — review .ccc-progress.md and adjust tasks manually.", p.Replan.MaxReplansPerSession, rc)}, effects, nil)
		}
		effects = append(effects, WriteState{map[string]any{"replanCount": rc + 1, "phase": "replan", "globalIteration": g + 1}})
		return atGate(block(RuleReplan, r.replan()), effects, nil)
	}
	if !strings.Contains(out, "TASK_COMPLETE") {
		effects = append(effects, WriteState{map[string]any{"taskIteration": t + 1, "globalIteration": g + 1}})
		return block(RuleRetry, r.retry()), effects
	}
	effects = append(effects, WriteState{map[string]any{"taskIndex": i + 1, "taskIteration": 1, "globalIteration": g + 1}})
	moved := &checkpoint.Loop{TaskIndex: int(i + 1), TotalTasks: int(n)}
	if i+1 >= n {
		effects = append(effects, RemoveState{n})
		return atGate(Decision{Outcome: Allow, Rule: RuleLastTask}, effects, moved)
	}
	return atGate(block(RuleNext, r.next()), effects, moved)
}

// atGate marks a gate boundary: after the state's effects, the checkpoint
// runs, told the loop's new position when the stop moved or ended it
// (at the end the state file that holds it is already gone).
func atGate(d Decision, effects []Effect, loop *checkpoint.Loop) (Decision, []Effect) {
	d.Gate = true
	return d, append(effects, GateCheckpoint{loop})
}

// block builds a block: CCC's reason, nothing else. Claude Code's hook
// output has no env key (it logs one as unrecognized and ignores it), so
// there is no effort level to send with it.
func block(rule Rule, reason string) Decision {
	return Decision{Outcome: Block, Rule: rule, Reason: reason}
}

// reasons builds the block reasons, sentence by sentence, as CCC words them.
type reasons struct {
	f     fields
	p     config.HookPrefs
	mode  string
	mt    int64
	issue string
	// agentsFile: .ccc-agents.md exists (E3).
	agentsFile bool
}

func join(sentences ...[]string) string {
	var all []string
	for _, s := range sentences {
		all = append(all, s...)
	}
	return strings.Join(all, " ")
}

func (r reasons) head() []string {
	return []string{
		fmt.Sprintf("Continue CCC execution for %s. Mode: %s.", r.issue, r.mode),
		"Read .ccc-progress.md for completed task context.",
	}
}

// The reasons number tasks from 1, as .ccc-progress.md does; CCC's count
// from 0 (taskIndex itself).

func (r reasons) retry() string {
	k, t := r.f.taskIndex+1, r.f.taskIteration
	return join(r.head(), []string{
		fmt.Sprintf("Task %d did not signal TASK_COMPLETE. Retry attempt %d of %d.", k, t+1, r.mt),
		fmt.Sprintf("Execute task %d from the decomposed task list.", k),
	}, r.modeSentences(), r.enrichments(), []string{"Signal TASK_COMPLETE when done."})
}

func (r reasons) next() string {
	s := []string{fmt.Sprintf("Execute task %d of %d from the decomposed task list.", r.f.taskIndex+2, r.f.totalTasks)}
	if r.f.specPath != "" {
		s = append(s, fmt.Sprintf("Spec: %s.", r.f.specPath))
	}
	return join(r.head(), s, r.modeSentences(), r.enrichments(), []string{"Signal TASK_COMPLETE when done."})
}

func (r reasons) replan() string {
	read := "Read the spec and .ccc-progress.md."
	if r.f.specPath != "" {
		read = fmt.Sprintf("Read the spec at %s and .ccc-progress.md.", r.f.specPath)
	}
	return join([]string{
		fmt.Sprintf("REPLAN triggered for %s (replan %d of %d).", r.issue, r.f.replanCount+1, r.p.Replan.MaxReplansPerSession),
		read,
		"Compare completed work against ALL acceptance criteria.",
		"Regenerate remaining tasks based on what actually exists in the codebase.",
		"Update .ccc-state.json: set phase back to execution, update totalTasks and taskIndex.",
		"Then continue executing from the first new task. Signal TASK_COMPLETE when done.",
	})
}

func (r reasons) modeSentences() []string {
	switch r.mode {
	case "tdd":
		return []string{"Follow red-green-refactor cycle for each acceptance criterion."}
	case "checkpoint":
		return []string{"Pause at any checkpoint gates for human review before proceeding."}
	}
	return nil
}

// enrichments are ENR (6.4), E1 to E8, each when its preference is on.
func (r reasons) enrichments() []string {
	p := r.p
	var s []string
	if p.Prompts.SubagentDiscipline {
		s = append(s, "Use parallel subagents for codebase reads; single subagent for build/test.")
	}
	if p.Prompts.SearchBeforeBuild {
		s = append(s, "Before implementing, search the codebase for existing solutions. Don't assume functionality is missing.")
	}
	if p.Prompts.AgentsFile {
		if r.agentsFile {
			s = append(s, "Read .ccc-agents.md for project-specific build commands and codebase patterns.")
		}
	}
	if p.Planning.AlwaysRecommend {
		s = append(s, "When presenting options, always highlight your recommended choice.")
	}
	switch p.Planning.PrioritizationFramework {
	case "rice":
		s = append(s, "Use RICE (Reach, Impact, Confidence, Effort) as a reasoning lens when prioritizing tasks.")
	case "moscow":
		s = append(s, "Use MoSCoW (Must, Should, Could, Won't) as a reasoning lens when prioritizing tasks.")
	case "eisenhower":
		s = append(s, "Use the Eisenhower Matrix (Urgent/Important) as a reasoning lens when prioritizing tasks.")
	}
	if p.Eval.AnalyzeBeforeExecute {
		s = append(s, "For eval tools, run structural analysis first before expensive execution stages.")
	}
	switch p.Eval.CostProfile {
	case "pay-per-use":
		s = append(s, "Cost profile: pay-per-use. Default to structural-only evaluation; require explicit opt-in for execution.")
	case "budget":
		s = append(s, fmt.Sprintf("Cost profile: budget. Checkpoint if estimated eval cost exceeds $%s.", p.Eval.MaxBudgetUSD))
	}
	style := p.Style.Explanatory
	if p.Style.ExplanatoryByRole.Scan != "" {
		style = p.Style.ExplanatoryByRole.Scan
	}
	if style != "balanced" {
		s = append(s, fmt.Sprintf("Explanation depth for scan/execution output: %s.", style))
	}
	return s
}
