// Package progress reads, edits and writes .ccc-progress.md, the session's single handoff artifact.
//
// Agents write the file by hand, so Parse accepts both the checkpoint-protocol layout and the older
// execution-engine layout and keeps everything it does not understand. Render writes every section the
// model did not change with its original bytes and rewrites only the edited ones, so that
// Render(Parse(b)) == b for an unchanged file and Parse(Render(d)) describes the same model as d.
package progress

import (
	"fmt"
	"strings"
)

// MaxSize is the largest progress file callers should read; Parse and Check refuse a bigger one, and
// CheckRewrite a rewrite that would be bigger.
const MaxSize = 10 << 20

// Document is the parsed progress file. The exported fields are the model; Render writes them back
// into the source they were parsed from.
type Document struct {
	// Title is the text of the first level-1 heading ("Session Progress").
	Title string
	// Issue is the tracking issue, from the **Issue:** header field or the legacy "Linear Issue" section.
	Issue Issue
	// Session, Mode and NextAction are the **Session:**, **Execution Mode:** and **Next Action:** fields.
	Session    string
	Mode       string
	NextAction string
	// Fields are the other **Name:** value header fields, in order.
	Fields []Field

	// Goal is the legacy "Goal" section, as free text.
	Goal      string
	Completed []Task
	// Current is the task in progress, nil when there is none.
	Current   *Task
	Remaining []Task
	Decisions []Decision
	Blockers  []Blocker
	// Learnings is the legacy "Learnings" section.
	Learnings []Learning
	// ContinuationPrompt is the "Continuation Prompt" section, exactly as written, without the blank
	// lines around it and without ccc's mark.
	ContinuationPrompt string
	// PromptMark is the hash in the hidden comment ccc writes right after a prompt it generated,
	// `<!-- ccc:generated sha256:1a2b3c4d5e6f -->` (the section's last line); "" when the section has
	// none. PromptByCCC compares it with the prompt's text.
	PromptMark string

	src *source
}

// Issue is a tracker issue: a key such as CIA-123 and an optional title.
type Issue struct {
	Key   string
	Title string
}

// String returns the issue as the header writes it: "CIA-123 — Title".
func (i Issue) String() string {
	if i.Title == "" {
		return i.Key
	}
	return i.Key + " — " + i.Title
}

// Field is a header line "**Name:** Value" that ccc does not interpret.
type Field struct {
	Name  string
	Value string
}

// Task is an item of the Completed, Current or Remaining sections.
type Task struct {
	// Text is the description: the item's source with the list marker, the checkbox and (in
	// Completed) the trailing ✓ removed; continuation lines are joined with "\n".
	Text string
	// Status is what follows " — " in the Current task ("in progress"); empty elsewhere.
	Status string
	// Checkbox records that the item was written as a task-list item ("- [ ]", "- [x]").
	Checkbox bool
	// Done is the checkbox state for a checkbox item; otherwise true in Completed and false elsewhere.
	Done bool
	// Mark is the identity of a task captured from an agent's own list ("claude:3", "claude:3 dropped"),
	// kept in a hidden comment at the end of the item's first line, `<!-- ccc:task claude:3 -->`; "" for
	// a task a person or `ccc checkpoint` wrote. It never appears in Text.
	Mark string
}

// Decision is an item of "Decisions Made": "what: why".
type Decision struct {
	What     string
	Why      string
	Checkbox bool
	Checked  bool
}

// Blocker is an item of "Blockers" (legacy "Blocked / Flagged"): "description (unblocked by: condition)".
// A checked checkbox item is a resolved blocker.
type Blocker struct {
	Description string
	UnblockedBy string
	Checkbox    bool
	Checked     bool
}

// Learning is an item of the legacy "Learnings" section: "[2026-11-02 14:05] text".
type Learning struct {
	Time     string
	Text     string
	Checkbox bool
	Checked  bool
}

// Layout is the shape of a progress file.
type Layout int

const (
	// Canonical is the checkpoint-protocol layout (seed 004, step 1).
	Canonical Layout = iota
	// Legacy is the execution-engine layout: Goal, Linear Issue, Learnings, Blocked / Flagged and no
	// Continuation Prompt.
	Legacy
)

func (l Layout) String() string {
	if l == Legacy {
		return "legacy"
	}
	return "canonical"
}

// Status is the state of the session as the tracker comment shows it.
type Status string

const (
	NotStarted Status = "Not Started"
	InProgress Status = "In Progress"
	Blocked    Status = "Blocked"
	Complete   Status = "Complete"
)

func (s Status) String() string { return string(s) }

// ParseError reports input that is not text, or Markdown past markdown.Limit.
type ParseError struct {
	// Line is the 1-based line of the offending byte.
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("progress: line %d: %s", e.Line, e.Msg) }

// Layout reports the document's layout. It is derived from the sections the document has (or will have
// when rendered), so that it follows edits: a legacy document that gains a Continuation Prompt becomes
// canonical.
func (d *Document) Layout() Layout {
	legacy := d.Goal != "" || len(d.Learnings) > 0
	prompt := d.ContinuationPrompt != "" || d.PromptMark != ""
	if s := d.src; s != nil {
		legacy = legacy || s.present[kindGoal] || s.present[kindIssue] || s.present[kindLearnings] || s.flagged
		prompt = prompt || s.present[kindPrompt] || s.template
	}
	if legacy && !prompt {
		return Legacy
	}
	return Canonical
}

// TaskM returns the number of tasks: completed, current and remaining.
func (d *Document) TaskM() int {
	m := 0
	for _, list := range [][]Task{d.Completed, d.Remaining} {
		for _, t := range list {
			if !t.Dropped() {
				m++
			}
		}
	}
	if d.Current != nil && !d.Current.Dropped() {
		m++
	}
	return m
}

// Dropped reports whether a captured task left its agent's list unfinished (its mark's "dropped"
// flag): it is neither work done nor work left, and counts in no total.
func (t Task) Dropped() bool { return strings.HasSuffix(t.Mark, " dropped") }

// done counts finished tasks wherever they are listed: a checked item in Remaining is done, an
// unchecked one in Completed is not.
func (d *Document) done() int {
	n := 0
	for _, list := range [][]Task{d.Completed, d.Remaining} {
		for _, t := range list {
			if t.Done && !t.Dropped() {
				n++
			}
		}
	}
	if d.Current != nil && d.Current.Done && !d.Current.Dropped() {
		n++
	}
	return n
}

// active reports whether a current task exists that is not already checked off.
func (d *Document) active() bool { return d.Current != nil && !d.Current.Done }

// TaskN returns the number of the task being worked on: the completed tasks plus the current one.
func (d *Document) TaskN() int {
	n := d.done()
	if d.active() {
		n++
	}
	return n
}

// Percent returns the share of done tasks, rounded down; 0 when there are no tasks.
func (d *Document) Percent() int {
	m := d.TaskM()
	if m == 0 {
		return 0
	}
	return d.done() * 100 / m
}

// Status returns Blocked while an unresolved blocker exists, NotStarted while there is no task at all
// (no plan is not a finished plan), Complete when no task is left to do and InProgress otherwise.
func (d *Document) Status() Status {
	for _, b := range d.Blockers {
		if !(b.Checkbox && b.Checked) {
			return Blocked
		}
	}
	if d.TaskM() == 0 {
		return NotStarted
	}
	if d.done() == d.TaskM() {
		return Complete
	}
	return InProgress
}
