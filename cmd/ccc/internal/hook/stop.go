package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
)

// Outcome is what the Stop hook tells Claude Code.
type Outcome string

const (
	// Allow lets the agent stop: empty stdout.
	Allow Outcome = "allow"
	// Block keeps the agent working, with the reason as its next instruction.
	Block Outcome = "block"
	// Halt lets the agent stop and shows the user why [a].
	Halt Outcome = "halt"
)

// Rule names the step of the decision order that decided, after issue 4's
// numbering.
type Rule string

const (
	RuleRejected    Rule = "3.1 stdin or state rejected"
	RuleOwner       Rule = "3.2 another session owns the state"
	RuleGate        Rule = "3.3 awaiting a gate"
	RulePhase       Rule = "3.4 not executing"
	RuleMode        Rule = "3.5 pair or swarm mode"
	RuleGlobalCap   Rule = "3.6 max global iterations"
	RuleTaskCap     Rule = "3.7 max task iterations"
	RuleAllDone     Rule = "3.8 all tasks done"
	RuleReplanCap   Rule = "3.9 max replans"
	RuleReplan      Rule = "3.9 replan"
	RuleRetry       Rule = "3.10 retry"
	RuleNext        Rule = "3.11 next task"
	RuleLastTask    Rule = "3.11 last task done"
	RuleWriteFailed Rule = "4.3 state write failed"
	RuleLinearStop  Rule = "linear stop signal"
	RuleLinearReply Rule = "linear reply"
)

// Decision is what `ccc hook stop` decided and why.
type Decision struct {
	Outcome Outcome
	Rule    Rule
	// Reason is a block's next instruction for the agent.
	Reason string
	// Message is a halt's message for the user.
	Message string
	// Gate is set at a gate boundary, where the checkpoint runs [f].
	Gate bool
}

// Stdout is what the hook prints: nothing, or one JSON object and a newline.
func (d Decision) Stdout() []byte {
	switch d.Outcome {
	case Block:
		return writeJSON(struct {
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
		}{"block", d.Reason})
	case Halt:
		return writeJSON(struct {
			SystemMessage string `json:"systemMessage"`
		}{d.Message})
	}
	return nil
}

// Stop decides a Stop hook: CCC's execution loop, rule by rule. It never
// fails: whatever goes wrong is reported on env.Stderr and allows the stop.
//
// First it captures the agent's own task list into the progress file
// (a successful stop also resolves an "API error: …" blocker); when it
// found a list and the decision ran no checkpoint of its own, the stop is a
// boundary and it runs one.
func Stop(ctx context.Context, env Env, stdin []byte) Decision {
	env = env.onceRoot().withLockWaits().withTranscript()
	var c captured
	in, err := ParseInput(stdin)
	if err == nil {
		c = captureList(ctx, env, "stop", in, captureOpts{transcript: true, stopped: true})
	}
	d := stop(ctx, env, stdin)
	if env.Debug {
		env.logf("stop", "%s: %s", d.Outcome, d.Rule)
	}
	if !d.Gate && (c.list != nil || c.changed) {
		boundary(ctx, env, "stop", c, in)
	}
	return d
}

