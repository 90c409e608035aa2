package claudecode

import (
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
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

// todoToolsFlag is `ccc init claude --enable-todo-tools`.
const todoToolsFlag = "enable-todo-tools"

func (Agent) InstallOptions() []agent.InstallOption {
	return []agent.InstallOption{{Name: todoToolsFlag, Usage: "also set " + TodoToolsEnv + "=1 in the settings' env"}}
}

func (Agent) InstallWith(root string, dryRun bool, on map[string]bool) (install.Result, error) {
	return Install(root, dryRun, InstallOptions{TodoTools: on[todoToolsFlag]})
}

func (Agent) InitHelp() agent.InitHelp {
	return agent.InitHelp{
		Short: "Write ccc's Claude Code hooks into .claude/settings.json",
		Long: `Add ccc's hooks to the project's .claude/settings.json: Stop, PreCompact,
SessionStart, SessionEnd, PostToolUse (TaskCreate|TaskUpdate|TodoWrite),
TaskCompleted, PostCompact, StopFailure, SubagentStart and SubagentStop,
each as a group of its own,
unless the settings already run that command for that event. Every other
key and every hook of the user's stays, keys in their order. A file that
is not a JSON object is reported and left alone. The plugin in plugin/
wires the same hooks: use one or the other.

Newer models get no checklist tool unless CLAUDE_CODE_ENABLE_TODO_TOOLS=1;
--enable-todo-tools sets it in the settings' env. ccc never sets it by
itself.`,
		Example: `  ccc init claude --dry-run
  ccc init claude
  ccc init claude --enable-todo-tools`,
		Unreadable: "the settings file",
	}
}
