package hook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccc-checkpoint/ccc/state"
)

// BenchmarkStop times the stop hook's decision, in process, on the paths a
// session takes most: no session, a phase that is not execution, a retry
// (a state write), a retry that reads a 2 MB transcript, and a halt. The
// checkpoint of gate boundaries is left out: it is the checkpoint
// package's cost (bench/hook-stop.sh times the binary, checkpoint and all).
func BenchmarkStop(b *testing.B) {
	big := bigTranscript(b)
	endless := map[string]any{"maxTaskIterations": 1 << 40, "maxGlobalIterations": 1 << 40}
	cases := []struct {
		name  string
		state []byte
		stdin []byte
	}{
		{"allow-no-state", nil, input(b, "stop.json", nil)},
		{"allow-phase", stateJSON(b, map[string]any{"phase": "review"}), input(b, "stop.json", nil)},
		{"retry-message", stateJSON(b, endless), input(b, "stop-active.json", nil)},
		{"retry-transcript-2MB", stateJSON(b, endless), input(b, "stop-no-message.json", map[string]any{"transcript_path": big})},
		{"halt", stateJSON(b, map[string]any{"globalIteration": 50}), input(b, "stop.json", nil)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p := newProj(b)
			if c.state != nil {
				p.write(state.FileName, c.state)
			}
			p.write(PrefsFile, []byte("prompts:\n  agents_file: true\neval:\n  cost_profile: budget\n"))
			env := p.env()
			env.Checkpoint = nil
			ctx := context.Background()
			for b.Loop() {
				Stop(ctx, env, c.stdin)
			}
		})
	}
}

// bigTranscript is a 2 MB Claude Code transcript whose last assistant
// record (a tool call, no TASK_COMPLETE: a retry) is followed by a large
// tool result and a system record.
func bigTranscript(b *testing.B) string {
	data, err := os.ReadFile(filepath.Join("testdata", "transcript", "claude-code.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(data)), "\n")
	var sb strings.Builder
	for sb.Len() < 2<<20 {
		for _, l := range lines[1:5] {
			sb.WriteString(strings.TrimRight(l, "\n") + "\n")
		}
	}
	sb.WriteString(strings.TrimRight(lines[2], "\n") + "\n")
	sb.WriteString(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_02","content":"` + strings.Repeat("ok ", 2000) + `"}]}}` + "\n")
	sb.WriteString(strings.TrimRight(lines[5], "\n") + "\n")
	path := filepath.Join(b.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}
