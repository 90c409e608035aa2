package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestLiveLine(t *testing.T) {
	at := time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)
	long := "checkpoint 13:45:00: Progress saved — updated .ccc-progress.md (task 2 of 3, in progress). Linear update: updated comment on CIA-30 https://linear.app/acme/issue/CIA-30#comment-1."
	for _, tt := range []struct {
		name  string
		tty   bool
		width int
		draw  func(l *LiveLine)
		want  string
	}{
		{"tty: news replaces the line", true, 80, func(l *LiveLine) { l.Show("watching %s", ".ccc-progress.md") },
			"\r\x1b[K13:45:00 watching .ccc-progress.md"},
		{"tty: work in progress shows", true, 80, func(l *LiveLine) { l.Busy("checkpointing…") },
			"\r\x1b[K13:45:00 checkpointing…"},
		{"tty: clipped to the width, last column free", true, 40, func(l *LiveLine) { l.Show("%s", long) },
			"\r\x1b[K13:45:00 checkpoint 13:45:00: Progress…"},
		{"tty: line breaks do not wrap", true, 80, func(l *LiveLine) { l.Show("watch error: one\ntwo\tthree") },
			"\r\x1b[K13:45:00 watch error: one two three"},
		{"tty: a narrow terminal still gets a mark", true, 5, func(l *LiveLine) { l.Show("stopped") },
			"\r\x1b[K13:45:00 …"},
		{"tty: end leaves the last line", true, 80, func(l *LiveLine) { l.Show("stopped"); l.End() },
			"\r\x1b[K13:45:00 stopped\n"},
		{"plain: a whole line each", false, 40, func(l *LiveLine) { l.Show("%s", long); l.Show("stopped"); l.End() },
			"ccc sync: " + long + "\nccc sync: stopped\n"},
		{"plain: work in progress is not logged", false, 80, func(l *LiveLine) { l.Busy("checkpointing…") }, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			l := NewLiveLine(&out, tt.tty, "ccc sync: ", func() int { return tt.width })
			l.Now = func() time.Time { return at }
			tt.draw(l)
			assert.Equal(t, tt.want, out.String())
			if tt.tty {
				for _, row := range strings.Split(out.String(), "\r\x1b[K")[1:] {
					assert.Less(t, utf8.RuneCountInString(strings.TrimSuffix(row, "\n")), max(tt.width, 11), "row %q", row)
				}
			}
		})
	}
}

func TestTermWidth(t *testing.T) {
	for cols, want := range map[string]int{"": 80, "132": 132, " 60 ": 60, "0": 80, "-3": 80, "wide": 80} {
		assert.Equal(t, want, TermWidth(&bytes.Buffer{}, cols), "COLUMNS=%q", cols)
	}
}