func stop(ctx context.Context, env Env, stdin []byte) Decision {
	in, err := env.parse(stdin)
	if err != nil {
		env.logf("stop", "%v; allowing the stop", err)
		return Decision{Outcome: Allow, Rule: RuleRejected}
	}
	root, err := env.Root(ctx, in.Cwd)
	if err != nil {
		env.logf("stop", "%v; allowing the stop", err)
		return Decision{Outcome: Allow, Rule: RuleRejected}
	}
	captured := captureAgentList(ctx, env, "stop", in, root)
	if captured && !cccLoop(root) {
		// No CCC loop to checkpoint at its gates, but the agent keeps a
		// list: a stop is a natural boundary to tell the tracker (which
		// hears only when the status changed).
		p, perr := LoadPrefs(root)
		runCheckpointAfter(ctx, env, "stop", CheckpointRequest{Root: root, Deadline: time.Duration(p.Hooks.CheckpointTimeout),
			SessionID: in.SessionID}, perr)
	}
	path := state.Path(root)
	orig, err := projectfs.ReadProjectFile(root, path, state.MaxSize)
	if errors.Is(err, os.ErrNotExist) {
		if captured {
			return Decision{Outcome: Allow, Rule: RuleRejected}
		}
		// Issue 4 wants one line for a missing project from every hook;
		// on exit 0 Claude Code shows stderr only in its debug output.
		env.logf("stop", "no %s in %s: no CCC task loop here; allowing the stop", state.FileName, root)
		return Decision{Outcome: Allow, Rule: RuleRejected}
	}
	if err != nil {
		env.logf("stop", "%v; allowing the stop", err)
		return Decision{Outcome: Allow, Rule: RuleRejected}
	}
	st, f, err := parseState(orig)
	var corrupt *state.CorruptError
	if errors.As(err, &corrupt) {
		corrupt.Path = path // path:line:col, as every other report of it
		env.logf("stop", "%s: not valid JSON: %s; allowing the stop and leaving the file as it is", corrupt.Where(), corrupt.Msg)
		return Decision{Outcome: Allow, Rule: RuleRejected}
	}
	if err != nil {
		env.logf("stop", "%s: %v; allowing the stop and leaving the file as it is", path, err)
		return Decision{Outcome: Allow, Rule: RuleRejected}
	}
	// A person's reply or stop in Linear's agent session: read once,
	// before deciding.
	var replies string
	if env.Replies != nil {
		var by string
		if replies, by = env.Replies(ctx, root); by != "" {
			return Decision{Outcome: Halt, Rule: RuleLinearStop, Message: "ccc: stopped from Linear by " + by + "; the loop halts here."}
		}
	}
	s := &stopper{env: env, in: in, root: root, orig: orig, st: st, f: f}
	d, done := s.applyPending(ctx)
	if !done {
		d = s.decide(ctx)
	}
	if d.Rule == RuleRetry && env.KeepAlive != nil {
		env.KeepAlive(ctx, root, "Retrying the current task.")
	}
	switch {
	case replies == "":
	case d.Outcome == Block:
		d.Reason = strings.TrimRight(d.Reason, "\n") + "\n\n" + replies
	case d.Outcome == Allow:
		// Read once, the replies must reach the agent: one more turn.
		d = Decision{Outcome: Block, Rule: RuleLinearReply, Reason: replies}
	}
	if err := s.takePrefsErr(); err != nil { // not said with a checkpoint's failure
		env.logf("stop", "%v", err)
	}
	return d
}

type stopper struct {
	env  Env
	in   Input
	root string
	// orig is the state file as it is on disk, as far as this hook knows.
	orig  []byte
	st    *state.State
	f     fields
	prefs *config.HookPrefs
	// prefsErr is the preferences' problem, not said yet.
	prefsErr error
	// pending is the change queued in .ccc/pending (by an earlier stop, or
	// by this one when the lock stayed busy) that the state on disk lacks.
	pending *pendingChange
}

// takePrefsErr returns the preferences' problem once, for the hook's one
// stderr line.
func (s *stopper) takePrefsErr() error {
	err := s.prefsErr
	s.prefsErr = nil
	return err
}

// pref loads the preferences once, when a rule first needs them; a problem
// with them is said once, with the checkpoint's failure if there is one.
func (s *stopper) pref() config.HookPrefs {
	if s.prefs == nil {
		p, err := LoadPrefs(s.root)
		s.prefs, s.prefsErr = &p, err
	}
	return *s.prefs
}

