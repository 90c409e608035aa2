package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/claudecode"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/codex"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/gemini"
)

var (
	Claude agent.Agent = claudecode.Agent{}
	Codex  agent.Agent = codex.Agent{}
	Gemini agent.Agent = gemini.Agent{}
)

func TestDetectAgent(t *testing.T) {
	files, err := filepath.Glob("testdata/input/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := filepath.Base(f)
		want := Claude
		switch {
		case strings.HasPrefix(name, "codex-"):
			want = Codex
		case strings.HasPrefix(name, "gemini-"):
			want = Gemini
		}
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.Equal(t, want, DetectAgent(data), name)
	}
	for in, want := range map[string]agent.Agent{
		``:    Claude,
		`[1]`: Claude,
		`{"hook_event_name":"MessageDisplay","turn_id":"t"}`:                                    Claude,
		`{"hook_event_name":"SessionEnd","transcript_path":null,"turn_id":"t"}`:                 Codex,
		`{"transcript_path":"/h/.codex/sessions/2026/11/25/rollout-2026-x.jsonl.zst"}`:          Codex,
		`{"hook_event_name":"SessionEnd","transcript_path":"/h/.gemini/tmp/p/chats/s-1.jsonl"}`: Gemini,
		`{"hook_event_name":"SessionEnd","transcript_path":"/h/.gemini/tmp/p/chats/s-1.json"}`:  Gemini, // Gemini CLI 0.19–0.38
	} {
		assert.Equal(t, want, DetectAgent([]byte(in)), in)
	}
}

func TestParseAgent(t *testing.T) {
	for in, want := range map[string]agent.Agent{"": nil, "Codex": Codex, " gemini ": Gemini, "claude": Claude} {
		got, err := ParseAgent(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := ParseAgent("copilot")
	assert.ErrorContains(t, err, `unknown agent "copilot"`)
}

func TestEventNames(t *testing.T) {
	for native, want := range map[string]string{"Stop": "stop", "AfterAgent": "stop", "PreCompact": "pre-compact",
		"PreCompress": "pre-compact", "SessionStart": "session-start", "SessionEnd": "session-end",
		"PostToolUse": "capture", "AfterTool": "capture", "BeforeAgent": "", "PostCompact": ""} {
		assert.Equal(t, want, Event(native), native)
	}
}

func TestParseInputAgents(t *testing.T) {
	in, err := ParseInput(input(t, "gemini-after-agent.json", nil))
	require.NoError(t, err)
	assert.Equal(t, Gemini, in.Agent)
	assert.Equal(t, "AfterAgent", in.Event)
	assert.Equal(t, "Lexer and parser done; evaluating next.", in.LastAssistantMessage, "prompt_response stands in")

	in, err = ParseInput(input(t, "codex-post-tool-use.json", nil))
	require.NoError(t, err)
	assert.Equal(t, Codex, in.Agent)
	assert.Equal(t, "update_plan", in.ToolName)
	assert.Contains(t, string(in.ToolInput), `"plan"`)

	// --agent wins over detection.
	in, err = Env{Agent: Gemini}.parse(input(t, "codex-stop.json", nil))
	require.NoError(t, err)
	assert.Equal(t, Gemini, in.Agent)

	// A Codex stop without last_assistant_message never reads its rollout
	// as a Claude Code transcript.
	out, err := LastOutput(Input{Agent: Codex, TranscriptPath: transcript(t, "claude-code.jsonl")})
	require.NoError(t, err)
	assert.Empty(t, out)
}

// schema is the part of a JSON schema the shape tests read.
type schema struct {
	Properties           map[string]json.RawMessage `json:"properties"`
	Required             []string                   `json:"required"`
	AdditionalProperties *bool                      `json:"additionalProperties"`
	Definitions          map[string]schema          `json:"definitions"`
}

func codexSchema(t *testing.T, name string) schema {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "codex-0.169.0", name+".schema.json"))
	require.NoError(t, err)
	var s schema
	require.NoError(t, json.Unmarshal(data, &s))
	return s
}

// The recorded Codex inputs are what Codex 0.169.0's own schemas describe:
// every required field, no other.
func TestCodexInputsMatchSchemas(t *testing.T) {
	for fixture, name := range map[string]string{
		"codex-stop.json": "stop", "codex-pre-compact.json": "pre-compact", "codex-session-start.json": "session-start",
		"codex-session-end.json": "session-end", "codex-post-tool-use.json": "post-tool-use",
	} {
		s := codexSchema(t, name+".command.input")
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(input(t, fixture, nil), &m))
		for k := range m {
			assert.Contains(t, s.Properties, k, "%s: %s is not in the schema", fixture, k)
		}
		for _, k := range s.Required {
			assert.Contains(t, m, k, "%s: lacks %s", fixture, k)
		}
	}
}

// keysOf returns an output's top-level keys and those of its
// hookSpecificOutput.
func keysOf(t *testing.T, out []byte) (top, specific []string) {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out, &m), "%s", out)
	for k := range m {
		top = append(top, k)
	}
	var hs map[string]json.RawMessage
	if raw, ok := m["hookSpecificOutput"]; ok {
		require.NoError(t, json.Unmarshal(raw, &hs))
	}
	for k := range hs {
		specific = append(specific, k)
	}
	sort.Strings(top)
	sort.Strings(specific)
	return top, specific
}

// Codex rejects an output with a field its schema does not list
// (additionalProperties false); Gemini CLI reads decision "block" or
// "deny" as a retry and hookSpecificOutput.additionalContext as context.
func TestOutputShapes(t *testing.T) {
	p := newProj(t)
	start := SessionStart(context.Background(), p.env(), input(t, "codex-session-start.json", nil),
		loader(Resume{Prompt: "Resume the session.", TaskN: 3, TaskM: 4}, true, nil))
	require.NotEmpty(t, start)
	outputs := []struct {
		schema string
		out    []byte
	}{
		{"stop.command.output", Decision{Outcome: Block, Reason: "Task 3 of 4 is next."}.Stdout()},
		{"stop.command.output", Decision{Outcome: Halt, Message: "ccc: the iteration limit is reached."}.Stdout()},
		{"session-start.command.output", start},
	}
	for _, o := range outputs {
		s := codexSchema(t, o.schema)
		require.NotNil(t, s.AdditionalProperties)
		require.False(t, *s.AdditionalProperties)
		top, specific := keysOf(t, o.out)
		for _, k := range top {
			assert.Contains(t, s.Properties, k, "%s: %s", o.schema, o.out)
		}
		if len(specific) > 0 {
			var def schema
			for _, d := range s.Definitions {
				def = d
			}
			for _, k := range specific {
				assert.Contains(t, def.Properties, k, "%s: %s", o.schema, o.out)
			}
			assert.Contains(t, specific, "hookEventName", "Codex requires hookEventName")
		}
		var m struct {
			Decision *string `json:"decision"`
		}
		require.NoError(t, json.Unmarshal(o.out, &m))
		if m.Decision != nil {
			// Codex: "block" only; Gemini CLI: block|deny retry.
			assert.Equal(t, "block", *m.Decision)
		}
	}
}
