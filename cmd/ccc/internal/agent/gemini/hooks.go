package gemini

import (
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/install"
)

// SettingsFile is the project's Gemini CLI settings file.
const SettingsFile = ".gemini/settings.json"

// hooks are ccc's hooks for Gemini CLI (timeouts in milliseconds):
// AfterAgent plays Stop, PreCompress plays PreCompact, AfterTool on
// write_todos captures the list as it changes.
var hooks = []install.Hook{
	{Event: "SessionStart", Command: "ccc hook --agent gemini session-start", Timeout: 15000, Name: "ccc-session-start"},
	{Event: "AfterTool", Matcher: "^write_todos$", Command: "ccc hook --agent gemini capture", Timeout: 10000, Name: "ccc-capture"},
	{Event: "PreCompress", Command: "ccc hook --agent gemini pre-compact", Timeout: 30000, Name: "ccc-pre-compact"},
	{Event: "AfterAgent", Command: "ccc hook --agent gemini stop", Timeout: 30000, Name: "ccc-stop"},
	{Event: "SessionEnd", Command: "ccc hook --agent gemini session-end", Timeout: 10000, Name: "ccc-session-end"},
}

// Install writes ccc's hooks into root/.gemini/settings.json, keeping every
// other setting and hook. A settings file with comments (Gemini CLI allows
// them) is not rewritten: the error says so.
func Install(root string, dryRun bool) (install.Result, error) {
	res, err := install.AddHooks(root, SettingsFile, hooks, dryRun)
	if err != nil {
		return res, err
	}
	res.Notes = append(res.Notes,
		"Gemini CLI runs project hooks only in a trusted folder (/permissions); the first session after this change warns about the new hooks once")
	return res, nil
}

func (Agent) ConfigFile() string { return SettingsFile }

func (Agent) InstallHooks(root string, dryRun bool) (install.Result, error) {
	return Install(root, dryRun)
}

func (Agent) RemoveHooks(root string, dryRun bool) (install.Result, error) {
	return install.Remove(root, SettingsFile, dryRun)
}

func (Agent) CheckHooks(root string) (install.Check, error) {
	return install.CheckHooks(root, SettingsFile, hooks)
}

func (Agent) InitHelp() agent.InitHelp {
	return agent.InitHelp{
		Short: "Write ccc's Gemini CLI hooks into .gemini/settings.json",
		Long: `Add ccc's hooks to the project's .gemini/settings.json: SessionStart,
AfterTool on write_todos (captures the task list as it changes), PreCompress,
AfterAgent and SessionEnd, each running ccc hook --agent gemini. Every other setting
and hook of the user's stays. A settings file with comments (Gemini CLI
allows them) or one that is not a JSON object is reported and left alone:
add the hooks by hand (docs/other-agents.md lists them).

Gemini CLI runs project hooks only in a trusted folder (/permissions).`,
		Example:    "  ccc init gemini --dry-run\n  ccc init gemini\n  ccc init gemini --remove",
		Unreadable: SettingsFile,
	}
}
