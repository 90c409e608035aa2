package ui

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/term"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// LiveLine shows a long-running command's latest news: rewritten in place
// on a terminal, one plain line each (after Prefix) otherwise.
type LiveLine struct {
	out    io.Writer
	tty    bool
	prefix string
	// width is the terminal's, asked at every draw so that a resized
	// window is followed: a line longer than that would wrap, and
	// "\r\x1b[K" clears only the last row of it.
	width func() int
	// Now stamps each line on a terminal; tests pin it.
	Now func() time.Time
}

// NewLiveLine writes to out, in place when tty; plain lines start with
// prefix (e.g. "ccc sync: ").
func NewLiveLine(out io.Writer, tty bool, prefix string, width func() int) *LiveLine {
	return &LiveLine{out: out, tty: tty, prefix: prefix, width: width, Now: time.Now}
}

// TermWidth is the width of the terminal w writes to (the live line's
// stderr), else columns, $COLUMNS (shells set it for the programs they run when
// asked to), else 80: a guess that is too wide is what leaves debris.
func TermWidth(w io.Writer, columns string) int {
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(columns)); err == nil && n > 0 {
		return n
	}
	return 80
}

// Show reports something that happened.
func (l *LiveLine) Show(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if l.tty {
		l.draw(msg)
		return
	}
	fmt.Fprintf(l.out, "%s%s\n", l.prefix, msg)
}

// Busy reports work that has started, on a terminal only: the result that
// follows replaces it there, and in a log it would only double the lines.
func (l *LiveLine) Busy(format string, args ...any) {
	if l.tty {
		l.draw(fmt.Sprintf(format, args...))
	}
}

func (l *LiveLine) draw(msg string) {
	stamp := l.Now().Format("15:04:05") + " "
	// The last column stays free: a line that fills it leaves the cursor
	// on the next row on some terminals.
	fmt.Fprintf(l.out, "\r\x1b[K%s%s", stamp, ClipLine(msg, l.width()-1-len(stamp)))
}

// ClipLine makes msg one row of at most width characters: line breaks and
// tabs become spaces, and a longer message ends in "…".
func ClipLine(msg string, width int) string {
	msg = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, msg)
	return redact.Clip(msg, max(width, 1))
}

// End leaves the last line on a terminal.
func (l *LiveLine) End() {
	if l.tty {
		fmt.Fprintln(l.out)
	}
}
