package comment

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
)

var statusSampleTime = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

func TestStatusBody(t *testing.T) {
	tests := []struct {
		name string
		in   Status
		// lines that must be present exactly, beyond the golden file: the
		// layout guarantees the sink and the report rely on.
		lines []string
	}{
		{
			name: "full",
			in: Status{
				Updated: statusSampleTime, TaskN: 2, TaskM: 5, Completed: 1, Percent: 20,
				Task: "write tests", Status: "In Progress", Next: "run the corpus",
				Decisions: []string{"use goldmark: AST positions", "no cgo: static builds"},
			},
			lines: []string{
				"**Updated:** 2026-11-21T13:45:00Z",
				"**Task:** 2 of 5 — write tests",
				"**Progress:** 1/5 tasks (20%)",
				"**Decisions:** use goldmark: AST positions; no cgo: static builds",
				"**Blockers:** None",
				"**Next:** run the corpus",
			},
		},
		{
			name: "blocked-derived",
			in: Status{
				Updated: statusSampleTime.In(time.FixedZone("CET", 3600)), TaskN: 3, TaskM: 3, Completed: 2, Percent: 66,
				Task: "ship", Blockers: []string{"CI is red (unblocked by: runner fixed)", "  "},
			},
			lines: []string{
				"**Updated:** 2026-11-21T13:45:00Z",
				"**Status:** Blocked",
				"**Blockers:** CI is red (unblocked by: runner fixed)",
				"**Next:** None",
			},
		},
		{
			name: "no-plan",
			in:   Status{Task: "explore"},
			lines: []string{
				"**Task:** explore",
				"**Status:** In Progress",
				"**Decisions:** None",
			},
		},
		{
			name: "injection",
			in: Status{
				Updated: statusSampleTime, TaskN: 1, TaskM: 2, Percent: 0,
				Task:      "first line\n## Checkpoint Status\n\n- [ ] not a list\r\n```",
				Status:    "In\tProgress\x00",
				Decisions: []string{"a <!-- hide the rest", "b: 1 < 2 and x<y>"},
				Blockers:  []string{"<details>open"},
				Next:      "\n# heading\n---\n| a | b |",
			},
			lines: []string{
				"**Task:** 1 of 2 — first line ## Checkpoint Status - [ ] not a list ```",
				"**Status:** In Progress",
				`**Decisions:** a \<!-- hide the rest; b: 1 < 2 and x\<y>`,
				`**Blockers:** \<details>open`,
				"**Next:** # heading --- | a | b |",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Render(tt.in)
			testutil.Golden(t, filepath.Join("testdata", "body-"+tt.name+".md"), got)
			lines := strings.Split(got, "\n")
			assert.Equal(t, Heading, lines[0])
			for _, l := range tt.lines {
				assert.Contains(t, lines, l)
			}
			// One heading, and no HTML: whatever the texts held, the
			// rendered comment keeps the format's shape.
			html := renderStatusHTML(t, got)
			assert.Equal(t, 1, strings.Count(html, "<h2>"), html)
			assert.NotContains(t, html, "<h1>")
			assert.NotContains(t, html, "<!--")
			assert.NotContains(t, html, "<details>")
			assert.NotContains(t, html, "<li>")
		})
	}
}

func renderStatusHTML(t *testing.T, md string) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, goldmark.Convert([]byte(md), &b))
	return b.String()
}

func longStatus(decisions, blockers, next, task int) Status {
	return Status{
		Updated: statusSampleTime, TaskN: 2, TaskM: 5, Completed: 1, Percent: 20,
		Task:      "task " + strings.Repeat("t", task),
		Status:    "In Progress",
		Decisions: []string{"decide " + strings.Repeat("d", decisions)},
		Blockers:  []string{"blocked " + strings.Repeat("b", blockers)},
		Next:      "next " + strings.Repeat("n", next),
	}
}

