package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// MaxRollout bounds the rollout text one capture reads: the decompressed
// bytes of a .jsonl.zst (a 276 KB file can expand to gigabytes of plan
// calls, which kept a hook busy for minutes), the tail of a plain log.
const MaxRollout = capture.MaxTail

// Bounds of the zstd decoder's own memory: Codex writes frames with small
// windows (zstd's default levels use at most 8 MB).
const (
	maxZstdWindow = 32 << 20
	maxZstdMemory = 64 << 20
)

// ErrTooBig is a compressed log that expands past MaxRollout: its plan, at
// the end, cannot be reached within the hook's budget.
var ErrTooBig = errors.New("more than 64 MB of decompressed text")

// ReadRollout reads the plan of a Codex CLI session from its rollout log
// (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, which Codex later
// compresses to .jsonl.zst): the arguments of the last update_plan call,
// {"plan":[{"step":…,"status":"pending|in_progress|completed"}]}. A path
// whose plain file is gone is read from its .zst sibling. Only the last
// MaxRollout bytes of a plain log are read (the last call wins); a
// compressed log that expands past MaxRollout is ErrTooBig, as a stream
// cannot be read from its end. ErrNoList: the session never called
// update_plan.
func ReadRollout(path string) (capture.List, error) {
	f, name, err := openRollout(path)
	if err != nil {
		return capture.List{}, err
	}
	defer func() { _ = f.Close() }() // read only
	var r io.Reader = f
	skipFirst := false
	if strings.HasSuffix(name, ".zst") {
		dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(maxZstdWindow), zstd.WithDecoderMaxMemory(maxZstdMemory))
		if err != nil {
			return capture.List{}, fmt.Errorf("%s: %w", name, err)
		}
		defer dec.Close()
		r = &capped{r: dec, left: MaxRollout}
	} else if skipFirst, err = capture.SeekTail(f); err != nil {
		return capture.List{}, fmt.Errorf("%s: %w", name, err)
	}
	var p planReplay
	_, err = capture.EachLine(r, capture.MaxLine, func(line []byte) {
		if skipFirst {
			skipFirst = false
			return
		}
		p.line(line)
	})
	if err != nil {
		return capture.List{}, fmt.Errorf("%s: %w", name, err)
	}
	if !p.found {
		return capture.List{}, fmt.Errorf("%s: %w", name, capture.ErrNoList)
	}
	return capture.List{Agent: agentName, Source: name, Tasks: codexTasks(p.last)}, nil
}

// maxTurns bounds the user turns a replay remembers the plan before: a
// rollback past the oldest remembered one leaves no plan, not a wrong one.
const maxTurns = 1024

// planState is the plan at one point of the rollout.
type planState struct {
	plan  []codexStep
	found bool
}

// planReplay follows the plan through a rollout as Codex rebuilds the
// thread: the last update_plan call counts unless its output refused it,
// and thread_rolled_back {num_turns: N} drops the last N user turns with
// the plans they wrote.
type planReplay struct {
	last, prev    []codexStep
	found, prevOK bool
	lastCall      string      // the call whose output may still refuse it
	turns         []planState // the plan before each user turn, oldest first
}

func (p *planReplay) line(line []byte) {
	if p.lastCall != "" && bytes.Contains(line, []byte(`function_call_output`)) && bytes.Contains(line, []byte(p.lastCall)) {
		if failedOutput(line, p.lastCall) {
			p.last, p.found = p.prev, p.prevOK
		}
		p.lastCall = ""
		return
	}
	switch {
	case bytes.Contains(line, []byte(`update_plan`)):
		if plan, call, ok := codexPlan(line); ok {
			p.prev, p.prevOK = p.last, p.found
			p.last, p.found, p.lastCall = plan, true, call
		}
	case bytes.Contains(line, []byte(`"thread_rolled_back"`)):
		if n, ok := rolledBack(line); ok {
			p.rollback(n)
		}
	case bytes.Contains(line, []byte(`"user"`)) && userTurn(line):
		p.turns = append(p.turns, planState{plan: p.last, found: p.found})
		if len(p.turns) > maxTurns {
			p.turns[0] = planState{}
			p.turns = p.turns[1:]
		}
	}
}

// rollback drops the last n user turns: the plan is the one before the
// oldest of them. More turns than the replay saw leave no plan: every
// turn dropped, or (a log read from its tail, turns past maxTurns) a
// plan that cannot be known, which is none rather than a wrong one.
func (p *planReplay) rollback(n int) {
	if n <= 0 {
		return
	}
	p.lastCall = ""
	if n > len(p.turns) {
		clear(p.turns)
		p.turns = p.turns[:0]
		p.last, p.found, p.prev, p.prevOK = nil, false, nil, false
		return
	}
	s := p.turns[len(p.turns)-n]
	clear(p.turns[len(p.turns)-n:])
	p.turns = p.turns[:len(p.turns)-n]
	p.last, p.found = s.plan, s.found
	p.prev, p.prevOK = s.plan, s.found
}

