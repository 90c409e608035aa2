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
	var last, prev []codexStep
	found, prevFound := false, false
	lastCall := "" // the call whose output may still refuse it
	_, err = capture.EachLine(r, capture.MaxLine, func(line []byte) {
		if skipFirst {
			skipFirst = false
			return
		}
		if lastCall != "" && bytes.Contains(line, []byte(`function_call_output`)) && bytes.Contains(line, []byte(lastCall)) {
			if failedOutput(line, lastCall) {
				last, found = prev, prevFound
			}
			lastCall = ""
			return
		}
		if !bytes.Contains(line, []byte(`update_plan`)) {
			return
		}
		if plan, call, ok := codexPlan(line); ok {
			prev, prevFound = last, found
			last, found, lastCall = plan, true, call
		}
	})
	if err != nil {
		return capture.List{}, fmt.Errorf("%s: %w", name, err)
	}
	if !found {
		return capture.List{}, fmt.Errorf("%s: %w", name, capture.ErrNoList)
	}
	return capture.List{Agent: agentName, Source: name, Tasks: codexTasks(last)}, nil
}

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
