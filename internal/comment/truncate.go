package comment

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ccc-checkpoint/ccc/markdown"
)

// TruncateNote is the line Truncate adds, naming the file that holds
// the full status.
func TruncateNote(progressPath string) string {
	return "_Truncated: the full status is in " + progressPath + "._"
}

// Truncate cuts a status body to at most limit characters (runes).
// A body within the limit is returned unchanged, except that a code block or
// HTML block it leaves open is closed (markdown.CloseOpen), so that whatever a caller
// appends after it is not swallowed. Otherwise the heading and
// the Updated, Task, Status, Progress, Blockers and Next lines are kept, the
// note is appended after a blank line, and text is cut in this order until
// the body fits: the Decisions text, then lines the status format does not
// know (last first), then the Blockers, Next and Task texts together, the
// longest first, so that each keeps as much as the others. A cut text ends
// in "…". A block the cut leaves open (a long log cut inside its fence) is
// closed before the note, and the closing line counts toward the limit. Only
// when even the skeleton does not fit is the result hard-cut.
func Truncate(body string, limit int, note string) string {
	if limit <= 0 {
		return ""
	}
	if utf8.RuneCountInString(body) <= limit {
		if closed := markdown.CloseOpen(body); utf8.RuneCountInString(closed) <= limit {
			return closed
		}
	}
	tail := "\n" + note
	// The closing line depends on where the cut falls, so the cut is made
	// again with room for it until the room suffices; a shorter cut can only
	// need a closer the room already holds, or none.
	var out string
	for reserve, try := 0, 0; try < 4; try++ {
		lines := statusCut(body, limit-reserve, tail)
		text := strings.Join(lines, "\n")
		closed := markdown.CloseOpen(text)
		out = tail
		if len(lines) > 0 {
			out = closed + "\n" + tail
		}
		extra := utf8.RuneCountInString(closed) - utf8.RuneCountInString(text)
		if utf8.RuneCountInString(out) <= limit || extra <= reserve {
			break
		}
		reserve = extra
	}
	if utf8.RuneCountInString(out) > limit {
		out = string([]rune(out)[:limit])
	}
	return out
}

// statusCut is Truncate's cut without the closing: the lines of body
// kept so that they and tail (the blank line and the note), joined by a
// newline, fit limit where the skeleton allows.
func statusCut(body string, limit int, tail string) []string {
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	tailLen := utf8.RuneCountInString(tail)
	over := func() int { return statusRuneLen(lines) + 1 + tailLen - limit }

	if i := statusLineWith(lines, statusDecisions); i >= 0 {
		value := []rune(strings.TrimPrefix(lines[i], statusDecisions))
		lines[i] = statusDecisions + statusCap(value, len(value)-over()-1)
	}
	// The excess is kept up to date rather than recounted: a long log has
	// tens of thousands of lines to drop.
	for i, excess := len(lines)-1, over(); i >= 0 && excess > 0; i-- {
		if !statusKnown(lines[i]) {
			excess -= utf8.RuneCountInString(lines[i]) + 1
			lines = append(lines[:i], lines[i+1:]...)
		}
	}
	lines = statusSqueezeBlank(lines)

	if excess := over(); excess > 0 {
		var idx []int
		var values [][]rune
		for _, label := range []string{statusBlockers, statusNext, statusTask} {
			if i := statusLineWith(lines, label); i >= 0 {
				idx = append(idx, i)
				values = append(values, []rune(strings.TrimPrefix(lines[i], label)))
			}
		}
		c := statusFairCap(values, excess)
		for k, i := range idx {
			label := lines[i][:len(lines[i])-len(string(values[k]))]
			lines[i] = label + statusCap(values[k], c)
		}
	}
	return lines
}

// statusCap keeps at most n runes of value, marking a cut with "…".
func statusCap(value []rune, n int) string {
	if n >= len(value) {
		return string(value)
	}
	return strings.TrimRightFunc(string(value[:max(n, 0)]), unicode.IsSpace) + "…"
}

// statusFairCap finds the largest length c such that capping every value at c
// runes (plus "…") saves at least excess runes.
func statusFairCap(values [][]rune, excess int) int {
	saved := func(c int) int {
		n := 0
		for _, v := range values {
			if len(v) > c {
				n += len(v) - c - 1
			}
		}
		return n
	}
	longest := 0
	for _, v := range values {
		longest = max(longest, len(v))
	}
	lo, hi := 0, longest
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if saved(mid) >= excess {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

func statusLineWith(lines []string, label string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, label) {
			return i
		}
	}
	return -1
}

// statusSqueezeBlank drops blank lines left doubled, or trailing, by removals.
func statusSqueezeBlank(lines []string) []string {
	out := lines[:0]
	for i, l := range lines {
		if l == "" && (i == len(lines)-1 || (len(out) > 0 && out[len(out)-1] == "")) {
			continue
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// statusKnown says whether a line belongs to the status format's skeleton: blank
// lines between the blocks stay so the layout survives.
func statusKnown(line string) bool {
	if line == "" || line == Heading {
		return true
	}
	for _, label := range []string{statusUpdated, statusTask, statusState, statusProgress, statusDecisions, statusBlockers, statusNext} {
		if strings.HasPrefix(line, label) {
			return true
		}
	}
	return false
}

// statusRuneLen is the length in runes of lines joined by newlines.
func statusRuneLen(lines []string) int {
	n := len(lines) - 1
	for _, l := range lines {
		n += utf8.RuneCountInString(l)
	}
	return n
}
