package claudecode

import (
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/install"
)

// SettingsFile is the project's Claude Code settings file.
const SettingsFile = ".claude/settings.json"

// TodoToolsEnv turns Claude Code's checklist tool on for models that get
// none by default.
const TodoToolsEnv = "CLAUDE_CODE_ENABLE_TODO_TOOLS"

// hooks are the hooks `ccc init claude` writes, the plugin's set
// (plugin/hooks/hooks.json; timeouts in seconds).
var hooks = []install.Hook{
	{Event: "Stop", Command: "ccc hook stop", Timeout: 30},
	{Event: "PreCompact", Matcher: "manual|auto", Command: "ccc hook pre-compact", Timeout: 30},
	{Event: "SessionStart", Matcher: "startup|resume|compact|clear", Command: "ccc hook session-start", Timeout: 15},
	{Event: "SessionEnd", Command: "ccc hook session-end", Timeout: 10},
	{Event: "PostToolUse", Matcher: "TaskCreate|TaskUpdate|TodoWrite", Command: "ccc hook post-tool-use", Timeout: 10},
	{Event: "TaskCompleted", Command: "ccc hook task-completed", Timeout: 30},
	{Event: "PostCompact", Matcher: "manual|auto", Command: "ccc hook post-compact", Timeout: 10},
	{Event: "StopFailure", Command: "ccc hook stop-failure", Timeout: 30},
	{Event: "SubagentStart", Command: "ccc hook subagent-start", Timeout: 5},
	{Event: "SubagentStop", Command: "ccc hook subagent-stop", Timeout: 5},
}

// InstallOptions are what `ccc init claude` may add beyond the hooks.
type InstallOptions struct {
	// TodoTools sets CLAUDE_CODE_ENABLE_TODO_TOOLS=1 in the settings' env,
	// so that models that get no checklist tool by default get one.
	TodoTools bool
}

// settings is the edit of .claude/settings.json: the hooks, and the todo
// tools offered (or set with o.TodoTools), never set by ccc on its own.
func settings(o InstallOptions) install.Settings {
	return install.Settings{
		File:   SettingsFile,
		Hooks:  hooks,
		Again:  "ccc init claude",
		Var:    TodoToolsEnv,
		SetVar: o.TodoTools,
		VarNote: "Claude Code gives newer models no checklist tool by default; ccc init claude --enable-todo-tools sets " +
			TodoToolsEnv + "=1 in the settings' env so ccc has a list to capture.",
		ChangedNote: "If the ccc plugin is installed too, its hooks run the same commands: keep one of the two.",
	}
}

// Install writes ccc's hooks into root's .claude/settings.json
// (install.Settings.Edit).
func Install(root string, dryRun bool, o InstallOptions) (install.Result, error) {
	return settings(o).Edit(root, dryRun)
}

func (Agent) ConfigFile() string { return SettingsFile }

func (Agent) InstallHooks(root string, dryRun bool) (install.Result, error) {
	return Install(root, dryRun, InstallOptions{})
}

func (Agent) RemoveHooks(root string, dryRun bool) (install.Result, error) {
	return install.Remove(root, SettingsFile, dryRun)
}

func (Agent) CheckHooks(root string) (install.Check, error) {
	return install.CheckHooks(root, SettingsFile, hooks)
}
