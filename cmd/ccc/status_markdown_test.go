package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/status"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// TestStatusMarkdown: the --markdown table's columns line up in the raw
// text (golden file), whatever the cells hold, and it renders as a table
// with the same cells.
func TestStatusMarkdown(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := now.Add(-d); return &v }
	rep := StatusReport{Now: now, Agents: []records.AgentStatus{
		{Agent: "a", Issue: "CIA-1", Total: 4, Completed: 1, Percent: 25, Status: "in_progress", UpdatedAt: at(90 * time.Second), Health: "ACTIVE"},
		{Agent: "worker-with-a-long-name", Issue: "ENG-12345", Total: 3, Completed: 3, Percent: 100, Status: "complete", UpdatedAt: at(3 * time.Hour)},
		{Agent: "pipe|agent", Status: "failed", UpdatedAt: at(50 * time.Hour)},
		{Agent: "ünï", Issue: "CIA-3", Total: 2, Percent: 0, Status: "blocked", UpdatedAt: at(2 * time.Hour), Health: "STALE", Drifted: true},
		{Agent: "queued-only"},
	}}
	got := status.Markdown(rep)
	agGolden(t, "status_markdown.md", got, nil)

	// Every line of the table is as wide as the header, in characters.
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")[2:]
	for _, l := range lines {
		assert.Equal(t, ui.VisibleLen(lines[0]), ui.VisibleLen(l), "%q", l)
	}
	// Every column separator sits in the same place on every row.
	bars := func(l string) []int {
		var at []int
		for i, r := range []rune(l) {
			if r == '|' && (i == 0 || []rune(l)[i-1] != '\\') {
				at = append(at, i)
			}
		}
		return at
	}
	for _, l := range lines {
		assert.Equal(t, bars(lines[0]), bars(l), "%q", l)
	}

	// Rendered, it is one table with the cells as given.
	var html bytes.Buffer
	require.NoError(t, goldmark.New(goldmark.WithExtensions(extension.Table)).Convert([]byte(got), &html))
	cells := func(tag string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`<`+tag+`[^>]*>([^<]*)</`+tag+`>`).FindAllStringSubmatch(html.String(), -1) {
			out = append(out, m[1])
		}
		return out
	}
	assert.Equal(t, []string{"Agent", "Task", "Progress", "Last Update", "Status", "Health"}, cells("th"))
	td := cells("td")
	require.Len(t, td, 6*len(rep.Agents), html.String())
	assert.Equal(t, []string{"pipe|agent", "—", "—", "2 days ago", "failed", "—"}, td[12:18])
	assert.Equal(t, []string{"ünï", "CIA-3", "0%", "2 h ago", "blocked", "STALE DRIFTED"}, td[18:24])
}
