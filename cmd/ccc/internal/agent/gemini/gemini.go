// Package gemini is Gemini CLI as ccc sees it: payloads told by its own
// event names, prompt_response, chat log and timestamp; its todo list read
// from the chat log (or a write_todos call's input); its hooks in
// .gemini/settings.json.
package gemini

import (
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
)

// name is Gemini CLI's name on the command line and in its tasks' marks.
const name = "gemini"

// Agent is Gemini CLI.
type Agent struct{}

var (
	_ agent.Agent         = Agent{}
	_ agent.EventNamer    = Agent{}
	_ agent.InputReader   = Agent{}
	_ agent.LogLister     = Agent{}
	_ agent.HookInstaller = Agent{}
	_ agent.Resumer       = Agent{}
)

// ownEvents are hook_event_name values only Gemini CLI sends (Gemini CLI
// 0.61.0, packages/core/src/hooks/types.ts).
var ownEvents = map[string]bool{
	"BeforeAgent": true, "AfterAgent": true, "PreCompress": true, "BeforeTool": true, "AfterTool": true,
	"BeforeModel": true, "AfterModel": true, "BeforeToolSelection": true,
}

func (Agent) Name() string { return name }

// Detect: Gemini's own event names and prompt_response are sure; a chat
// log (…/chats/*.jsonl, or *.json before Gemini CLI 0.39) or a timestamp
// field nearly so.
func (Agent) Detect(p agent.Payload) agent.Evidence {
	if ownEvents[p.String("hook_event_name")] || p.Has("prompt_response") {
		return agent.Own
	}
	if p.IsString("transcript_path") {
		t := filepath.ToSlash(p.String("transcript_path"))
		if filepath.Base(filepath.Dir(t)) == "chats" && (strings.HasSuffix(t, ".jsonl") || strings.HasSuffix(t, ".json")) {
			return agent.Log
		}
	}
	if p.IsString("timestamp") {
		return agent.Log
	}
	return agent.None
}

func (Agent) Events() map[string]string {
	return map[string]string{"AfterAgent": "stop", "PreCompress": "pre-compact", "SessionStart": "session-start",
		"SessionEnd": "session-end", "AfterTool": "capture"}
}

// ReadInput: AfterAgent sends the reply as prompt_response.
func (Agent) ReadInput(p agent.Payload, in *agent.Input) {
	if in.LastAssistantMessage == "" {
		in.LastAssistantMessage = p.String("prompt_response")
	}
}

// ListFromLog is a write_todos call's own input, else the chat log's last
// list.
func (Agent) ListFromLog(in agent.Input) (capture.List, error) {
	if in.ToolName == "write_todos" {
		if tasks, ok := TodosInput(in.ToolInput); ok {
			return capture.List{Agent: name, Source: "tool_input", Tasks: tasks}, nil
		}
	}
	if in.TranscriptPath == "" {
		return capture.List{}, capture.ErrNoList
	}
	return ReadChat(in.TranscriptPath)
}

func (Agent) RecreateList() string {
	return "one write_todos call with every current and remaining item"
}
