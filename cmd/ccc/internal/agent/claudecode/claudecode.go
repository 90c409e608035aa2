// Package claudecode is Claude Code as ccc sees it: the default agent (its
// payloads have no sign of their own), whose checklist is its task files
// or a TodoWrite call, whose transcript ccc reads backwards, and whose hooks
// go into .claude/settings.json.
package claudecode

import (
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
	"github.com/ccc-checkpoint/ccc/config"
)

// name is Claude Code's name on the command line and in its tasks' marks.
const name = "claude"

// Agent is Claude Code.
type Agent struct{}

var (
	_ agent.Agent            = Agent{}
	_ agent.EventNamer       = Agent{}
	_ agent.TaskLister       = Agent{}
	_ agent.TranscriptReader = Agent{}
	_ agent.Resumer          = Agent{}
	_ agent.ListCarrier      = Agent{}
	_ agent.HookInstaller    = Agent{}
	_ agent.OptionsInstaller = Agent{}
)

func (Agent) Name() string { return name }

// Detect finds nothing: Claude Code sends no field the others lack, so it
// is the registry's default.
func (Agent) Detect(agent.Payload) agent.Evidence { return agent.None }

func (Agent) Events() map[string]string {
	return map[string]string{"Stop": "stop", "PreCompact": "pre-compact", "SessionStart": "session-start", "SessionEnd": "session-end"}
}

// ChangesList: the Task tools and TodoWrite change the list.
func (Agent) ChangesList(tool string) bool {
	switch tool {
	case "TodoWrite", "TaskCreate", "TaskUpdate":
		return true
	}
	return false
}

// ListTasks is a TodoWrite call's own input (ErrSubagentCall when the
// transcript says a subagent made it), else the session's task files.
func (Agent) ListTasks(env *config.ClaudeEnv, in agent.Input) (capture.List, error) {
	if in.ToolName == "TodoWrite" && len(in.ToolInput) > 0 {
		if in.AgentID == "" && in.TranscriptPath != "" {
			// Before agent_id (1.0.x), only the transcript tells a
			// subagent's call from the session's.
			if side, err := SubagentCall(in.TranscriptPath, in.ToolInput); err == nil && side {
				return capture.List{}, ErrSubagentCall
			}
		}
		return TodoWrite([]byte(in.ToolInput), "TodoWrite")
	}
	var claude config.ClaudeEnv
	if env != nil {
		claude = *env
	}
	return ReadTasks(TaskDir(claude, in.SessionID))
}

// ReadTranscript reads the transcript once, backwards (the function
// ReadTranscript).
func (Agent) ReadTranscript(path string, wantTodos bool) (capture.Transcript, error) {
	return ReadTranscript(path, wantTodos)
}

func (Agent) RecreateList() string {
	return "one TaskCreate (or one TodoWrite with every item) per current and remaining task"
}
