package linearagent

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ccc-checkpoint/ccc/progress"
)

// The plan's position, the summary and the result cut a task or a decision
// after redacting it: a token across the cut keeps no part.
func TestPlanTextRedactsBeforeTheCut(t *testing.T) {
	t.Parallel()
	ghp := "ghp_" + strings.Repeat("a1B2c3D4e5", 3) + "F6g7H8"
	across := func(n int) string { return strings.Repeat("w", n-10) + " " + ghp + " and after" }
	doc := progress.New("", time.Now())
	doc.Current = &progress.Task{Text: across(120)}
	doc.Completed = []progress.Task{{Text: across(200), Done: true}}
	doc.NextAction = across(200)
	for name, got := range map[string]string{"position": position(doc), "summary": summary(doc, nil), "result": result(doc)} {
		assert.NotContains(t, got, ghp[:8], name)
	}
}
