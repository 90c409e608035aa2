package hook

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// captureFixture is a log of the agent package's own testdata (agent/codex,
// agent/gemini).
func captureFixture(t *testing.T, agent, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "agent", agent, "testdata", name))
	require.NoError(t, err)
	return p
}

const handWritten = `# Session Progress

## Completed Tasks

## Current Task

## Remaining Tasks
- Write the README
`

// The truth after the agent's second plan: two steps done, the third in
// progress, the fourth and the person's own task remaining.
const capturedTwoDone = `## Completed Tasks
- Add the lexer ✓
- Parse expressions ✓

## Current Task
- Evaluate the AST — in progress

## Remaining Tasks
- Write the README
- Write the REPL
`

func TestCaptureAtStop(t *testing.T) {
	tests := []struct {
		name  string
		stdin func(t *testing.T) []byte
	}{
		{"codex Stop", func(t *testing.T) []byte {
			return input(t, "codex-stop.json", map[string]any{"transcript_path": captureFixture(t, "codex",
				"rollout-2026-11-25T16-00-01-0199a1f2-7c3e-7d40-9b1e-5e0f2a6c8d11.jsonl")})
		}},
		{"codex Stop, rollout compressed since", func(t *testing.T) []byte {
			return input(t, "codex-stop.json", map[string]any{"transcript_path": zstCopy(t, captureFixture(t, "codex",
				"rollout-2026-11-25T16-00-01-0199a1f2-7c3e-7d40-9b1e-5e0f2a6c8d11.jsonl"))})
		}},
		{"gemini AfterAgent", func(t *testing.T) []byte {
			return input(t, "gemini-after-agent.json", map[string]any{"transcript_path": captureFixture(t, "gemini",
				"session-2026-11-25T16-00-7f3e9c2a.jsonl")})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProj(t)
			p.write(ProgressFile, []byte(handWritten))
			stdin := tt.stdin(t)
			d := p.stop(stdin)
			assert.Equal(t, Allow, d.Outcome)
			assert.Empty(t, d.Stdout())
			assert.Contains(t, unmarked(p.read(ProgressFile)), capturedTwoDone)
			assert.Equal(t, 1, p.cp.count(), "a stop with a list is a checkpoint")
			assert.Empty(t, p.errs.String())

			// The same list again: the file is not rewritten; the stop is
			// still a boundary (the list may have moved at a tool event).
			before, err := os.Stat(p.path(ProgressFile))
			require.NoError(t, err)
			p.stop(stdin)
			after, err := os.Stat(p.path(ProgressFile))
			require.NoError(t, err)
			assert.Equal(t, before.ModTime(), after.ModTime())
			assert.True(t, os.SameFile(before, after), "not replaced")
			assert.Equal(t, 2, p.cp.count())
		})
	}
}

func TestCaptureAtOtherEvents(t *testing.T) {
	codexLog := captureFixture(t, "codex", "rollout-2026-11-25T16-00-01-0199a1f2-7c3e-7d40-9b1e-5e0f2a6c8d11.jsonl")
	geminiLog := captureFixture(t, "gemini", "session-2026-11-25T16-00-7f3e9c2a.jsonl")
	ctx := context.Background()
	tests := []struct {
		name    string
		run     func(env Env, stdin []byte)
		fixture string
		log     string
		cps     int
	}{
		{"codex PreCompact", func(env Env, in []byte) { PreCompact(ctx, env, in) }, "codex-pre-compact.json", codexLog, 1},
		{"gemini PreCompress", func(env Env, in []byte) { PreCompact(ctx, env, in) }, "gemini-pre-compress.json", geminiLog, 1},
		{"codex SessionEnd", func(env Env, in []byte) { SessionEnd(ctx, env, in) }, "codex-session-end.json", codexLog, 0},
		{"gemini SessionEnd", func(env Env, in []byte) { SessionEnd(ctx, env, in) }, "gemini-session-end.json", geminiLog, 0},
		{"codex SessionStart", func(env Env, in []byte) {
			SessionStart(ctx, env, in, loader(Resume{}, false, nil))
		}, "codex-session-start.json", codexLog, 0},
		{"gemini SessionStart", func(env Env, in []byte) {
			SessionStart(ctx, env, in, loader(Resume{}, false, nil))
		}, "gemini-session-start.json", geminiLog, 0},
		// The tool events carry the list in tool_input: the log is not read.
		{"codex PostToolUse update_plan", func(env Env, in []byte) { Capture(ctx, env, in) }, "codex-post-tool-use.json", "/nonexistent/rollout-x.jsonl", 0},
		{"gemini AfterTool write_todos", func(env Env, in []byte) { Capture(ctx, env, in) }, "gemini-after-tool.json", "/nonexistent/chats/x.jsonl", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProj(t)
			p.write(ProgressFile, []byte(handWritten))
			tt.run(p.env(), input(t, tt.fixture, map[string]any{"transcript_path": tt.log}))
			got := unmarked(p.read(ProgressFile))
			assert.Contains(t, got, "- Add the lexer ✓\n")
			assert.Contains(t, got, "- Write the README\n", "the person's task stays")
			assert.Equal(t, tt.cps, p.cp.count())
		})
	}
}

// Claude Code's lists are not read here: its input changes nothing.
func TestCaptureLeavesClaudeAlone(t *testing.T) {
	p := newProj(t)
	p.write(ProgressFile, []byte(handWritten))
	Capture(context.Background(), p.env(), input(t, "stop.json", nil))
	PreCompact(context.Background(), p.env(), input(t, "precompact-auto.json", nil))
	assert.Equal(t, handWritten, string(p.read(ProgressFile)))
}

// A project with no progress file gets one from the agent's list.
func TestCaptureCreatesProgressFile(t *testing.T) {
	p := newProj(t)
	Capture(context.Background(), p.env(), input(t, "gemini-after-tool.json", nil))
	got := unmarked(p.read(ProgressFile))
	assert.Contains(t, got, "## Current Task\n- Parse expressions — in progress\n")
	assert.Contains(t, got, "- Write the REPL\n")
}

// zstCopy compresses a rollout as Codex does with an old session and
// returns the plain name, which no longer exists.
func zstCopy(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	plain := filepath.Join(t.TempDir(), filepath.Base(path))
	require.NoError(t, os.WriteFile(plain+".zst", enc.EncodeAll(data, nil), 0o644))
	return plain
}

// unmarked is a progress file without capture's task marks (the identity
// capture.Fold gives each task it wrote), for assertions on the text.
func unmarked(b []byte) string {
	return regexp.MustCompile(` <!-- ccc:task [^>]* -->`).ReplaceAllString(string(b), "")
}

// Gemini's AfterTool for a write_todos it refused carries tool_response.error.
func TestCaptureIgnoresARefusedCall(t *testing.T) {
	p := newProj(t)
	p.write(ProgressFile, []byte(handWritten))
	Capture(context.Background(), p.env(), input(t, "gemini-after-tool.json", map[string]any{
		"tool_response": map[string]any{"llmContent": "Error: invalid status", "returnDisplay": "Error", "error": map[string]any{"message": "invalid status", "type": "invalid_tool_params"}},
	}))
	assert.Equal(t, handWritten, string(p.read(ProgressFile)))
}