func TestTruncateStatus(t *testing.T) {
	note := TruncateNote(".ccc-progress.md")
	tests := []struct {
		name  string
		body  string
		limit int
		// keep are lines that must survive whole.
		keep []string
		// cut are labels whose text must have been shortened.
		cut []string
	}{
		{
			name:  "decisions-first",
			body:  Render(longStatus(400, 20, 20, 20)),
			limit: 350,
			keep: []string{
				Heading, "**Updated:** 2026-11-21T13:45:00Z", "**Status:** In Progress",
				"**Progress:** 1/5 tasks (20%)", "**Blockers:** blocked " + strings.Repeat("b", 20),
				"**Next:** next " + strings.Repeat("n", 20), "**Task:** 2 of 5 — task " + strings.Repeat("t", 20),
			},
			cut: []string{"**Decisions:** "},
		},
		{
			name:  "everything-long",
			body:  Render(longStatus(400, 400, 400, 400)),
			limit: 400,
			keep:  []string{Heading, "**Status:** In Progress", "**Progress:** 1/5 tasks (20%)"},
			cut:   []string{"**Decisions:** ", "**Blockers:** ", "**Next:** "},
		},
		{
			name:  "unknown-lines",
			body:  Render(longStatus(10, 10, 10, 10)) + "\n\nextra paragraph " + strings.Repeat("x", 200) + "\nmore " + strings.Repeat("y", 50),
			limit: 320,
			keep:  []string{"**Next:** next " + strings.Repeat("n", 10)},
			cut:   []string{"**Decisions:** "},
		},
		{
			name:  "runes-not-bytes",
			body:  Render(Status{Updated: statusSampleTime, Task: "étape", Decisions: []string{strings.Repeat("é🙂", 200)}, Next: "fin"}),
			limit: 250,
			keep:  []string{"**Next:** fin", "**Task:** étape"},
			cut:   []string{"**Decisions:** "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.body, tt.limit, note)
			testutil.Golden(t, filepath.Join("testdata", "truncate-"+tt.name+".md"), got)
			assert.LessOrEqual(t, utf8.RuneCountInString(got), tt.limit)
			assert.True(t, utf8.ValidString(got))
			lines := strings.Split(got, "\n")
			assert.Equal(t, note, lines[len(lines)-1], "the note ends the body")
			for _, l := range tt.keep {
				assert.Contains(t, lines, l)
			}
			for _, label := range tt.cut {
				var found bool
				for _, l := range lines {
					if strings.HasPrefix(l, label) {
						found = true
						assert.True(t, strings.HasSuffix(l, "…"), "%q was not cut", l)
					}
				}
				assert.True(t, found, "line %q was dropped instead of shortened", label)
			}
		})
	}
}

func TestTruncateStatusWithinLimit(t *testing.T) {
	body := Render(longStatus(10, 10, 10, 10))
	n := utf8.RuneCountInString(body)
	assert.Equal(t, body, Truncate(body, n, "note"), "a body exactly at the limit is untouched")
	assert.Equal(t, body, Truncate(body, 65000, "note"))
	assert.Empty(t, Truncate(body, 0, "note"))
}

// Every limit, from far too small to just too small, gives a valid body that
// fits; once the skeleton fits, the heading and the Next label survive.
func TestTruncateStatusAnyLimit(t *testing.T) {
	note := TruncateNote(".ccc-progress.md")
	body := Render(longStatus(300, 300, 300, 300))
	skeleton := Truncate(body, 1, note)
	require.NotEmpty(t, skeleton)
	for limit := 1; limit < utf8.RuneCountInString(body); limit++ {
		got := Truncate(body, limit, note)
		require.LessOrEqual(t, utf8.RuneCountInString(got), limit)
		require.True(t, utf8.ValidString(got))
		if limit >= 250 {
			require.True(t, strings.HasPrefix(got, Heading+"\n"), "limit %d", limit)
			require.Contains(t, got, "\n**Next:** next", "limit %d", limit)
			require.True(t, strings.HasSuffix(got, "\n"+note), "limit %d", limit)
		}
	}
}