// rolledBack reads an event_msg thread_rolled_back and its num_turns.
func rolledBack(line []byte) (int, bool) {
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			Type     string `json:"type"`
			NumTurns *int   `json:"num_turns"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "event_msg" ||
		rec.Payload.Type != "thread_rolled_back" || rec.Payload.NumTurns == nil {
		return 0, false
	}
	return *rec.Payload.NumTurns, true
}

// userTurn says a rollout line is a user message that starts a turn, as
// Codex counts them for a rollback: a response_item message of role user
// that is not one of the contextual messages Codex adds itself
// (<environment_context>, <user_instructions>, AGENTS.md instructions…).
func userTurn(line []byte) bool {
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "response_item" ||
		rec.Payload.Type != "message" || rec.Payload.Role != "user" {
		return false
	}
	for _, c := range rec.Payload.Content {
		t := strings.TrimSpace(c.Text)
		for _, tag := range contextual {
			if strings.HasPrefix(t, tag) {
				return false
			}
		}
	}
	return true
}

// contextual starts the user-role messages Codex writes itself.
var contextual = []string{"<environment_context>", "<user_instructions>", "<user_shell_command>",
	"<turn_aborted>", "# AGENTS.md instructions"}

// capped reads at most left bytes of r, then fails with ErrTooBig.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more tells a stream that ends exactly here from one
		// that goes on.
		if n, err := c.r.Read(p[:min(len(p), 1)]); n == 0 && err != nil {
			return 0, err
		}
		return 0, ErrTooBig
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// openRollout opens path, or path.zst when the plain log was compressed.
// The log is the agent's, outside the project: no confinement, but never
// a FIFO or a device.
func openRollout(path string) (*os.File, string, error) {
	f, err := projectfs.OpenProjectFile("", path)
	if errors.Is(err, os.ErrNotExist) && !strings.HasSuffix(path, ".zst") {
		if z, zerr := projectfs.OpenProjectFile("", path+".zst"); !errors.Is(zerr, os.ErrNotExist) {
			return z, path + ".zst", zerr
		}
	}
	return f, path, err
}

type codexStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// codexPlan reads one rollout line: a response_item whose payload is the
// function_call update_plan, with its arguments as a JSON string, and the
// call's id. Arguments Codex's own types reject (UpdateplanArgs: every step
// a step and one of three statuses) are a call it refused.
func codexPlan(line []byte) ([]codexStep, string, bool) {
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			Type      string `json:"type"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
			CallID    string `json:"call_id"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "response_item" ||
		rec.Payload.Type != "function_call" || rec.Payload.Name != "update_plan" {
		return nil, "", false
	}
	plan, ok := planArgs([]byte(rec.Payload.Arguments))
	return plan, rec.Payload.CallID, ok
}

// planArgs reads update_plan's arguments as Codex does; ok is false for
// arguments it rejects (the plan did not change).
func planArgs(args []byte) ([]codexStep, bool) {
	var a struct {
		Plan []struct {
			Step   *string `json:"step"`
			Status string  `json:"status"`
		} `json:"plan"`
	}
	if json.Unmarshal(args, &a) != nil || a.Plan == nil {
		return nil, false
	}
	plan := make([]codexStep, 0, len(a.Plan))
	for _, s := range a.Plan {
		switch s.Status {
		case "pending", "in_progress", "completed":
		default:
			return nil, false
		}
		if s.Step == nil {
			return nil, false
		}
		plan = append(plan, codexStep{Step: *s.Step, Status: s.Status})
	}
	return plan, true
}

// failedOutput reports whether a rollout line is the function_call_output
// of call saying the call failed: an output object with success false or
// a failed/error status, or Codex's own answer to arguments it could not
// read.
func failedOutput(line []byte, call string) bool {
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Status string          `json:"status"`
			Output json.RawMessage `json:"output"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "response_item" ||
		rec.Payload.Type != "function_call_output" || rec.Payload.CallID != call {
		return false
	}
	if rec.Payload.Status == "failed" || rec.Payload.Status == "error" {
		return true
	}
	out := rec.Payload.Output
	if len(out) > 0 && out[0] == '"' {
		var text string
		_ = json.Unmarshal(out, &text) // valid: the line parsed
		return strings.HasPrefix(text, "failed to parse function arguments")
	}
	var o struct {
		Success *bool `json:"success"`
	}
	return len(out) > 0 && out[0] == '{' && json.Unmarshal(out, &o) == nil && o.Success != nil && !*o.Success
}

// PlanInput reads the plan from a hook's tool_input when the tool was
// update_plan ({"plan":[…]}).
func PlanInput(toolInput json.RawMessage) ([]capture.Task, bool) {
	plan, ok := planArgs(toolInput)
	if !ok {
		return nil, false
	}
	return codexTasks(plan), true
}

func codexTasks(plan []codexStep) []capture.Task {
	tasks := make([]capture.Task, 0, len(plan))
	for _, s := range plan {
		text := capture.Clean(s.Step)
		if text == "" {
			continue
		}
		tasks = append(tasks, capture.Task{Text: text, Status: capture.ParseStatus(s.Status)})
	}
	return tasks
}
