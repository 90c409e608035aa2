package hook

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
)

// agentList reads the checklist an agent keeps in its log (or a tool
// call's input): agent.LogLister. ok is false when there is none (the
// agent never wrote one, or keeps it elsewhere: Claude Code's task files
// are read by captureList).
func agentList(in Input) (capture.List, bool, error) {
	r, ok := agentOf(in).(agent.LogLister)
	if !ok {
		return capture.List{}, false, nil
	}
	l, err := r.ListFromLog(in)
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
	if in.ToolFailed {
		env.debugf(event, "%s failed: the list did not change", in.ToolName)
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
