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
		p, perr := env.Prefs(root)
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
		p, err := s.env.Prefs(s.root)
		s.prefs, s.prefsErr = &p, err
	}
	return *s.prefs
}

// decide gathers the facts the decision order reads, decides (Decide) and
// carries out its effects (run).
func (s *stopper) decide(ctx context.Context) Decision {
	d, effects := Decide(s.facts())
	return s.run(ctx, d, effects)
}

// facts reads what Decide needs and no more: the preferences for a state
// this session may act on at a gate or in the loop, the progress file's
// task count, the last output and .ccc-agents.md only in the loop.
func (s *stopper) facts() Facts {
	x := Facts{Session: s.in.SessionID, State: s.f}
	if needsPrefs(s.f, s.in.SessionID) {
		x.Prefs = s.pref()
	}
	if !inLoop(s.f, s.in.SessionID) {
		return x
	}
	x.Tasks, x.TasksErr = s.taskCount()
	x.Output, x.OutputErr = s.env.lastOutput(s.in)
	if x.Prefs.Prompts.AgentsFile {
		_, err := os.Stat(filepath.Join(s.root, ".ccc-agents.md"))
		x.AgentsFile = err == nil
	}
	return x
}

// run carries out a decision's effects in order. A write or removal that
// fails allows the stop (RuleWriteFailed) and drops the rest.
func (s *stopper) run(ctx context.Context, d Decision, effects []Effect) Decision {
	for _, e := range effects {
		switch e := e.(type) {
		case WriteState:
			if _, err := s.write(ctx, e.Set); err != nil {
				return s.writeFailed(err)
			}
		case RemoveState:
			if err := s.remove(ctx, e.Total); err != nil {
				return s.writeFailed(err)
			}
		case GateCheckpoint:
			s.checkpoint(ctx, e.Loop)
		case Say:
			s.env.logf("stop", "%s", e.Line)
		}
	}
	return d
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

// taskCount is the progress file's task count: 0 when there is no file, 0
// and the error when it cannot be read or parsed (Decide says it only for
// a state without totalTasks, where the count is all there is).
func (s *stopper) taskCount() (int64, error) {
	data, err := projectfs.ReadProjectFile(s.root, filepath.Join(s.root, ProgressFile), progress.MaxSize)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	doc, err := progress.Parse(data)
	if err != nil {
		return 0, err
	}
	return int64(doc.TaskM()), nil
}

func (s *stopper) writeFailed(err error) Decision {
	s.env.logf("stop", "%s: %v; allowing the stop", state.FileName, err)
	return Decision{Outcome: Allow, Rule: RuleWriteFailed}
}

// checkpoint runs the checkpoint at a gate boundary, after the state
// mutation and before the output. The state file is CCC's loop state here:
// the checkpoint may add the tracker's bookkeeping to it, nothing else
// (§4.2).
func (s *stopper) checkpoint(ctx context.Context, loop *checkpoint.Loop) {
	if s.env.Checkpoint == nil {
		return
	}
	c := CheckpointRequest{Root: s.root, Deadline: time.Duration(s.pref().Hooks.CheckpointTimeout), Issue: s.f.linearIssue, KeepState: true,
		SessionID: s.in.SessionID, Loop: loop}
	runCheckpointAfter(ctx, s.env, "stop", c, s.takePrefsErr())
}

// ToolStop is the tool hooks' check for a stop pressed in Linear while the
// agent works (env.StopCheck, throttled by the tracker): Claude Code's
// "continue": false ends the agent's turn, with the reason shown to the
// user. Nothing to say: no output.
func ToolStop(ctx context.Context, env Env, stdin []byte) []byte {
	if env.StopCheck == nil {
		return nil
	}
	in, err := ParseInput(stdin)
	if err != nil {
		return nil // the capture said so
	}
	root, err := env.Root(ctx, in.Cwd)
	if err != nil {
		return nil
	}
	by := env.StopCheck(ctx, root)
	if by == "" {
		return nil
	}
	return writeJSON(struct {
		Continue   bool   `json:"continue"`
		StopReason string `json:"stopReason"`
	}{false, "ccc: stopped from Linear by " + by + "; the agent stops here."})
}
