package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// Agent names the coding agent that runs a hook.
type Agent string

const (
	Claude Agent = "claude"
	Codex  Agent = "codex"
	Gemini Agent = "gemini"
)

// ParseAgent reads --agent; "" means detect it from the input.
func ParseAgent(s string) (Agent, error) {
	switch a := Agent(strings.ToLower(strings.TrimSpace(s))); a {
	case "", Claude, Codex, Gemini:
		return a, nil
	}
	return "", fmt.Errorf("unknown agent %q (claude, codex or gemini)", s)
}

// geminiOnly are hook_event_name values only Gemini CLI sends (Gemini CLI
// 0.61.0, packages/core/src/hooks/types.ts).
var geminiOnly = map[string]bool{
	"BeforeAgent": true, "AfterAgent": true, "PreCompress": true, "BeforeTool": true, "AfterTool": true,
	"BeforeModel": true, "AfterModel": true, "BeforeToolSelection": true,
}

// DetectAgent tells which agent sent a hook's input, from what only that
// agent sends: Gemini's own event names, its prompt_response and chat log
// (…/chats/*.jsonl); Codex's rollout log (rollout-*.jsonl) and turn_id
// (Claude Code sends turn_id only with MessageDisplay). Anything else is
// Claude Code's.
func DetectAgent(stdin []byte) Agent {
	var in struct {
		Event          string          `json:"hook_event_name"`
		TranscriptPath *string         `json:"transcript_path"`
		TurnID         *string         `json:"turn_id"`
		PromptResponse json.RawMessage `json:"prompt_response"`
		Timestamp      *string         `json:"timestamp"`
	}
	if json.Unmarshal(bytes.TrimSpace(stdin), &in) != nil {
		return Claude
	}
	base, dir := "", ""
	if in.TranscriptPath != nil {
		p := filepath.ToSlash(*in.TranscriptPath)
		base, dir = filepath.Base(p), filepath.Base(filepath.Dir(p))
	}
	switch {
	case geminiOnly[in.Event], len(in.PromptResponse) > 0:
		return Gemini
	case strings.HasPrefix(base, "rollout-") && (strings.HasSuffix(base, ".jsonl") || strings.HasSuffix(base, ".jsonl.zst")):
		return Codex
	case dir == "chats" && strings.HasSuffix(base, ".jsonl"), in.Timestamp != nil:
		return Gemini
	case in.TurnID != nil && in.Event != "MessageDisplay":
		return Codex
	}
	return Claude
}

// Event is the ccc hook that plays an agent's event: Gemini's AfterAgent
// is the stop hook, PreCompress is pre-compact; "" when ccc has none.
func Event(native string) string {
	switch native {
	case "Stop", "AfterAgent":
		return "stop"
	case "PreCompact", "PreCompress":
		return "pre-compact"
	case "SessionStart":
		return "session-start"
	case "SessionEnd":
		return "session-end"
	case "PostToolUse", "AfterTool":
		return "capture"
	}
	return ""
}
