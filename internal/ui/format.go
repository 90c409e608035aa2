package ui

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// Age prints a duration the way people say it: 45s, 12m, 3h5m, 2d4h.
func Age(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		h := int(d.Hours())
		if m := int(d.Minutes()) % 60; m != 0 {
			return fmt.Sprintf("%dh%dm", h, m)
		}
		return fmt.Sprintf("%dh", h)
	default:
		days := int(d.Hours()) / 24
		if h := int(d.Hours()) % 24; h != 0 {
			return fmt.Sprintf("%dd%dh", days, h)
		}
		return fmt.Sprintf("%dd", days)
	}
}

// MinutesAgo says an age the way a STATUS.md table does: "2 min ago".
func MinutesAgo(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	default:
		return fmt.Sprintf("%d days ago", int(d.Hours())/24)
	}
}

// Dash is s, or "—" for an empty cell.
func Dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// Clip is s on one line, redacted, then cut to n runes: a table cell.
func Clip(s string, n int) string { return redact.Clip(strings.Join(strings.Fields(s), " "), n) }

// MarkdownCell keeps a value from breaking a Markdown table: one line, its
// pipes escaped.
func MarkdownCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// MarkdownTable renders rows (the first the header) as a Markdown table
// whose columns line up in the raw text too: each cell is padded to its
// column's width, which a Markdown renderer ignores. The cells are written
// as they are (MarkdownCell escapes one).
func MarkdownTable(rows [][]string) string {
	if len(rows) == 0 {
		return ""
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], VisibleLen(c))
		}
	}
	var b strings.Builder
	line := func(r []string) {
		for i, c := range r {
			b.WriteString("| " + c + strings.Repeat(" ", widths[i]-VisibleLen(c)+1))
		}
		b.WriteString("|\n")
	}
	line(rows[0])
	for _, w := range widths {
		b.WriteString("|" + strings.Repeat("-", w+2))
	}
	b.WriteString("|\n")
	for _, r := range rows[1:] {
		line(r)
	}
	return b.String()
}

// Redraw is frame as one screenful that replaces the last in place: cursor
// home, each line cleared to its end, the rest of the screen cleared last,
// so the screen never blanks between frames.
func Redraw(frame string) string {
	var screen strings.Builder
	screen.WriteString("\x1b[H")
	for _, line := range strings.SplitAfter(frame, "\n") {
		if line == "" {
			continue
		}
		screen.WriteString(strings.TrimSuffix(line, "\n") + "\x1b[K\n")
	}
	screen.WriteString("\x1b[J")
	return screen.String()
}

// ShortSHA is a commit's name as git abbreviates it: 7 characters.
func ShortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// Mark writes a status line to w: ✓ (kind 'v'), ! or X, in colour, before
// the text on a terminal; the bare text elsewhere.
func Mark(w io.Writer, tty bool, kind rune, text string) {
	if !tty {
		fmt.Fprintln(w, text)
		return
	}
	mark, colour := "✓", "32"
	switch kind {
	case '!':
		mark, colour = "!", "33"
	case 'X':
		mark, colour = "X", "31"
	}
	fmt.Fprintln(w, Colour(colour, mark)+" "+text)
}
