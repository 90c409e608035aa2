package status

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ccc-checkpoint/ccc/state/records"
)

// TestRedactManyRows: one credential among a thousand clean rows, in any
// of a row's texts or in a warning, is still redacted, and nothing else
// changes (Redact screens all the text at once before it looks at each).
func TestRedactManyRows(t *testing.T) {
	t.Parallel()
	key := "ghp_" + strings.Repeat("a1B2c3D4e5", 3) + "F6g7H8"
	for _, plant := range []func(*Report){
		func(r *Report) { r.Agents[500].Task = "deploy with " + key },
		func(r *Report) { r.Agents[999].Queued.LastError = "401 for " + key },
		func(r *Report) { r.Agents[0].Subagents = []records.Subagent{{LastMessage: key}} },
		func(r *Report) { r.Warnings = []string{"bad record: " + key} },
	} {
		rep, clean := manyAgents(1000), manyAgents(1000)
		plant(&rep)
		Redact(&rep)
		Redact(&clean)
		assert.Equal(t, manyAgents(1000), clean, "clean rows are left as they are")
		var texts []string
		eachText(&rep, func(s *string) { texts = append(texts, *s) })
		joined := strings.Join(texts, "\n")
		assert.NotContains(t, joined, key)
		assert.Contains(t, joined, "[REDACTED:")
	}
}
