package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/status"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// Every place that cuts text on its way out redacts it first: a GitHub
// token straddling the cut, cut in two, no longer has a token's shape, and
// its first part would be printed, sent or kept. (Held secrets straddling
// the same cut points: internal/redact's TestClipRedactsBeforeTheCut, as
// these places use the process's redactor.)
func TestCutsRedactFirst(t *testing.T) {
	t.Parallel()
	ghp := "ghp_" + strings.Repeat("a1B2c3D4e5", 3) + "F6g7H8"
	// straddle puts the token across the cut at n runes.
	straddle := func(n int) string { return strings.Repeat("w", n-10) + " " + ghp + " and after" }
	tests := map[string]struct {
		n   int
		out func(text string) string
	}{
		"SessionStart context: the last line": {300, func(s string) string {
			return capture.Context(progress.New("", time.Now()), capture.Transcript{LastLine: s}, true, "", capture.Where{})
		}},
		"SessionStart context: a task": {200, func(s string) string {
			doc := progress.New("", time.Now())
			doc.Current = &progress.Task{Text: s}
			return capture.Context(doc, capture.Transcript{}, true, "", capture.Where{})
		}},
		"continuation prompt": {progress.MaxPromptText, func(s string) string {
			doc := progress.New("", time.Now())
			doc.Current = &progress.Task{Text: s}
			return doc.GeneratePrompt(nil)
		}},
		"subagent last message": {500, func(s string) string {
			root := t.TempDir()
			require.NoError(t, records.WriteSubagent(root, records.Subagent{ID: "a1", LastMessage: s, UpdatedAt: time.Now()}))
			subs := records.ReadSubagents(root)
			require.Len(t, subs, 1)
			return subs[0].LastMessage
		}},
		"a sink's error":  {120, sinks.Short},
		"ccc status cell": {40, func(s string) string { return ui.Clip(s, 40) }},
		"ccc status --json": {40, func(s string) string {
			rep := StatusReport{Agents: []records.AgentStatus{{Task: s, Subagents: []records.Subagent{{LastMessage: s}}}}, Warnings: []string{s}}
			status.Redact(&rep)
			return rep.Agents[0].Task + rep.Agents[0].Subagents[0].LastMessage + rep.Warnings[0]
		}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got := tt.out(straddle(tt.n))
			for i := 0; i+8 <= len(ghp); i++ {
				if !assert.NotContains(t, got, ghp[i:i+8]) {
					break
				}
			}
		})
	}
}
