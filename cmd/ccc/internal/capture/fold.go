package capture

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ccc-checkpoint/ccc/progress"
)

// Statuses of an agent's task.
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Completed  Status = "completed"
	Cancelled  Status = "cancelled"
	Blocked    Status = "blocked"
)

// droppedFlag follows the id in the mark of a task that left the agent's list.
const droppedFlag = " dropped"

// droppedNote ends the text of a dropped task, cancelledNote a cancelled
// one's, blockedNote a blocked one's without blockedBy ids.
const (
	droppedNote   = " (dropped)"
	cancelledNote = " (cancelled)"
	blockedNote   = " (blocked)"
)

// Fold merges an agent's list into the progress document and reports
// whether the document changed. The rules (DESIGN.md, "Capture"):
//
//   - Only tasks that carry this agent's mark (progress.Task.Mark,
//     "<agent>:<id>") are ever changed. A task a person or `ccc checkpoint`
//     wrote with a list task's text (spacing and case aside) is that task
//     and takes its mark; any other keeps its text.
//   - completed → Completed Tasks; in_progress → Current Task with the
//     activeForm as its status (a typed current task the list does not name
//     gives way and leads Remaining); pending and blocked →
//     Remaining Tasks, in_progress ones first; cancelled → Completed Tasks,
//     checked off "(cancelled)" with the mark's "dropped" flag (no work left,
//     none done). Open blockedBy ids become a note, "(blocked by: <subject>,
//     …)"; blocked without them, "(blocked)".
//   - A task is found by its mark: the tool's own id, else TextID of its
//     text (DESIGN.md's identity table), so a list that shrinks or restarts
//     never lends a finished task's mark to another. A task with a tool id
//     is renamed in place; an item without one only when it is the one
//     item that changed (rename).
//     A task whose id has no mark yet takes over a marked task of the same
//     agent with the same text whose id left the list (a new session
//     re-creating its list from the progress file).
//   - A marked task that left the list stays where it is: done when it was
//     completed, else checked off with "(dropped)" and the mark's "dropped"
//     flag; it comes back when its id does.
//   - Tasks keep their place; new ones are added at the end of their
//     section, in the list's order.
func Fold(doc *progress.Document, list List) (changed bool) {
	f := folder{agent: list.Agent, byID: map[string]Task{}}
	seen := map[string]int{}
	for _, t := range list.Tasks {
		if strings.TrimSpace(t.Text) == "" {
			continue
		}
		if t.ID == "" {
			t.ID = TextID(t.Text)
			if seen[t.ID]++; seen[t.ID] > 1 {
				t.ID += "-" + strconv.Itoa(seen[t.ID])
			}
		} else {
			t.ID = SafeID(t.ID)
		}
		if _, dup := f.byID[t.ID]; !dup {
			f.byID[t.ID] = t
			f.order = append(f.order, t)
		}
	}
	before := snapshot(doc)
	f.adopt(doc)
	f.fold(doc)
	return !before.equal(snapshot(doc))
}

type folder struct {
	agent  string
	byID   map[string]Task
	order  []Task
	placed map[string]bool
	// current is the id of the list task that takes the Current slot.
	current string
}

// where is the section a list task belongs in.
func (f *folder) where(t Task) section {
	switch t.Status {
	case Completed:
		return inCompleted
	case InProgress:
		if t.ID == f.current {
			return inCurrent
		}
		return inRemaining
	case Cancelled:
		return inCancelled
	}
	return inRemaining
}

// update rewrites a marked task for its list entry, keeping its form.
func (f *folder) update(old progress.Task, lt Task, s section) progress.Task {
	nt := progress.Task{Text: f.text(lt), Checkbox: old.Checkbox, Mark: f.mark(lt.ID)}
	switch s {
	case inCompleted:
		nt.Done = true
	case inCurrent:
		nt.Status = lt.ActiveForm
		if nt.Status == "" {
			nt.Status = "in progress"
		}
	case inCancelled:
		nt = progress.Task{Text: nt.Text + cancelledNote, Checkbox: true, Done: true, Mark: nt.Mark + droppedFlag}
	}
	return nt
}

// id is the list id of a task this agent marked, and whether it was dropped.
func (f *folder) id(t progress.Task) (id string, dropped, ours bool) {
	rest, ok := strings.CutPrefix(t.Mark, f.agent+":")
	if !ok || f.agent == "" {
		return "", false, false
	}
	id, dropped = strings.CutSuffix(rest, droppedFlag)
	return id, dropped, true
}