func (s *stopper) decide(ctx context.Context) Decision {
	f := s.f
	if f.owner != "" && f.owner != s.in.SessionID {
		return Decision{Outcome: Allow, Rule: RuleOwner}
	}
	if f.awaitingGate {
		return s.gate(ctx, Decision{Outcome: Allow, Rule: RuleGate})
	}
	if f.phase != "execution" {
		return Decision{Outcome: Allow, Rule: RulePhase}
	}
	p := s.pref()
	mode := f.executionMode
	if p.Execution.DefaultMode != "" {
		mode = p.Execution.DefaultMode
	}
	if mode == "pair" || mode == "swarm" {
		return Decision{Outcome: Allow, Rule: RuleMode}
	}
	mt, mg := f.maxTaskIterations, f.maxGlobalIterations
	if p.Execution.MaxTaskIterations != nil {
		mt = *p.Execution.MaxTaskIterations
	}
	if p.Execution.MaxGlobalIterations != nil {
		mg = *p.Execution.MaxGlobalIterations
	}
	if !f.hasTotal {
		n, ok := s.progressTasks()
		if !ok {
			return Decision{Outcome: Allow, Rule: RuleRejected}
		}
		f.totalTasks, s.f.totalTasks = n, n
	} else if m := s.documentTasks(); m > f.totalTasks {
		// One count everywhere: tasks listed past the plan (the agent's
		// own list, an --add-task the state missed) are the loop's too.
		if _, err := s.write(ctx, map[string]any{"totalTasks": m}); err != nil {
			return s.writeFailed(err)
		}
		f.totalTasks, s.f.totalTasks = m, m
	}
	i, n, t, g, rc := f.taskIndex, f.totalTasks, f.taskIteration, f.globalIteration, f.replanCount

	if g >= mg {
		return s.gate(ctx, Decision{Outcome: Halt, Rule: RuleGlobalCap,
			Message: fmt.Sprintf("Max global iterations (%d) reached. Halting to prevent runaway execution.", mg)})
	}
	if t >= mt {
		return s.gate(ctx, Decision{Outcome: Halt, Rule: RuleTaskCap,
			Message: fmt.Sprintf("Task %d failed after %d attempts. Halting — manual intervention required.", i+1, mt)})
	}
	if i >= n {
		if err := s.remove(ctx, n); err != nil {
			return s.writeFailed(err)
		}
		return s.gateAt(ctx, Decision{Outcome: Allow, Rule: RuleAllDone}, &checkpoint.Loop{TaskIndex: int(n), TotalTasks: int(n)})
	}

	out, err := s.env.lastOutput(s.in)
	if err != nil {
		s.env.logf("stop", "%v; reading the last output as empty", err)
	}
	r := reasons{f: f, p: p, mode: mode, mt: mt, issue: f.linearIssue, root: s.root}
	if r.issue == "" {
		r.issue = "unknown issue"
	}
	if strings.Contains(out, "REPLAN") && p.Replan.Enabled {
		if rc >= p.Replan.MaxReplansPerSession {
			return s.gate(ctx, Decision{Outcome: Halt, Rule: RuleReplanCap,
				Message: fmt.Sprintf("Max replans (%d) reached after %d replans. Halting — review .ccc-progress.md and adjust tasks manually.", p.Replan.MaxReplansPerSession, rc)})
		}
		if _, err := s.write(ctx, map[string]any{"replanCount": rc + 1, "phase": "replan", "globalIteration": g + 1}); err != nil {
			return s.writeFailed(err)
		}
		return s.gate(ctx, s.block(RuleReplan, r.replan()))
	}
	if !strings.Contains(out, "TASK_COMPLETE") {
		if _, err := s.write(ctx, map[string]any{"taskIteration": t + 1, "globalIteration": g + 1}); err != nil {
			return s.writeFailed(err)
		}
		return s.block(RuleRetry, r.retry())
	}
	if _, err := s.write(ctx, map[string]any{"taskIndex": i + 1, "taskIteration": 1, "globalIteration": g + 1}); err != nil {
		return s.writeFailed(err)
	}
	moved := &checkpoint.Loop{TaskIndex: int(i + 1), TotalTasks: int(n)}
	if i+1 >= n {
		if err := s.remove(ctx, n); err != nil {
			return s.writeFailed(err)
		}
		return s.gateAt(ctx, Decision{Outcome: Allow, Rule: RuleLastTask}, moved)
	}
	return s.gateAt(ctx, s.block(RuleNext, r.next()), moved)
}

