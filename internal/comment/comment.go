// Package comment builds the status comment ccc posts for each agent: Build takes it from the
// progress document, Render writes the "Checkpoint Status" Markdown, Truncate cuts it to a
// tracker's limit, WithMarker puts the sink's marker last, and FieldList lays the fields out as a
// list for a Markdown file. The Markdown parsing underneath is package markdown's.
package comment

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
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
var statusRawHTML = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<([A-Za-z!/?])`) })

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
	return statusRawHTML().ReplaceAllString(s, `\<$1`)
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
