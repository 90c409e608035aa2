package markdown

import (
	"bytes"
	"fmt"
)

// MaxDepth is how deeply ccc reads block quotes and list items nested in one another, and MaxWork how
// many nested line-levels it reads in all: a line with two or more block quotes or list items open on
// it counts once, plus once for each of them. goldmark walks every open block on every line, and
// opening a block rescans its line, so its time and memory grow with that product, not with the size:
// twenty kilobytes nested ten thousand levels deep took seconds, eight megabytes minutes and gigabytes.
// A line with at most one level open (text, a heading, a top-level task) counts nothing there, so a
// plain list of 100,000 tasks is read (issue 26), while deep nesting, or deep nesting kept open over
// many lines, is refused. No handoff note nests a hundred levels; 10,000 tasks with a subtask each
// count 60,000. MaxLines bounds the lines of any kind: goldmark holds a few hundred bytes per line, so
// a file of ten megabytes in four-byte list items ("- x\n", 2.6 million) took 2.4 GB and seconds per
// parse; 150,000 lines is half again the 100,000 tasks issue 26 asks for. A hook parses the file
// several times and renders it: at these limits it still ends within its 10 s budget on a loaded
// machine.
const (
	MaxDepth = 100
	MaxWork  = 100_000
	MaxLines = 150_000
)

// LimitError is a source Limit refuses to parse: the line where it passes a limit, and which.
type LimitError struct {
	Line int
	Msg  string
}

func (e *LimitError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Limit reports the first line of src that passes MaxDepth, MaxWork or MaxLines, nil when src is within
// them. It reads each line once, before any parse, and never underestimates the depth: a block quote
// needs a ">" on every line it holds, a list item a marker on its first line and two columns of
// indentation (its marker and a space) on the others, so a line can continue or open no more levels
// than its leading ">"s, list markers and half its other leading columns. What a line does not show stays open over blank
// lines and lazy continuation lines (a line of text right after another one), and only a non-blank line
// after a blank one closes what it does not continue. It may overestimate (a line indented 2·MaxDepth
// columns counts as MaxDepth levels; code blocks are not told apart), which only ever refuses more.
func Limit(src []byte) *LimitError { return limit(src, MaxDepth, MaxWork) }

func limit(src []byte, maxDepth, maxWork int) *LimitError {
	src, _ = TrimBOM(src)
	n, open, work, blank := 0, 0, 0, true
	for len(src) > 0 {
		if n++; n > MaxLines {
			return &LimitError{Line: n, Msg: fmt.Sprintf(
				"longer than ccc reads: more than %d lines; shorten the file", MaxLines)}
		}
		end := bytes.IndexByte(src, '\n')
		if end < 0 {
			end = len(src)
		}
		line := src[:end]
		switch {
		case IsBlank(line):
			blank = true
		default:
			d := lineDepth(line)
			if d > maxDepth {
				// A rule's markers open nothing; the block quotes before it still count.
				if rule, at := thematicBreak(line); rule {
					d = lineDepth(line[:at])
				}
			}
			if d > maxDepth {
				return &LimitError{Line: n, Msg: fmt.Sprintf(
					"lists or block quotes nested %d levels deep; ccc reads at most %d", d, maxDepth)}
			}
			if blank || d > open {
				open = d
			}
			blank = false
		}
		// A line with one level open at most is bounded by the file's size, not by this count.
		if open >= 2 {
			if work += 1 + open; work > maxWork {
				return &LimitError{Line: n, Msg: fmt.Sprintf(
					"nested too long for ccc to read: lines inside nested lists or block quotes, each counted once more for every level open on it, pass %d here; shorten the file or flatten its lists", maxWork)}
			}
		}
		if end == len(src) {
			break
		}
		src = src[end+1:]
	}
	return nil
}

// lineDepth is the most block quotes and list items the start of line can continue or open.
func lineDepth(line []byte) int {
	depth, col, free := 0, 0, 0
	for i := 0; i < len(line); {
		// Indentation before a marker may continue list items opened on earlier lines.
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			w := 1
			if line[i] == '\t' {
				w = 4 - col%4
			}
			col, free, i = col+w, free+w, i+1
		}
		if i == len(line) {
			break
		}
		switch n := listMarker(line[i:]); {
		case line[i] == '>':
			depth++
			col, i = col+1, i+1
			if i < len(line) && line[i] == ' ' {
				col, i = col+1, i+1
			}
		case n > 0:
			// The spaces after a marker belong to the item it opens: they continue nothing.
			depth++
			col, i = col+n, i+n
			for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
				if line[i] == '\t' {
					col += 4 - col%4
				} else {
					col++
				}
				i++
			}
		default:
			return depth + free/2
		}
	}
	return depth + free/2
}

// listMarker returns the length of the list marker that starts b ("-", "+", "*", or up to nine digits
// and "." or ")"), followed by white space or the end of the line; 0 when b does not start with one.
func listMarker(b []byte) int {
	n := 0
	switch {
	case b[0] == '-' || b[0] == '+' || b[0] == '*':
		n = 1
	default:
		for n < len(b) && n < 10 && b[n] >= '0' && b[n] <= '9' {
			n++
		}
		if n == 0 || n > 9 || n == len(b) || (b[n] != '.' && b[n] != ')') {
			return 0
		}
		n++
	}
	if n < len(b) && b[n] != ' ' && b[n] != '\t' && b[n] != '\r' {
		return 0
	}
	return n
}

// thematicBreak reports whether line, after its block quote markers, is a thematic break ("- - - -",
// "***"): a row of list markers that is a rule, not a nesting. at is where the rule starts.
func thematicBreak(line []byte) (rule bool, at int) {
	var c byte // the rule's character, once one is seen
	count := 0
	for i, b := range line {
		switch {
		case b == ' ' || b == '\t' || b == '\r' || (b == '>' && count == 0):
		case count == 0 && (b == '-' || b == '*' || b == '_'):
			c, count, at = b, 1, i
		case count > 0 && b == c:
			count++
		default:
			return false, 0
		}
	}
	return count >= 3, at
}