// write sets keys (in this order for keys the file lacks) with
// lastUpdatedAt and, for an unowned state, the session's ownership, and
// replaces the file. It returns what it wrote.
func (s *stopper) write(ctx context.Context, set map[string]any) ([]byte, error) {
	return s.save(ctx, set)
}

// save is write, and also writes a pending change laid over the state. When
// another process holds the project lock past the hook's lock budget, the
// change (with the pending one it carries) is queued in .ccc/pending
// instead, for the next stop hook to apply: the decision goes ahead as if
// written, so a TASK_COMPLETE is never lost to a busy lock.
func (s *stopper) save(ctx context.Context, set map[string]any) ([]byte, error) {
	changes := map[string]any{}
	if s.pending != nil {
		for k, v := range s.pending.Set {
			changes[k] = v
		}
	}
	order := []string{"replanCount", "phase", "taskIndex", "totalTasks", "taskIteration", "globalIteration"}
	for _, k := range order {
		if v, ok := set[k]; ok {
			if err := s.st.Set(k, v); err != nil {
				return nil, err
			}
			changes[k] = v
		}
	}
	now := s.env.now().UTC().Format("2006-01-02T15:04:05Z")
	if err := s.st.Set("lastUpdatedAt", now); err != nil {
		return nil, err
	}
	changes["lastUpdatedAt"] = now
	if s.f.owner == "" && s.in.SessionID != "" {
		if err := s.st.Set("ownerSessionId", s.in.SessionID); err != nil {
			return nil, err
		}
		changes["ownerSessionId"] = s.in.SessionID
	}
	data, err := s.st.Marshal()
	if err != nil {
		return nil, err
	}
	lctx, cancel := s.lockCtx(ctx)
	defer cancel()
	err = replaceState(lctx, s.root, s.env.now(), s.orig, data)
	if errors.Is(err, projectfs.ErrBusy) {
		p := pendingChange{Set: map[string]json.RawMessage{}}
		for k, v := range changes {
			raw, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			p.Set[k] = raw
		}
		return data, s.queue(p, "state change")
	}
	if err != nil {
		return nil, err
	}
	s.orig = data
	s.clearPending()
	return data, nil
}

// queue keeps p, decided on the state as it is on disk, in the loop
// owner's pending file, and says so in one line.
func (s *stopper) queue(p pendingChange, what string) error {
	p.Session = s.f.owner
	if p.Session == "" {
		p.Session = s.in.SessionID
	}
	if s.pending != nil {
		p.From = s.pending.From
	} else {
		p.From = s.diskPosition()
	}
	p.At = s.env.now().UTC()
	path, err := savePending(s.root, p)
	if err != nil {
		return fmt.Errorf("another ccc process holds the project lock, and the %s could not be queued: %w", what, err)
	}
	s.pending = &p
	if rel, err := filepath.Rel(s.root, path); err == nil {
		path = rel
	}
	s.env = s.env.withLockWaits()
	s.env.logf("stop", "another ccc process held the project lock for %s; the %s is queued in %s for the next stop hook", s.env.locks.budget, what, path)
	s.env.locks.said = true // a checkpoint skipped for the same lock says nothing more
	return nil
}

// diskPosition is the loop position of the state file as it is on disk.
func (s *stopper) diskPosition() position {
	_, f, _ := parseState(s.orig)
	return positionOf(f)
}

// clearPending removes the pending change once the state on disk has it.
func (s *stopper) clearPending() {
	if s.pending == nil {
		return
	}
	owner := s.pending.Session
	if err := os.Remove(pendingPath(s.root, owner)); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.env.logf("stop", "pending state change applied, but its file stays: %v", err)
	}
	s.pending = nil
}

