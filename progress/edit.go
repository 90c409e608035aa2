package progress

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Edits are the changes a checkpoint makes to the document; zero values change nothing.
type Edits struct {
	// Done marks tasks finished. "" or the current task's text finishes the current task; the text of
	// a remaining task finishes that one; any other text is recorded as a completed task.
	Done []string
	// Current sets the task in progress ("description" or "description — status").
	Current   string
	AddTasks  []string
	Decisions []string // "what: why"
	Blockers  []string // "text" or "text (unblocked by: condition)"
	// Unblock removes blockers: the ones whose description equals the text (ignoring case), else the
	// single one that contains it.
	Unblock []string
	Next    string
	Issue   string // KEY-123
	Session string // the timestamp for **Session:**
	Mode    string // "exec:tdd"; a bare "tdd" gets the "exec:" prefix
}

// DefaultMode is the execution mode of a new document when nothing names one: CCC's stop hook runs a
// state without executionMode as quick, so the document says the same.
const DefaultMode = "exec:quick"

// EditError is an edit that could not be applied.
type EditError struct {
	// Edit names the edit as the checkpoint flag spells it, without the dashes: "done", "add-task".
	Edit string
	// Text is the edit's argument as given.
	Text   string
	Reason string
}

func (e *EditError) Error() string {
	if strings.TrimSpace(e.Text) == "" {
		return e.Edit + ": " + e.Reason
	}
	return fmt.Sprintf("%s %q: %s", e.Edit, e.Text, e.Reason)
}

// EditErrors lists the edits Apply could not make, from the error it returned.
func EditErrors(err error) []*EditError {
	var out []*EditError
	var walk func(error)
	walk = func(err error) {
		var ee *EditError
		switch x := err.(type) {
		case nil:
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		default:
			if errors.As(err, &ee) {
				out = append(out, ee)
			}
		}
	}
	walk(err)
	return out
}

// New returns ccc's template for a session on the given issue ("" for none): every canonical section,
// empty, and the protocol's header fields.
func New(issue string, now time.Time) *Document {
	return &Document{
		Title:   "Session Progress",
		Issue:   Issue{Key: strings.TrimSpace(issue)},
		Session: now.UTC().Format(time.RFC3339),
		Mode:    DefaultMode,
		src:     &source{nl: "\n", template: true, pre: preamble{h1: -1}},
	}
}

// Apply makes the edits in a fixed order: Issue, Session, Mode, Done, Current, AddTasks, Decisions,
// Blockers, Unblock, Next (a FAILED: blocker without Next empties it). It applies every edit it can
// and returns the errors of the others, joined.
// Adding something that is already there changes nothing, so repeating a checkpoint is harmless.
func (d *Document) Apply(e Edits) error {
	var errs []error

	if e.Issue != "" {
		key, ok := NormalIssue(e.Issue)
		switch {
		case !ok:
			errs = append(errs, &EditError{Edit: "issue", Text: e.Issue, Reason: "not an issue key like CIA-123"})
		case key != d.Issue.Key:
			d.Issue = Issue{Key: key} // the title belonged to the old issue
		}
	}
	if v := oneLine(e.Session); v != "" {
		d.Session = v
	}
	if v := oneLine(e.Mode); v != "" {
		if !strings.HasPrefix(v, "exec:") {
			v = "exec:" + v
		}
		d.Mode = v
	}
	for _, text := range e.Done {
		if err := d.finish(text, e.Current != ""); err != nil {
			errs = append(errs, err)
		}
	}
	if e.Current != "" {
		if err := d.setCurrent(e.Current); err != nil {
			errs = append(errs, err)
		}
	}
	for _, text := range e.AddTasks {
		t, err := itemFrom("add-task", text)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		task := parseTask(t, kindRemaining)
		if d.hasTask(task.Text) {
			continue
		}
		d.Remaining = append(d.Remaining, adopt(task, d.Remaining, d.Completed))
	}
	for _, text := range e.Decisions {
		t, err := itemFrom("decision", text)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if x := parseDecision(t); !slices.ContainsFunc(d.Decisions, func(y Decision) bool {
			return y.What == x.What && y.Why == x.Why
		}) {
			d.Decisions = append(d.Decisions, x)
		}
	}
	for _, text := range e.Blockers {
		t, err := itemFrom("blocker", text)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		x := parseBlocker(t)
		i := slices.IndexFunc(d.Blockers, func(y Blocker) bool { return y.Description == x.Description })
		switch {
		case i < 0:
			d.Blockers = append(d.Blockers, x)
		case x.UnblockedBy != "":
			d.Blockers[i].UnblockedBy = x.UnblockedBy
		}
	}
	for _, text := range e.Unblock {
		if err := d.unblock(text); err != nil {
			errs = append(errs, err)
		}
	}
	if v := oneLine(e.Next); v != "" {
		d.NextAction = v
	} else if slices.ContainsFunc(e.Blockers, func(b string) bool { return strings.HasPrefix(normaliseText(b), FailurePrefix) }) {
		// A failure ends the work: the next action planned before it no longer holds.
		d.NextAction = ""
	}
	d.dropLoneNone()
	return errors.Join(errs...)
}

// dropLoneNone empties a list whose only item is a literal "None" task left after the others moved
// away: written alone, "- None" is the empty-section marker, so that is what the list means now.
func (d *Document) dropLoneNone() {
	if len(d.Remaining) == 1 && !d.Remaining[0].Checkbox && isNone(d.Remaining[0].Text) {
		d.Remaining = nil
	}
	if len(d.Decisions) == 1 && !d.Decisions[0].Checkbox && d.Decisions[0].Why == "" && isNone(d.Decisions[0].What) {
		d.Decisions = nil
	}
	if len(d.Blockers) == 1 && !d.Blockers[0].Checkbox && d.Blockers[0].UnblockedBy == "" && isNone(d.Blockers[0].Description) {
		d.Blockers = nil
	}
}

