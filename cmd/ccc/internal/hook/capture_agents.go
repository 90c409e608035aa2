package hook

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
)

// agentList reads the checklist the agent keeps for this session: from a
// tool event's own input when the tool was the checklist tool, else from
// the agent's log. ok is false when there is none (the agent never wrote
// one, or it is Claude Code's, which this file does not read).
func agentList(in Input) (capture.List, bool, error) {
	var (
		l   capture.List
		err error
	)
	switch in.Agent {
	case Codex:
		if in.ToolName == "update_plan" {
			if tasks, ok := capture.CodexPlanInput(in.ToolInput); ok {
				return capture.List{Agent: "codex", Source: "tool_input", Tasks: tasks}, true, nil
			}
		}
		if in.TranscriptPath == "" {
			return l, false, nil
		}
		l, err = capture.ReadCodex(in.TranscriptPath)
	case Gemini:
		if in.ToolName == "write_todos" {
			if tasks, ok := capture.GeminiTodosInput(in.ToolInput); ok {
				return capture.List{Agent: "gemini", Source: "tool_input", Tasks: tasks}, true, nil
			}
		}
		if in.TranscriptPath == "" {
			return l, false, nil
		}
		l, err = capture.ReadGemini(in.TranscriptPath)
	default:
		return l, false, nil
	}
	if errors.Is(err, capture.ErrNoList) {
		return l, false, nil
	}
	return l, err == nil, err
}

// captureAgentList folds the agent's checklist into the progress file at root,
// under the project lock, writing only when the file changes. A project
// without a progress file gets one. It reports problems on stderr in one
// line and returns whether the agent has a list (the file is then true).
func captureAgentList(ctx context.Context, env Env, event string, in Input, root string) bool {
	l, ok, err := agentList(in)
	if err != nil {
		env.logf(event, "capture: %v", err)
		return false
	}
	if !ok {
		return false
	}
	err = withLock(ctx, root, func() error {
		path := filepath.Join(root, ProgressFile)
		orig, err := projectfs.ReadProjectFile(root, path, progress.MaxSize)
		var doc *progress.Document
		switch {
		case errors.Is(err, os.ErrNotExist):
			doc, orig = progress.New("", env.now()), nil
		case err != nil:
			return err
		default:
			if doc, err = progress.Parse(orig); err != nil {
				return err
			}
		}
		capture.Fold(doc, l)
		if orig == nil && doc.TaskM() == 0 {
			return nil // a list without tasks creates no file
		}
		out := doc.Render()
		if bytes.Equal(out, orig) {
			return nil // unchanged: not even rewritten
		}
		if err := projectfs.WriteFileAtomic(path, out, 0o644); err != nil {
			return err
		}
		if orig == nil {
			env.logf(event, "created %s from the agent's task list", ProgressFile)
		}
		return nil
	})
	if err != nil {
		env.logf(event, "capture: %v", err)
		return false
	}
	return true
}

// Capture is `ccc hook capture`, for the agent's tool events (Codex's
// PostToolUse, Gemini's AfterTool): it folds the checklist into the progress
// file and does nothing else: no checkpoint, no tracker, no output.
func Capture(ctx context.Context, env Env, stdin []byte) {
	const event = "capture"
	in, err := env.parse(stdin)
	if err != nil {
		env.logf(event, "%v", err)
		return
	}
	root, err := env.Root(ctx, in.Cwd)
	if err != nil {
		env.logf(event, "%v", err)
		return
	}
	captureAgentList(ctx, env, event, in, root)
}

func key(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