// remove ends the loop: it deletes the state file (as this hook last saw
// or wrote it), after a backup, and says so in one line naming the backup,
// because the file the user or CCC wrote is gone. With the lock busy past
// the budget the removal is queued like any other change.
func (s *stopper) remove(ctx context.Context, total int64) error {
	lctx, cancel := s.lockCtx(ctx)
	defer cancel()
	backup, err := removeState(lctx, s.root, s.env.now(), s.orig)
	if errors.Is(err, projectfs.ErrBusy) {
		return s.queue(pendingChange{Remove: true}, "end of the task loop")
	}
	if err == nil {
		s.clearPending()
	}
	if err != nil || backup == "" {
		return err
	}
	if rel, err := filepath.Rel(s.root, backup); err == nil {
		backup = rel
	}
	s.env.logf("stop", "task loop over (%d of %d tasks done): removed %s; its backup is %s", total, total, state.FileName, backup)
	return nil
}

// progressTasks is the number of tasks of the progress file, for a state
// without totalTasks: a state the user wrote by hand names the task it is
// on but not how many there are. No file, or one without tasks, is 0 (CCC's
// default: the loop ends). A file that cannot be read or parsed is reported
// and not ok: the state is then left alone rather than ended on a guess.
func (s *stopper) progressTasks() (int64, bool) {
	data, err := projectfs.ReadProjectFile(s.root, filepath.Join(s.root, ProgressFile), progress.MaxSize)
	if errors.Is(err, os.ErrNotExist) {
		return 0, true
	}
	if err == nil {
		var doc *progress.Document
		if doc, err = progress.Parse(data); err == nil {
			return int64(doc.TaskM()), true
		}
	}
	s.env.logf("stop", "%s has no totalTasks and %s cannot be read for the task count: %v; allowing the stop and leaving the file as it is",
		state.FileName, ProgressFile, err)
	return 0, false
}

// documentTasks is the progress file's task count, 0 when it cannot be
// read (progressTasks reports that, where the count is all there is).
func (s *stopper) documentTasks() int64 {
	data, err := projectfs.ReadProjectFile(s.root, filepath.Join(s.root, ProgressFile), progress.MaxSize)
	if err != nil {
		return 0
	}
	doc, err := progress.Parse(data)
	if err != nil {
		return 0
	}
	return int64(doc.TaskM())
}

func (s *stopper) writeFailed(err error) Decision {
	s.env.logf("stop", "%s: %v; allowing the stop", state.FileName, err)
	return Decision{Outcome: Allow, Rule: RuleWriteFailed}
}

// block builds a block: CCC's reason, nothing else. Claude Code's hook
// output has no env key (it logs one as unrecognized and ignores it), so
// there is no effort level to send with it.
func (s *stopper) block(rule Rule, reason string) Decision {
	return Decision{Outcome: Block, Rule: rule, Reason: reason}
}

// gate runs the checkpoint at a gate boundary, after the state mutation and
// before the output. The state file is CCC's loop state here: the checkpoint
// may add the tracker's bookkeeping to it, nothing else (§4.2).
func (s *stopper) gate(ctx context.Context, d Decision) Decision {
	return s.gateAt(ctx, d, nil)
}

// gateAt is gate for a stop that moved the loop to loop, or ended it: the
// checkpoint is told the new position, because at the end the state file
// that holds it is already gone.
func (s *stopper) gateAt(ctx context.Context, d Decision, loop *checkpoint.Loop) Decision {
	d.Gate = true
	if s.env.Checkpoint == nil {
		return d
	}
	c := CheckpointRequest{Root: s.root, Deadline: time.Duration(s.pref().Hooks.CheckpointTimeout), Issue: s.f.linearIssue, KeepState: true,
		SessionID: s.in.SessionID, Loop: loop}
	runCheckpointAfter(ctx, s.env, "stop", c, s.takePrefsErr())
	return d
}

// reasons builds the block reasons, sentence by sentence, as CCC words them.
type reasons struct {
	f     fields
	p     config.HookPrefs
	mode  string
	mt    int64
	issue string
	root  string
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
		if _, err := os.Stat(filepath.Join(r.root, ".ccc-agents.md")); err == nil {
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
