// Package hook implements ccc's Claude Code hooks: it reads the JSON object
// a hook gets on stdin, decides, and returns what the hook prints on stdout.
//
// `ccc hook stop` is a drop-in replacement for CCC's bash Stop handler: it
// reads the same .ccc-state.json and .ccc-preferences.yaml, applies the same
// decision order and sends the same reason texts, with the deliberate
// differences of issue 4 (halts allow the stop, session ownership, a parsed
// transcript, always exit 0, checkpoints at gate boundaries). The checkpoint pipeline is injected as a Checkpointer, so the
// decisions here need nothing but the state, the preferences and the
// transcript, and no subprocess.
package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/all"
	"github.com/ccc-checkpoint/ccc/config"
)

// ErrNotObject is stdin that is not one JSON object.
var ErrNotObject = errors.New("stdin is not a JSON object")

// ParseInput reads a hook's stdin. Anything but one JSON object (empty,
// invalid, an array) is an error.
func ParseInput(data []byte) (Input, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return Input{}, fmt.Errorf("%w: stdin is empty", ErrNotObject)
	}
	if data[0] != '{' {
		return Input{}, ErrNotObject
	}
	var m agent.Payload
	if err := json.Unmarshal(data, &m); err != nil {
		return Input{}, fmt.Errorf("%w: %v", ErrNotObject, err)
	}
	return readInput(m, all.DetectPayload(m)), nil
}

// readInput reads the common fields of a payload, then lets the agent read
// its own (agent.InputReader).
func readInput(m agent.Payload, a agent.Agent) Input {
	in := Input{
		SessionID:            jsonString(m["session_id"]),
		TranscriptPath:       jsonString(m["transcript_path"]),
		Cwd:                  jsonString(m["cwd"]),
		LastAssistantMessage: jsonString(m["last_assistant_message"]),
		Source:               jsonString(m["source"]),
		Trigger:              jsonString(m["trigger"]),
		Agent:                a,
		Event:                jsonString(m["hook_event_name"]),
		ToolName:             jsonString(m["tool_name"]),
		TaskID:               jsonString(m["task_id"]),
		TaskSubject:          jsonString(m["task_subject"]),
		AgentID:              jsonString(m["agent_id"]),
		AgentType:            jsonString(m["agent_type"]),
		AgentTranscriptPath:  jsonString(m["agent_transcript_path"]),
		Error:                jsonString(m["error"]),
		ErrorDetails:         jsonString(m["error_details"]),
	}
	if t := m["tool_input"]; len(t) > 0 && t[0] == '{' {
		in.ToolInput = t
	}
	in.ToolFailed = in.Event == "PostToolUseFailure" || agent.ToolResponseFailed(m["tool_response"])
	if r, ok := a.(agent.InputReader); ok {
		r.ReadInput(m, &in)
	}
	return in
}

// parse reads a hook's stdin; --agent, when given, overrides detection
// and reads the agent's own fields.
func (e Env) parse(data []byte) (Input, error) {
	in, err := ParseInput(data)
	if err == nil && e.Agent != nil && e.Agent != in.Agent {
		var m agent.Payload
		_ = json.Unmarshal(bytes.TrimSpace(data), &m) // parsed once already
		in = readInput(m, e.Agent)
	}
	return in, err
}

// jsonString is raw's value when it is a JSON string, else "".
func jsonString(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return ""
	}
	return s
}

// CheckpointRequest asks for one run of the automated checkpoint profile.
type CheckpointRequest struct {
	Root string
	// Deadline bounds the whole run; the hook stops waiting after it.
	Deadline time.Duration
	// Issue is the tracked issue as the hook read it from the state, for
	// runs that happen after the state was deleted (the last task).
	Issue string
	// KeepState asks the checkpoint to leave .ccc-state.json as the hook
	// left it, apart from the tracker's bookkeeping, and never to re-create
	// it.
	KeepState bool
	// SessionID is Claude Code's session, for the agent's record.
	SessionID string
	// Loop is where this stop moved CCC's task loop: set when it advanced
	// the task index or ended the loop (the state file is then deleted, so
	// only this says that every task is done). The checkpoint shows the
	// progress document at this position, whatever the file on disk says.
	Loop *checkpoint.Loop
}

// Checkpointer runs the automated checkpoint profile (persist progress,
// update the tracker) in a project. Its error is reported, never acted on.
type Checkpointer func(ctx context.Context, c CheckpointRequest) error

