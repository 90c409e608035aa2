package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// tableReference is Table as it was written first: a builder per line, a
// padding string per cell, the line trimmed. Table must print what it
// printed.
func tableReference(rows [][]string) string {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], VisibleLen(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			line.WriteString(c)
			if i < len(r)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-VisibleLen(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

func TestTable(t *testing.T) {
	t.Parallel()
	for _, rows := range [][][]string{
		nil,
		{{}},
		{{"a"}},
		{{"AGENT", "TASK", "HEALTH"}, {"a", "écrire — ünïcode", Colour("32", "✓ ACTIVE")}, {"bb", "", ""}},
		{{"x", "trailing  ", "  "}, {"ragged"}, {"", "", "", "four"}},
		{{"a\tb", "—", "c"}, {"\x1b[1mbold", "z"}},
	} {
		assert.Equal(t, tableReference(rows), Table(rows), "%q", rows)
	}
}

// TestTableAllocations: a table is written into one buffer of its size.
func TestTableAllocations(t *testing.T) {
	rows := [][]string{{"AGENT", "ISSUE", "TASK", "PROGRESS", "UPDATED", "STATUS", "HEALTH", "QUEUED"}}
	for i := range 1000 {
		rows = append(rows, []string{fmt.Sprintf("agent-%d", i), "CIA-1", "écrire le parseur", "1/2 50%",
			"20m", "in_progress", Colour("32", "✓ ACTIVE"), "—"})
	}
	want := tableReference(rows)
	allocs := testing.AllocsPerRun(5, func() {
		if Table(rows) != want {
			t.Fatal("Table differs from the reference")
		}
	})
	assert.LessOrEqual(t, allocs, 6.0, "allocations of a 1,000-row table (a builder per line made thousands)")
}