func (f *folder) idOf(t progress.Task) string {
	id, _, _ := f.id(t)
	return id
}

func (f *folder) mark(id string) string { return f.agent + ":" + id }

// tasks lists pointers to every task of the document's three sections.
func tasks(doc *progress.Document) []*progress.Task {
	var out []*progress.Task
	for i := range doc.Completed {
		out = append(out, &doc.Completed[i])
	}
	if doc.Current != nil {
		out = append(out, doc.Current)
	}
	for i := range doc.Remaining {
		out = append(out, &doc.Remaining[i])
	}
	return out
}

// adopt gives a list task that no marked task names the mark of a marked
// task with the same text whose id is gone from the list, else of a task
// without any mark with the same text: one that was typed (`ccc checkpoint
// --current/--add-task`) or written by hand before the agent listed it is
// the same task, not a second one beside it.
func (f *folder) adopt(doc *progress.Document) {
	known := map[string]bool{}
	var orphans, typed []*progress.Task
	for _, t := range tasks(doc) {
		if id, _, ours := f.id(*t); ours {
			known[id] = true
			if _, listed := f.byID[id]; !listed {
				orphans = append(orphans, t)
			}
		} else if t.Mark == "" {
			typed = append(typed, t)
		}
	}
	take := func(from []*progress.Task, lt Task, text func(string) string) bool {
		for i, o := range from {
			if o != nil && sameText(text(o.Text), lt.Text) {
				o.Mark = f.mark(lt.ID)
				from[i] = nil
				return true
			}
		}
		return false
	}
	same := func(s string) string { return s }
	var unmatched []Task
	for _, lt := range f.order {
		if known[lt.ID] || lt.Status == Cancelled {
			continue
		}
		if !take(orphans, lt, baseText) && !take(typed, lt, same) && byText(lt.ID) {
			unmatched = append(unmatched, lt)
		}
	}
	f.rename(doc, unmatched)
}

// rename gives an item without an id of its own that took a new text the
// mark of the task it was: only when it is the one item that changed, the
// list is as long as before (the others kept their text), and the old
// task is not finished. Anything else is a new task beside the old one.
func (f *folder) rename(doc *progress.Document, unmatched []Task) {
	if len(unmatched) != 1 || len(f.order) < 2 {
		return
	}
	var gone []*progress.Task
	live := 0
	for _, t := range tasks(doc) {
		id, dropped, ours := f.id(*t)
		if !ours || dropped {
			continue
		}
		live++
		if _, listed := f.byID[id]; !listed {
			gone = append(gone, t)
		}
	}
	if len(gone) != 1 || live != len(f.order) || gone[0].Done || !byText(f.idOf(*gone[0])) {
		return
	}
	gone[0].Mark = f.mark(unmatched[0].ID)
}

// baseText is a captured task's text without ccc's notes.
func baseText(s string) string {
	for _, note := range []string{droppedNote, cancelledNote, blockedNote} {
		s = strings.TrimSuffix(s, note)
	}
	if i := strings.LastIndex(s, " (blocked by: "); i >= 0 && strings.HasSuffix(s, ")") {
		s = s[:i]
	}
	return s
}

