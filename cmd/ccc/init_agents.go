package main

import "github.com/ccc-checkpoint/ccc/internal/install"

// agentInstallers are the installers `ccc init <agent>` runs for the agents
// other than Claude Code: each writes ccc's hooks into the project's own
// settings for that agent (root, dry run).
func agentInstallers() map[string]func(string, bool) (install.Result, error) {
	return map[string]func(string, bool) (install.Result, error){
		"codex":  install.Codex,
		"gemini": install.Gemini,
	}
}
