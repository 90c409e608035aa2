package progress

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ccc-checkpoint/ccc/markdown"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// ErrBroken is what every *BrokenError matches with errors.Is: a progress file ccc must neither rewrite nor
// report from.
var ErrBroken = errors.New("progress file is broken")

// FixHint says how to repair a file Check or CheckRewrite refused.
const FixHint = "fix it by hand (`ccc validate` lists the lines) or put the last good copy back with `ccc restore --file progress`"

// BrokenError is a progress file that is too broken to touch: whatever ccc made of it would be wrong (a
// merge conflict read as tasks, a file with no section read as "0 of 0 tasks, complete"), so a checkpoint
// writes nothing, reports nothing to a tracker and archives nothing.
type BrokenError struct {
	Path    string
	Line    int
	Problem string
}

func (e *BrokenError) Error() string {
	return fmt.Sprintf("%s:%d: %s; %s", e.Path, e.Line, e.Problem, FixHint)
}

// Is makes errors.Is(err, ErrBroken) true.
func (e *BrokenError) Is(target error) bool { return target == ErrBroken }

// Check decides whether ccc may use a progress file. It returns a *BrokenError for a file that is too
// broken to touch, nil for one that is fine or repairable (see below), and nil for input that is not
// text, which Parse reports itself.
//
// Too broken to touch:
//   - merge conflict markers (Conflicts): either side may be the truth, and only a person can tell;
//   - Markdown past markdown.Limit (lists or block quotes nested more than 100 levels deep, so many
//     lines inside nested ones that a parse would outlast a hook's budget, or more than 150,000 lines):
//     no parse reads it in bounded time. A long flat list of tasks is fine;
//   - text with none of the sections ccc knows (no "## Current Task", "## Completed Tasks", …): it is not
//     a progress document, and normalising it would report 0 of 0 tasks as complete.
//
// Repairable (ccc adds or rewrites the part): a missing optional section, a missing header field, an
// empty or blank file, duplicate sections (the first is read).
func Check(path string, src []byte) error {
	_, err := CheckParse(path, src)
	var be *BrokenError
	if errors.As(err, &be) {
		return be
	}
	return nil
}

// CheckParse is Check, then Parse, with one parse between them: a *BrokenError for a file Check refuses,
// else what Parse returns. A checkpoint reads its file with it.
func CheckParse(path string, src []byte) (*Document, error) {
	if c := Conflicts(path, src); len(c) > 0 {
		return nil, &BrokenError{Path: path, Line: c[0].Line, Problem: fmt.Sprintf(
			"unresolved merge conflict (%d marker lines, the first here)", len(c))}
	}
	if msg := tooBig(src); msg != "" {
		return nil, &BrokenError{Path: path, Line: 1, Problem: msg}
	}
	if e := markdown.Limit(src); e != nil {
		return nil, &BrokenError{Path: path, Line: e.Line, Problem: e.Msg}
	}
	d, err := Parse(src)
	if err != nil || len(bytes.TrimSpace(src)) == 0 {
		return d, err
	}
	for _, present := range d.src.present {
		if present {
			return d, nil
		}
	}
	return nil, &BrokenError{Path: path, Line: 1, Problem: "none of the sections ccc knows (## Completed Tasks, ## Current Task, ## Remaining Tasks, …): not a progress document"}
}

// Conflicts lists the merge conflict marker lines of src, in order. A conflict starts with a line of
// exactly seven '<' (alone or followed by a space: "<<<<<<< HEAD") and ends with the next line of seven
// '>'; inside it, the "|||||||" (diff3 base) and "=======" lines are markers too. A "=======" outside such
// a region is Markdown (a heading underline) and a "<<<<<<<" with no end after it is text: neither is
// reported. Markers count wherever they start a line, in a code block too; an example meant to show one
// is indented.
func Conflicts(path string, src []byte) []Problem {
	// Every conflict starts with seven '<': a file without them (every checkpoint's) is not copied or
	// cut into lines at all (issue 26: 0.5 MB copied per checkpoint of 10,000 tasks).
	if !bytes.Contains(src, []byte("<<<<<<<")) {
		return nil
	}
	// Lines are cut one at a time, never all at once: a file of a few megabytes of short lines must not
	// cost millions of strings before a hook has read anything.
	s := string(src)
	var ps []Problem
	for off, n := 0, 1; off < len(s); {
		line, next := lineAt(s, off)
		if !isMarker(line, '<') {
			off, n = next, n+1
			continue
		}
		end := -1
		for o := next; o < len(s); {
			l, nx := lineAt(s, o)
			if isMarker(l, '>') {
				end = o
				break
			}
			o = nx
		}
		if end < 0 {
			break // no later conflict can end either
		}
		for o, k := off, n; ; k++ {
			l, nx := lineAt(s, o)
			l = strings.TrimRight(l, "\r")
			var what string
			switch {
			case o == off:
				what = "start of a merge conflict"
			case o == end:
				what = "end of a merge conflict"
			case isMarker(l, '|'):
				what = "merge conflict base marker"
			case strings.TrimRight(l, " \t") == "=======":
				what = "merge conflict separator"
			}
			if what != "" {
				l = redact.Clip(l, 41)
				ps = append(ps, Problem{Path: path, Line: k, Message: fmt.Sprintf("%s %q", what, l)})
			}
			if o == end {
				off, n = nx, k+1
				break
			}
			o = nx
		}
	}
	return ps
}

