package codex

import (
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/install"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// HooksFile is the project file Codex CLI reads hooks from, beside
// .codex/config.toml.
const HooksFile = ".codex/hooks.json"

// hooks are ccc's hooks for Codex CLI (timeouts in seconds). Codex 0.169.0
// has no event for its plan tool that ccc relies on, so the plan is read
// from the rollout log at these events.
var hooks = []install.Hook{
	{Event: "SessionStart", Matcher: "startup|resume|compact|fork", Command: "ccc hook --agent codex session-start", Timeout: 15},
	{Event: "PreCompact", Command: "ccc hook --agent codex pre-compact", Timeout: 30},
	{Event: "Stop", Command: "ccc hook --agent codex stop", Timeout: 30},
	{Event: "SessionEnd", Command: "ccc hook --agent codex session-end", Timeout: 10},
}

// Install writes ccc's hooks into root/.codex/hooks.json, the project layer
// Codex CLI reads beside .codex/config.toml. It never marks them trusted:
// Codex runs a project's hooks only in a trusted project and only hooks
// whose hash the user approved (stored in ~/.codex/config.toml under
// [hooks.state]); the notes tell the user how.
func Install(root string, dryRun bool) (install.Result, error) {
	res, err := install.AddHooks(root, HooksFile, hooks, dryRun)
	if err != nil {
		return res, err
	}
	if toml, err := projectfs.ReadProjectFile(root, filepath.Join(root, ".codex", "config.toml"), projectfs.MaxPrefsSize); err == nil && hasTOMLHooks(string(toml)) {
		res.Notes = append(res.Notes, ".codex/config.toml has a [hooks] table too: Codex reads both and warns; keep one")
	}
	res.Notes = append(res.Notes,
		"Codex runs these hooks only after you trust them: start codex in this project, trust the project if asked, then open /hooks and trust the ccc hooks (Codex keeps their hash in ~/.codex/config.toml; ccc never writes it)",
		"after a change to .codex/hooks.json Codex asks again")
	return res, nil
}

func hasTOMLHooks(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "[hooks]" || strings.HasPrefix(l, "[hooks.") || strings.HasPrefix(l, "[[hooks.") {
			return true
		}
	}
	return false
}

func (Agent) ConfigFile() string { return HooksFile }

func (Agent) InstallHooks(root string, dryRun bool) (install.Result, error) {
	return Install(root, dryRun)
}

func (Agent) RemoveHooks(root string, dryRun bool) (install.Result, error) {
	return install.Remove(root, HooksFile, dryRun)
}

func (Agent) CheckHooks(root string) (install.Check, error) {
	return install.CheckHooks(root, HooksFile, hooks)
}

func (Agent) InitHelp() agent.InitHelp {
	return agent.InitHelp{
		Short: "Write ccc's Codex CLI hooks into .codex/hooks.json",
		Long: `Add ccc's hooks to the project's .codex/hooks.json, the project layer Codex
CLI reads beside .codex/config.toml: SessionStart (startup|resume|compact|fork),
PreCompact, Stop and SessionEnd, each running ccc hook --agent codex. Codex has no hook
event for its plan tool, so the task list is read from its rollout log at
these events. Every other hook of the user's stays. A file that is not a
JSON object is reported and left alone.

Codex runs a project's hooks only in a trusted project and only after you
trust them in /hooks (it keeps their hash in ~/.codex/config.toml, which
ccc never writes); after a change to the file it asks again.`,
		Example:    "  ccc init codex --dry-run\n  ccc init codex\n  ccc init codex --remove",
		Unreadable: HooksFile,
	}
}