// Env is what the hooks need from outside.
type Env struct {
	// Root finds the project root from the session's working directory
	// (stdin's cwd, "" when Claude Code sent none); it is called only once
	// stdin is accepted, because it may run git.
	Root func(ctx context.Context, cwd string) (string, error)
	Now  func() time.Time
	// Settings are the process's (the preferences read once per root);
	// the zero value reads them at each use.
	Settings config.Settings
	// Checkpoint runs the automated profile; nil runs none.
	Checkpoint Checkpointer
	// Stderr receives diagnostics, one line each.
	Stderr io.Writer
	// Debug also reports which rule decided.
	Debug bool
	// Agent is --agent: the agent whose hook this is; "" detects it from
	// the input.
	Agent agent.Agent
	// Claude is what Claude Code told the hook in its environment (where
	// its task files are); nil: nothing, and the task list comes from the
	// transcript alone.
	Claude *config.ClaudeEnv
	// Replies reads what people wrote in the project's Linear agent
	// session since the hooks last looked (one query, never waiting):
	// replies for the agent, and who pressed stop ("" for no one). nil:
	// no tracker speaks back.
	Replies func(ctx context.Context, root string) (replies, stoppedBy string)
	// StopCheck says who pressed stop in the tracker since the hooks last
	// looked ("" for no one), for the tool hooks: cheap, rate-limited by
	// the tracker's side, nothing marked seen. nil: nothing.
	StopCheck func(ctx context.Context, root string) (stoppedBy string)
	// KeepAlive tells the tracker the agent still works (a stop-hook
	// retry): cheap, rate-limited by the tracker's side. nil: nothing.
	KeepAlive func(ctx context.Context, root, what string)
	// LockWait bounds a hook's waits for the project lock, all together;
	// 0: LockBudget.
	LockWait time.Duration

	// locks is the lock budget shared by one hook's waits (withLockWaits).
	locks *lockWaits
	// transcript is the one read of the agent's transcript a hook makes
	// (withTranscript); nil: each reader reads it.
	transcript *transcriptRead
}

func (e Env) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

func (e Env) logf(event, format string, args ...any) {
	if e.Stderr == nil {
		return
	}
	msg := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	msg = strings.ReplaceAll(msg, "\n", " ")
	fmt.Fprintf(e.Stderr, "ccc hook %s: %s\n", event, msg)
}

// debugf is logf only with Debug: what a hook chose not to do.
func (e Env) debugf(event, format string, args ...any) {
	if e.Debug {
		e.logf(event, format, args...)
	}
}

// abandonAfter is how long past its deadline a checkpoint may take before
// the hook answers without it: the checkpoint's own steps honour the
// deadline, this only covers one that does not.
const abandonAfter = 250 * time.Millisecond

// runCheckpoint runs the injected checkpoint within its deadline. A panic,
// an error or an overrun is reported and changes nothing else.
func runCheckpoint(ctx context.Context, env Env, event string, c CheckpointRequest) {
	runCheckpointAfter(ctx, env, event, c, nil)
}

// runCheckpointAfter is runCheckpoint for a hook that already has a problem
// to say (broken preferences): said and the checkpoint's failure share the
// hook's one stderr line.
func runCheckpointAfter(ctx context.Context, env Env, event string, c CheckpointRequest, said error) {
	if env.Checkpoint == nil {
		if said != nil {
			env.logf(event, "%v", said)
		}
		return
	}
	if c.Deadline <= 0 {
		c.Deadline = config.DefaultHookTimeout
	}
	// The checkpoint would wait for a busy lock until its deadline (10s):
	// it is skipped once the hook's lock budget is spent. The next hook's
	// checkpoint writes the progress this one would have.
	env = env.withLockWaits()
	if env.lockBusy(ctx, c.Root) {
		busy := fmt.Sprintf("another ccc process held the project lock for %s; checkpoint skipped", env.locks.budget)
		switch {
		case env.locks.said && said != nil:
			env.logf(event, "%v", said)
		case env.locks.said:
		case said != nil:
			env.logf(event, "%v; %s", said, busy)
		default:
			env.logf(event, "%s", busy)
		}
		env.locks.said = true
		return
	}
	ctx, cancel := context.WithTimeout(ctx, c.Deadline)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("panic: %v", p)
			}
		}()
		done <- env.Checkpoint(ctx, c)
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		select {
		case err = <-done:
		case <-time.After(abandonAfter):
			err = fmt.Errorf("still running after %s; not waiting for it", c.Deadline)
		}
	}
	switch {
	case said != nil && err != nil:
		env.logf(event, "%v; checkpoint: %v", said, err)
	case said != nil:
		env.logf(event, "%v", said)
	case err != nil:
		env.logf(event, "checkpoint: %v", err)
	}
}

func writeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return buf.Bytes()
}