// lineAt returns the line of s that starts at off, without its "\n", and the offset of the next line.
func lineAt(s string, off int) (line string, next int) {
	if i := strings.IndexByte(s[off:], '\n'); i >= 0 {
		return s[off : off+i], off + i + 1
	}
	return s[off:], len(s)
}

// isMarker reports whether line is a conflict marker made of seven c: exactly seven, then the end of the
// line or a space and a label.
func isMarker(line string, c byte) bool {
	line = strings.TrimRight(line, "\r")
	if len(line) < 7 || line[:7] != strings.Repeat(string(c), 7) {
		return false
	}
	return len(line) == 7 || line[7] == ' ' || line[7] == '\t'
}

// CheckRewrite refuses a rewrite that the next run could not read (over MaxSize, past markdown.Limit) or
// that would drop more than it keeps: it counts the tasks of orig
// (Completed, Current and Remaining, matched by their text without checkbox or ✓, in any of the three
// sections) that out still has, and returns a *BrokenError when fewer are kept than dropped. No edit or
// alignment ccc makes drops a task, so this only ever stops a misreading; a file with no tasks passes.
func CheckRewrite(path string, orig, out []byte) error {
	// What ccc writes, the next run must read: a rewrite over the size or parse limits is refused too.
	if msg := tooBig(out); msg != "" {
		return &BrokenError{Path: path, Line: 1, Problem: "ccc's rewrite of the file would be " + msg + "; refused"}
	}
	after, err := Parse(out)
	if err != nil {
		return unreadable(path, err)
	}
	before, err := Parse(orig)
	if err != nil {
		return nil
	}
	return countDropped(path, orig, before.taskTexts(), after.taskTexts())
}

func (d *Document) CheckRender(path string, out []byte) error {
	if msg := tooBig(out); msg != "" {
		return &BrokenError{Path: path, Line: 1, Problem: "ccc's rewrite of the file would be " + msg + "; refused"}
	}
	err := checkText(out)
	if e := markdown.Limit(out); err == nil && e != nil {
		err = &ParseError{Line: e.Line, Msg: e.Msg}
	}
	if err != nil {
		return unreadable(path, err)
	}
	var before Document
	var orig []byte
	if d.src != nil {
		before, orig = d.src.snap, d.src.orig
	}
	return countDropped(path, orig, before.taskTexts(), d.taskTexts())
}

func unreadable(path string, err error) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return &BrokenError{Path: path, Line: 1, Problem: fmt.Sprintf("ccc's rewrite of the file would not be readable (its line %d: %s); refused", pe.Line, pe.Msg)}
	}
	return &BrokenError{Path: path, Line: 1, Problem: "ccc's rewrite of the file would not be text; refused"}
}

// countDropped refuses a rewrite that keeps fewer of the tasks before than it drops; see CheckRewrite.
func countDropped(path string, orig []byte, before, after []string) error {
	// The usual rewrite keeps the tasks in their order (a task done moves
	// from Current to Completed, keeping its place): the common prefix is
	// kept without hashing it (issue 26: 10,000 tasks were a map of 10,000
	// keys per checkpoint). Greedy matching in before's order keeps those
	// same tasks, so the count and the first dropped task do not change.
	p := 0
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	before, after = before[p:], after[p:]
	if len(before) == 0 {
		return nil
	}
	have := make(map[string]int, len(after))
	for _, t := range after {
		have[taskKey(t)]++
	}
	kept, dropped, firstDropped := p, 0, ""
	for _, t := range before {
		if k := taskKey(t); have[k] > 0 {
			have[k]--
			kept++
			continue
		}
		if dropped == 0 {
			firstDropped = t
		}
		dropped++
	}
	if dropped <= kept {
		return nil
	}
	return &BrokenError{Path: path, Line: lineOf(orig, firstDropped), Problem: fmt.Sprintf(
		"ccc's rewrite would drop %d of the file's %d tasks (this one first) and keep %d; refused", dropped, dropped+kept, kept)}
}

// taskTexts lists the texts of every task, in one slice of the right size:
// a copy of the tasks themselves, grown as it went, was 18 MB at 100,000.
func (d *Document) taskTexts() []string {
	ts := make([]string, 0, len(d.Completed)+1+len(d.Remaining))
	for _, t := range d.Completed {
		ts = append(ts, t.Text)
	}
	if d.Current != nil {
		ts = append(ts, d.Current.Text)
	}
	for _, t := range d.Remaining {
		ts = append(ts, t.Text)
	}
	return ts
}

func taskKey(text string) string {
	if plainKey(text) {
		return text // already its own key: no copy per task
	}
	return strings.ToLower(strings.Join(strings.Fields(text), " "))
}

// plainKey reports whether text is its own taskKey: ASCII without capitals
// or control characters, single spaces between words, none around them.
func plainKey(text string) bool {
	if text == "" || text[0] == ' ' || text[len(text)-1] == ' ' {
		return text == ""
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= utf8.RuneSelf || c < ' ' || c >= 'A' && c <= 'Z' || c == ' ' && text[i+1] == ' ' {
			return false
		}
	}
	return true
}

// lineOf is the 1-based line of src that holds the first line of text (1 when none does).
func lineOf(src []byte, text string) int {
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if first == "" {
		return 1
	}
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		// A list item: the text follows the marker and the checkbox.
		rest, _, _ := splitBox(strings.TrimLeft(l, " \t-*+0123456789.)"))
		if strings.HasPrefix(rest, first) {
			return i + 1
		}
	}
	for i, l := range lines {
		if strings.Contains(l, first) {
			return i + 1
		}
	}
	return 1
}
