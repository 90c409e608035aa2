// Package codex is Codex CLI as ccc sees it: payloads told by its rollout
// log and turn_id, its plan read from the rollout (or an update_plan call's
// input), and its hooks in .codex/hooks.json.
package codex

import (
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
)

// agentName is Codex CLI's name on the command line and in its tasks'
// marks.
const agentName = "codex"

// Agent is Codex CLI.
type Agent struct{}

var (
	_ agent.Agent         = Agent{}
	_ agent.EventNamer    = Agent{}
	_ agent.LogLister     = Agent{}
	_ agent.HookInstaller = Agent{}
	_ agent.Resumer       = Agent{}
)

func (Agent) Name() string { return agentName }

// Detect: a rollout-*.jsonl[.zst] log is Codex's own; turn_id is sent by
// Codex on its turn events, and by Claude Code only with MessageDisplay.
func (Agent) Detect(p agent.Payload) agent.Evidence {
	if p.IsString("transcript_path") {
		base := filepath.Base(filepath.ToSlash(p.String("transcript_path")))
		if strings.HasPrefix(base, "rollout-") && (strings.HasSuffix(base, ".jsonl") || strings.HasSuffix(base, ".jsonl.zst")) {
			return agent.Named
		}
	}
	if p.IsString("turn_id") && p.String("hook_event_name") != "MessageDisplay" {
		return agent.Field
	}
	return agent.None
}

func (Agent) Events() map[string]string {
	return map[string]string{"Stop": "stop", "PreCompact": "pre-compact", "SessionStart": "session-start",
		"SessionEnd": "session-end", "PostToolUse": "capture"}
}

// ListFromLog is an update_plan call's own input, else the rollout's last
// plan.
func (Agent) ListFromLog(in agent.Input) (capture.List, error) {
	if in.ToolName == "update_plan" {
		if tasks, ok := PlanInput(in.ToolInput); ok {
			return capture.List{Agent: agentName, Source: "tool_input", Tasks: tasks}, nil
		}
	}
	if in.TranscriptPath == "" {
		return capture.List{}, capture.ErrNoList
	}
	return ReadRollout(in.TranscriptPath)
}

func (Agent) RecreateList() string {
	return "one update_plan call with every current and remaining step"
}
