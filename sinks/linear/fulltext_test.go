package linear_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/markdown"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
)

// The truncation note names where the delivery says the full text is (the
// body file of ccc post, the job summary), and the progress file only when
// the delivery names nothing.
func TestTruncationNoteNamesFullText(t *testing.T) {
	long := markdown.StatusBody(markdown.StatusInput{
		TaskN: 1, TaskM: 2, Task: "long", Next: "ship it",
		Decisions: []string{strings.Repeat("because ", 200)},
	})
	tests := []struct {
		name, fullText, want string
	}{
		{"body file", "report.md", "report.md"},
		{"job summary", "the job summary", "the job summary"},
		{"a name on one line", "odd\nname.md", "odd name.md"},
		{"nothing named", "", linear.DefaultProgressPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			s := newSink(srv, func(c *linear.Config) { c.MaxBody = 600 })
			d := sinks.Delivery{Target: sinks.Target{Issue: "CIA-9", Agent: "main"}, Body: long, FullText: tt.fullText}
			_, err := upsert(t, s, d)
			require.NoError(t, err)
			got := srv.Comments("CIA-9")[0].Body
			assert.LessOrEqual(t, utf8.RuneCountInString(got), 600)
			assert.Contains(t, got, "\n"+markdown.TruncateNote(tt.want)+"\n\n"+linear.Marker("main"))
			if tt.want != linear.DefaultProgressPath {
				assert.NotContains(t, got, linear.DefaultProgressPath)
			}
		})
	}
}
