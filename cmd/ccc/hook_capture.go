package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/hook"
)

// captureHelp is what every capturing hook shares.
const captureHelp = `

The list is Claude Code's own: the Task tools' files in
$CLAUDE_CONFIG_DIR/tasks/<list id>/ (~/.claude by default; the list id is
$CLAUDE_CODE_TASK_LIST_ID, else the session id), else the newest TodoWrite
call. Captured tasks carry a hidden <!-- ccc:task claude:<id> --> mark in
.ccc-progress.md. A task typed or written by hand with the text of one of
the agent's is that task; the agent's in_progress task takes the Current
Task from a typed one, which leads Remaining; other typed tasks are never
changed. A project
without .ccc-progress.md gets one from the agent's first list with a task
(said once on stderr: "created .ccc-progress.md from the agent's task
list"), so after ccc init claude nobody has to run ccc checkpoint first.`

// NewCmdHookCapture builds the hooks that capture the agent's own task list.
func NewCmdHookCapture(f *Factory, dir *string) []*cobra.Command {
	return []*cobra.Command{
		newCmdHookEvent(f, dir, "post-tool-use", "Capture the agent's task list after TaskCreate, TaskUpdate or TodoWrite",
			`Claude Code's PostToolUse hook for TaskCreate, TaskUpdate and TodoWrite:
folds the agent's task list into .ccc-progress.md (completed tasks to
Completed, the in_progress one to Current Task with its activeForm,
pending ones to Remaining; open blockedBy ids as a note; a task that leaves
the list is checked off as dropped). It writes only when the list changed,
reads no transcript and prints nothing (but the one line when it creates
the file). With a Linear agent session, it asks at most once a minute
whether someone pressed stop there, and then ends the agent's turn
({"continue": false}). It updates the tracker only when
hooks.capture_interval (5m) has passed since the last capture that did;
the boundaries (task-completed, stop, pre-compact, session-end) always do.`+captureHelp,
			`  # in .claude/settings.json
  {"hooks": {"PostToolUse": [{"matcher": "TaskCreate|TaskUpdate|TodoWrite", "hooks": [{"type": "command", "command": "ccc hook post-tool-use", "timeout": 10}]}]}}

  # by hand
  echo '{"session_id":"s1","tool_name":"TodoWrite","tool_input":{"todos":[{"content":"Write the lexer","status":"in_progress","activeForm":"Writing the lexer"}]}}' | ccc hook post-tool-use`,
			func(ctx context.Context, env hook.Env, stdin []byte) []byte {
				hook.PostToolUse(ctx, env, stdin)
				return hook.ToolStop(ctx, env, stdin)
			}),
		newCmdHookEvent(f, dir, "task-completed", "Capture the task list when a task is completed, and update the tracker",
			`Claude Code's TaskCompleted hook: captures the list with task_id completed
(the hook runs before Claude Code writes the file) and runs the automated
checkpoint (persist progress, update the tracker) within
hooks.checkpoint_timeout (10s). It prints nothing, so the task completes.`+captureHelp,
			`  # in .claude/settings.json
  {"hooks": {"TaskCompleted": [{"hooks": [{"type": "command", "command": "ccc hook task-completed", "timeout": 30}]}]}}`,
			func(ctx context.Context, env hook.Env, stdin []byte) []byte {
				hook.TaskCompleted(ctx, env, stdin)
				return nil
			}),
		newCmdHookEvent(f, dir, "post-compact", "Capture the task list after a compaction",
			`Claude Code's PostCompact hook: captures the list, so the SessionStart
(source compact) that follows re-injects the captured state. Claude Code
takes no output from PostCompact; it prints nothing.`+captureHelp,
			`  # in .claude/settings.json
  {"hooks": {"PostCompact": [{"hooks": [{"type": "command", "command": "ccc hook post-compact", "timeout": 10}]}]}}`,
			func(ctx context.Context, env hook.Env, stdin []byte) []byte {
				hook.PostCompact(ctx, env, stdin)
				return nil
			}),
		newCmdHookEvent(f, dir, "stop-failure", "Record an API error that ended the turn as a blocker",
			`Claude Code's StopFailure hook (the turn ended on an API error): adds the
blocker "API error: <error> — <details>" to .ccc-progress.md, so the status
reads Blocked, and updates the tracker. The next successful stop resolves
it. It prints nothing.`+captureHelp,
			`  # in .claude/settings.json
  {"hooks": {"StopFailure": [{"hooks": [{"type": "command", "command": "ccc hook stop-failure", "timeout": 30}]}]}}

  # by hand
  echo '{"session_id":"s1","error":"rate_limit","error_details":"429 Too Many Requests"}' | ccc hook stop-failure`,
			func(ctx context.Context, env hook.Env, stdin []byte) []byte {
				hook.StopFailure(ctx, env, stdin)
				return nil
			}),
		newCmdHookEvent(f, dir, "subagent-start", "Show a starting subagent under its session's agent in ccc status",
			`Claude Code's SubagentStart hook: records agent_id and agent_type in
.ccc/subagents/ (the newest 50 are kept), which ccc status shows as a child
row of the agent whose record names the session. It prints nothing.`,
			`  # in .claude/settings.json
  {"hooks": {"SubagentStart": [{"hooks": [{"type": "command", "command": "ccc hook subagent-start", "timeout": 5}]}]}}`,
			func(ctx context.Context, env hook.Env, stdin []byte) []byte {
				hook.Subagent(ctx, env, stdin, false)
				return nil
			}),
		newCmdHookEvent(f, dir, "subagent-stop", "Mark a subagent stopped, with its last message, in ccc status",
			`Claude Code's SubagentStop hook: marks the subagent stopped in
.ccc/subagents/ with the last line of its last message. It prints nothing.`,
			`  # in .claude/settings.json
  {"hooks": {"SubagentStop": [{"hooks": [{"type": "command", "command": "ccc hook subagent-stop", "timeout": 5}]}]}}`,
			func(ctx context.Context, env hook.Env, stdin []byte) []byte {
				hook.Subagent(ctx, env, stdin, true)
				return nil
			}),
	}
}
