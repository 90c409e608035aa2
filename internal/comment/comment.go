// Package comment builds the status comment ccc posts for each agent: Build takes it from the
// progress document, Render writes the "Checkpoint Status" Markdown, Truncate cuts it to a
// tracker's limit, WithMarker puts the sink's marker last, and FieldList lays the fields out as a
// list for a Markdown file. The Markdown parsing underneath is package markdown's.
package comment

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"

	"github.com/ccc-checkpoint/ccc/markdown"
)

// Status is what a "Checkpoint Status" comment says, taken from the
// progress document.
type Status struct {
	Updated time.Time
	// TaskN is the current task's position among TaskM tasks; Completed of
	// TaskM are done, Percent per cent.
	TaskN, TaskM, Completed, Percent int
	Task, Status, Next               string
	// Decisions are "what: why" strings; Blockers are their text.
	Decisions, Blockers []string
}

// Heading is the first line of every status body.
const Heading = "## Checkpoint Status"

// Field labels of the status body, in the order they are rendered. The
// truncation below finds lines by these prefixes.
const (
	statusUpdated   = "**Updated:** "
	statusTask      = "**Task:** "
	statusState     = "**Status:** "
	statusProgress  = "**Progress:** "
	statusDecisions = "**Decisions:** "
	statusBlockers  = "**Blockers:** "
	statusNext      = "**Next:** "
)

// Render renders the seed's Step 3 comment format. Every field is one
// line: text from the progress document is collapsed onto that line so that
// it can neither start a heading, list or fence of its own nor push the
// fields below it out of place.
func Render(s Status) string {
	var b strings.Builder
	b.WriteString(Heading + "\n\n")
	if !s.Updated.IsZero() {
		b.WriteString(statusUpdated + s.Updated.UTC().Format(time.RFC3339) + "\n")
	}
	b.WriteString(statusTask + statusTaskText(s) + "\n")
	b.WriteString(statusState + statusOrNone(statusStateText(s)) + "\n")
	if s.TaskM > 0 {
		fmt.Fprintf(&b, "%s%d/%d tasks (%d%%)\n", statusProgress, s.Completed, s.TaskM, s.Percent)
	}
	b.WriteString("\n")
	b.WriteString(statusDecisions + statusOrNone(statusJoin(s.Decisions)) + "\n")
	b.WriteString(statusBlockers + statusOrNone(statusJoin(s.Blockers)) + "\n")
	b.WriteString(statusNext + statusOrNone(statusInline(s.Next)))
	return b.String()
}

func statusTaskText(s Status) string {
	task := statusInline(s.Task)
	switch {
	case s.TaskM > 0 && task != "":
		return fmt.Sprintf("%d of %d — %s", s.TaskN, s.TaskM, task)
	case s.TaskM > 0:
		return fmt.Sprintf("%d of %d", s.TaskN, s.TaskM)
	default:
		return statusOrNone(task)
	}
}

// statusStateText derives the seed's status word when the caller gave none,
// so the line is never blank.
func statusStateText(s Status) string {
	if st := statusInline(s.Status); st != "" {
		return st
	}
	if len(statusJoin(s.Blockers)) > 0 {
		return "Blocked"
	}
	return "In Progress"
}

func statusOrNone(s string) string {
	if s == "" {
		return "None"
	}
	return s
}

func statusJoin(items []string) string {
	var parts []string
	for _, it := range items {
		if t := statusInline(it); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "; ")
}

// statusRawHTML matches a "<" that CommonMark would read as the start of raw
// HTML: an unclosed "<!--" or "<details>" in a task text would swallow the
// rest of the comment.
var statusRawHTML = regexp.MustCompile(`<([A-Za-z!/?])`)

// statusInline makes text safe to place after a field label: all whitespace
// (newlines included) becomes single spaces, control characters go, and a
// "<" that would open raw HTML is escaped. Nothing else is escaped: the text
// no longer starts a line, so Markdown that needs a line start (headings,
// lists, fences, tables) cannot happen.
func statusInline(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r), r == utf8.RuneError:
			return -1
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	return statusRawHTML.ReplaceAllString(s, `\<$1`)
}

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

// FieldList rewrites the field lines of a status body (**Task:**,
// **Status:** and the others, at the start of a line of a top-level
// paragraph) as the items of one list. A comment on GitHub or Linear breaks
// lines where the body does, but a Markdown file rendered in a repository
// joins the lines of a paragraph: there the fields would read as one line.
// The blank line between two groups of fields goes, so the list stays one
// tight list; a label anywhere else (in a code block, in a list already) and
// every other line are left as they are.
func FieldList(body string) string {
	src := []byte(body)
	l := markdown.NewLines(src)
	field := map[int]bool{}
	root := markdown.ParseBlocks(src)
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if _, ok := n.(*ast.Paragraph); !ok {
			continue
		}
		segs := n.Lines()
		for i := range segs.Len() {
			line := l.Of(segs.At(i).Start)
			if statusField(strings.TrimLeft(string(l.Text(line)), " ")) {
				field[line] = true
			}
		}
	}
	if len(field) == 0 {
		return body
	}
	lines := strings.SplitAfter(body, "\n")
	var b strings.Builder
	for i, s := range lines {
		n := i + 1
		switch {
		case field[n]:
			b.WriteString("- " + strings.TrimLeft(s, " "))
		case strings.TrimSpace(s) == "" && statusBetweenFields(lines, field, n):
		default:
			b.WriteString(s)
		}
	}
	return b.String()
}

// statusBetweenFields says whether blank line n has a field line before it
// and one after it, with only blank lines between.
func statusBetweenFields(lines []string, field map[int]bool, n int) bool {
	before, after := n-1, n+1
	for before > 0 && strings.TrimSpace(lines[before-1]) == "" {
		before--
	}
	for after <= len(lines) && strings.TrimSpace(lines[after-1]) == "" {
		after++
	}
	return field[before] && field[after]
}

// statusField says whether a line starts with a field label.
func statusField(line string) bool {
	return line != Heading && statusKnown(line) && line != ""
}