// finish marks one task done; see Edits.Done.
func (d *Document) finish(text string, currentSet bool) error {
	text = normaliseText(text)
	if text == "" || d.Current != nil && sameTask(d.Current.Text, text) {
		if d.Current == nil {
			return &EditError{Edit: "done", Text: text, Reason: "there is no current task"}
		}
		d.Completed = append(d.Completed, d.finished(*d.Current))
		d.Current = nil
		if !currentSet {
			if i := slices.IndexFunc(d.Remaining, func(t Task) bool { return !t.Done && !isNone(t.Text) }); i >= 0 {
				t := withStatus(d.Remaining[i])
				d.Remaining = slices.Delete(d.Remaining, i, i+1)
				d.Current = &t
			}
		}
		return nil
	}
	t, err := itemFrom("done", text)
	if err != nil {
		return err
	}
	task := parseTask(t, kindCompleted)
	if i := slices.IndexFunc(d.Remaining, func(r Task) bool { return sameTask(r.Text, task.Text) }); i >= 0 {
		d.Completed = append(d.Completed, d.finished(d.Remaining[i]))
		d.Remaining = slices.Delete(d.Remaining, i, i+1)
		return nil
	}
	if i := slices.IndexFunc(d.Completed, func(c Task) bool { return sameTask(c.Text, task.Text) }); i >= 0 {
		d.Completed[i].Done = true
		return nil
	}
	d.Completed = append(d.Completed, d.finished(task))
	return nil
}

// finished is a task as it is listed under Completed: done, checked if it has a checkbox, no status.
func (d *Document) finished(t Task) Task {
	t.Done, t.Status = true, ""
	return adopt(t, d.Completed, d.Remaining)
}

// adopt gives a task that joins a list a checkbox when every item of the list has one (or, for an empty
// list, every item of the fallback list), so a legacy "- [x]" list stays uniform.
func adopt(t Task, list, fallback []Task) Task {
	if len(list) == 0 {
		list = fallback
	}
	if len(list) > 0 && !slices.ContainsFunc(list, func(x Task) bool { return !x.Checkbox }) {
		t.Checkbox = true
	}
	return t
}

func (d *Document) setCurrent(text string) error {
	t, err := itemFrom("current", text)
	if err != nil {
		return err
	}
	task := parseTask(t, kindCurrent)
	if d.Current != nil && sameTask(d.Current.Text, task.Text) {
		if task.Status != "" {
			d.Current.Status = task.Status
		}
		return nil
	}
	if i := slices.IndexFunc(d.Remaining, func(r Task) bool { return sameTask(r.Text, task.Text) }); i >= 0 {
		task.Checkbox = task.Checkbox || d.Remaining[i].Checkbox
		d.Remaining = slices.Delete(d.Remaining, i, i+1)
	}
	if old := d.Current; old != nil {
		// The task being replaced is not finished: it goes back to the front of the queue.
		back := adopt(Task{Text: old.Text, Checkbox: old.Checkbox}, d.Remaining, d.Completed)
		d.Remaining = slices.Insert(d.Remaining, 0, back)
	}
	d.Current = &task
	return nil
}

func (d *Document) unblock(text string) error {
	text = normaliseText(text)
	if text == "" {
		return &EditError{Edit: "unblock", Reason: "empty text"}
	}
	n := len(d.Blockers)
	d.Blockers = slices.DeleteFunc(d.Blockers, func(b Blocker) bool { return sameTask(b.Description, text) })
	if len(d.Blockers) < n {
		return nil
	}
	var match []int
	for i, b := range d.Blockers {
		if strings.Contains(strings.ToLower(b.Description), strings.ToLower(text)) {
			match = append(match, i)
		}
	}
	switch len(match) {
	case 0:
		return &EditError{Edit: "unblock", Text: text, Reason: "no blocker matches"}
	case 1:
		d.Blockers = slices.Delete(d.Blockers, match[0], match[0]+1)
		return nil
	}
	return &EditError{Edit: "unblock", Text: text, Reason: fmt.Sprintf("%d blockers match; use more of the description", len(match))}
}

// hasTask reports whether a task with exactly this text is listed anywhere.
func (d *Document) hasTask(text string) bool {
	same := func(t Task) bool { return t.Text == text }
	return slices.ContainsFunc(d.Remaining, same) || slices.ContainsFunc(d.Completed, same) ||
		d.Current != nil && same(*d.Current)
}

// itemFrom prepares the text of an edit as the source of a list item, so that it is read exactly as
// Parse would read the item ccc writes for it.
func itemFrom(op, text string) (string, error) {
	t := normaliseText(text)
	if t == "" {
		return "", &EditError{Edit: op, Reason: "empty text"}
	}
	if isNone(t) {
		return "", &EditError{Edit: op, Text: text, Reason: fmt.Sprintf("%q marks an empty section", t)}
	}
	return t, nil
}

// normaliseText gives text the shape Parse gives item text: "\n" line endings, no trailing spaces, no
// leading or trailing blank lines, no indentation on the first line.
func normaliseText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r\v\f")
	}
	return strings.TrimLeft(strings.Trim(strings.Join(lines, "\n"), "\n"), " \t")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// sameTask reports whether text names a task: its whole text or, for a multi-line task, its first line,
// ignoring case and surrounding space.
func sameTask(task, text string) bool {
	text = strings.TrimSpace(text)
	first, _, _ := strings.Cut(task, "\n")
	return strings.EqualFold(strings.TrimSpace(task), text) || strings.EqualFold(strings.TrimSpace(first), text)
}
