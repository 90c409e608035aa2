package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// ReadCodex reads the plan of a Codex CLI session from its rollout log
// (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, which Codex later
// compresses to .jsonl.zst): the arguments of the last update_plan call,
// {"plan":[{"step":…,"status":"pending|in_progress|completed"}]}. A path
// whose plain file is gone is read from its .zst sibling. ErrNoList: the
// session never called update_plan.
func ReadCodex(path string) (List, error) {
	f, name, err := openRollout(path)
	if err != nil {
		return List{}, err
	}
	defer func() { _ = f.Close() }() // read only
	var r io.Reader = f
	if strings.HasSuffix(name, ".zst") {
		dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(1<<30))
		if err != nil {
			return List{}, fmt.Errorf("%s: %w", name, err)
		}
		defer dec.Close()
		r = dec
	}
	var last []codexStep
	found := false
	_, err = eachLine(r, MaxLine, func(line []byte) {
		if !bytes.Contains(line, []byte(`update_plan`)) {
			return
		}
		if plan, ok := codexPlan(line); ok {
			last, found = plan, true
		}
	})
	if err != nil {
		return List{}, fmt.Errorf("%s: %w", name, err)
	}
	if !found {
		return List{}, fmt.Errorf("%s: %w", name, ErrNoList)
	}
	return List{Agent: "codex", Source: name, Tasks: codexTasks(last)}, nil
}

// openRollout opens path, or path.zst when the plain log was compressed.
func openRollout(path string) (*os.File, string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) && !strings.HasSuffix(path, ".zst") {
		if z, zerr := os.Open(path + ".zst"); zerr == nil {
			return z, path + ".zst", nil
		}
	}
	return f, path, err
}

type codexStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// codexPlan reads one rollout line: a response_item whose payload is the
// function_call update_plan, with its arguments as a JSON string.
func codexPlan(line []byte) ([]codexStep, bool) {
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			Type      string `json:"type"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "response_item" ||
		rec.Payload.Type != "function_call" || rec.Payload.Name != "update_plan" {
		return nil, false
	}
	var args struct {
		Plan []codexStep `json:"plan"`
	}
	if json.Unmarshal([]byte(rec.Payload.Arguments), &args) != nil {
		return nil, false // Codex rejected it too: the plan did not change
	}
	return args.Plan, true
}

// CodexPlanInput reads the plan from a hook's tool_input when the tool was
// update_plan ({"plan":[…]}).
func CodexPlanInput(toolInput json.RawMessage) ([]Task, bool) {
	var args struct {
		Plan []codexStep `json:"plan"`
	}
	if json.Unmarshal(toolInput, &args) != nil || args.Plan == nil {
		return nil, false
	}
	return codexTasks(args.Plan), true
}

func codexTasks(plan []codexStep) []Task {
	tasks := make([]Task, 0, len(plan))
	for i, s := range plan {
		text := Clean(s.Step)
		if text == "" {
			continue
		}
		tasks = append(tasks, Task{ID: "todo-" + strconv.Itoa(i+1), Text: text, Status: status(s.Status)})
	}
	return tasks
}

// status maps an agent's status word; an unknown one counts as pending.
func status(s string) Status {
	switch Status(s) {
	case "in_progress", "completed", "cancelled", "blocked":
		return Status(s)
	}
	return "pending"
}