// sameText compares texts as a person reads them: spacing and case aside.
func sameText(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// text is how a list task reads in the progress file.
func (f *folder) text(t Task) string {
	text := strings.Join(strings.Fields(t.Text), " ")
	if t.Status == Completed || t.Status == Cancelled {
		return text
	}
	var open []string
	for _, b := range t.BlockedBy {
		bt, ok := f.byID[SafeID(b)]
		switch {
		case !ok:
			open = append(open, "#"+b)
		case bt.Status != Completed && bt.Status != Cancelled:
			open = append(open, strings.Join(strings.Fields(bt.Text), " "))
		}
	}
	switch {
	case len(open) > 0:
		text += " (blocked by: " + strings.Join(open, ", ") + ")"
	case t.Status == Blocked:
		text += blockedNote
	}
	return text
}

// section is where a list task belongs.
type section int

const (
	inCompleted section = iota
	inCurrent
	inRemaining
	inCancelled // shown in Completed
)

func (f *folder) fold(doc *progress.Document) {
	// The current slot: the first in_progress task. The agent says what it
	// works on now, so a typed or hand-written current task it does not
	// list gives way and leads Remaining, unfinished.
	var current string
	for _, t := range f.order {
		if t.Status == InProgress {
			current = t.ID
			break
		}
	}
	f.current = current
	var displaced []progress.Task
	if doc.Current != nil && current != "" && !f.ours(*doc.Current) {
		t := *doc.Current
		if t.Status != "" { // Remaining has no status: the words stay in the text
			t.Text, t.Status = t.Text+" — "+t.Status, ""
		}
		displaced = append(displaced, t)
		doc.Current = nil
	}
	where := f.where
	f.placed = map[string]bool{}
	var completed, remaining, dropped []progress.Task
	var cur *progress.Task
	var lead []progress.Task // captured in_progress tasks that do not take the Current slot

	update := f.update
	// keep places an existing task: a person's stays, a marked one follows its list entry.
	keep := func(t progress.Task, here section, out *[]progress.Task) {
		id, wasDropped, ours := f.id(t)
		if !ours {
			*out = append(*out, t)
			return
		}
		lt, listed := f.byID[id]
		if !listed || f.placed[id] {
			switch {
			case here == inCompleted && !wasDropped:
				*out = append(*out, t) // done before it left the list
			case wasDropped:
				*out = append(*out, t)
			case here == inCurrent:
				dropped = append(dropped, dropTask(t, t.Text, t.Mark+droppedFlag))
			default:
				*out = append(*out, dropTask(t, t.Text, t.Mark+droppedFlag))
			}
			return
		}
		s := where(lt)
		in := s
		if s == inCancelled {
			in = inCompleted
		}
		if in == here {
			f.placed[id] = true
			if lt.Status == InProgress && here == inRemaining {
				lead = append(lead, update(t, lt, s))
				return
			}
			*out = append(*out, update(t, lt, s))
		}
		// Elsewhere: placed below, where it belongs now.
	}
	for _, t := range doc.Completed {
		keep(t, inCompleted, &completed)
	}
	if doc.Current != nil {
		var one []progress.Task
		keep(*doc.Current, inCurrent, &one)
		if len(one) > 0 {
			cur = &one[0]
		}
	}
	for _, t := range doc.Remaining {
		keep(t, inRemaining, &remaining)
	}
	// List tasks not placed yet: moved or new.
	for _, lt := range f.order {
		if f.placed[lt.ID] {
			continue
		}
		old := f.find(doc, lt.ID)
		f.placed[lt.ID] = true
		switch s := where(lt); s {
		case inCompleted:
			completed = append(completed, update(old, lt, s))
		case inCurrent:
			t := update(old, lt, s)
			t.Done = false
			cur = &t
		case inRemaining:
			t := update(old, lt, s)
			t.Done = false
			if lt.Status == InProgress {
				lead = append(lead, t)
			} else {
				remaining = append(remaining, t)
			}
		case inCancelled:
			completed = append(completed, update(old, lt, s))
		}
	}
	doc.Completed = completed
	doc.Current = cur
	doc.Remaining = slices.Concat(displaced, lead, remaining, dropped)
}

// ours reports whether t carries this agent's mark.
func (f *folder) ours(t progress.Task) bool {
	_, _, ours := f.id(t)
	return ours
}

// find returns the marked task with list id id, or a zero task.
func (f *folder) find(doc *progress.Document, id string) progress.Task {
	for _, t := range tasks(doc) {
		if tid, _, ours := f.id(*t); ours && tid == id {
			return *t
		}
	}
	return progress.Task{}
}

// dropTask is t checked off as dropped: it counts as no work left.
func dropTask(t progress.Task, text, mark string) progress.Task {
	if !strings.HasSuffix(text, droppedNote) {
		text += droppedNote
	}
	return progress.Task{Text: text, Checkbox: true, Done: true, Mark: mark}
}

type snap struct {
	completed, remaining []progress.Task
	current              *progress.Task
}

func snapshot(doc *progress.Document) snap {
	s := snap{completed: slices.Clone(doc.Completed), remaining: slices.Clone(doc.Remaining)}
	if doc.Current != nil {
		c := *doc.Current
		s.current = &c
	}
	return s
}

func (s snap) equal(o snap) bool {
	if (s.current == nil) != (o.current == nil) || s.current != nil && *s.current != *o.current {
		return false
	}
	return slices.Equal(s.completed, o.completed) && slices.Equal(s.remaining, o.remaining)
}
