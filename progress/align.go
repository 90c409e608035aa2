package progress

import (
	"fmt"
	"regexp"
	"slices"
)

// AlignTo moves tasks between Completed, Current and Remaining so that done
// tasks are finished and the document lists at least total tasks, the
// shape CCC's state gives as taskIndex and totalTasks. Missing tasks are
// added as "Task k (from .ccc-state.json)": their names live only in the
// plan. It reports whether anything changed; a document with more than
// total tasks keeps them (no task is ever dropped).
func (d *Document) AlignTo(done, total int) bool {
	changed := false
	for d.done() < done {
		if d.active() {
			d.Completed = append(d.Completed, d.finished(*d.Current))
			d.Current = nil
		} else if i := slices.IndexFunc(d.Remaining, func(t Task) bool { return !t.Done }); i >= 0 {
			d.Completed = append(d.Completed, d.finished(d.Remaining[i]))
			d.Remaining = slices.Delete(d.Remaining, i, i+1)
		} else if d.TaskM() < total {
			d.Completed = append(d.Completed, d.finished(Task{Text: placeholder(d.TaskM() + 1)}))
		} else {
			break
		}
		changed = true
	}
	// Finished tasks go back one at a time, each previous current task to the
	// front of Remaining; counted as they move, so a plan far behind a long
	// document costs one pass, not one count of the document per task.
	var back []Task
	for n := d.done(); n > done && len(d.Completed) > 0; {
		last := d.Completed[len(d.Completed)-1]
		d.Completed = d.Completed[:len(d.Completed)-1]
		if last.Done {
			n--
		}
		if d.Current != nil {
			if d.Current.Done {
				n--
			}
			back = append(back, Task{Text: d.Current.Text, Checkbox: d.Current.Checkbox})
		}
		last.Done, last.Status = false, ""
		d.Current = &last
		changed = true
	}
	if len(back) > 0 {
		slices.Reverse(back)
		d.Remaining = append(back, d.Remaining...)
	}
	for d.TaskM() < total {
		d.Remaining = append(d.Remaining, Task{Text: placeholder(d.TaskM() + 1)})
		changed = true
	}
	if !d.active() && d.done() < total {
		if i := slices.IndexFunc(d.Remaining, func(t Task) bool { return !t.Done }); i >= 0 {
			t := d.Remaining[i]
			d.Remaining = slices.Delete(d.Remaining, i, i+1)
			if d.Current != nil { // a checked-off current task is finished work
				d.Completed = append(d.Completed, d.finished(*d.Current))
			}
			d.Current = &t
			changed = true
		}
	}
	return changed
}

func placeholder(k int) string { return fmt.Sprintf("Task %d (from .ccc-state.json)", k) }

var placeholderText = regexp.MustCompile(`^Task [0-9]+ \(from \.ccc-state\.json\)$`)

// FillSlots makes named tasks take the slots of placeholders: while the
// document lists more than total tasks, a placeholder that is not done is
// dropped, the last queued one first, then a placeholder current task (the
// next queued task takes its place); the placeholders left are renumbered
// to where they now stand, since "Task k" stands for the plan's k-th task.
// A checkpoint that names tasks (--current, --add-task) on a plan AlignTo
// filled with placeholders so keeps CCC's count and the document's the
// same. Named tasks and finished placeholders are never dropped. It reports
// whether anything changed.
func (d *Document) FillSlots(total int) bool {
	changed := false
	for i := len(d.Remaining) - 1; i >= 0 && d.TaskM() > total; i-- {
		if t := d.Remaining[i]; !t.Done && placeholderText.MatchString(t.Text) {
			d.Remaining = slices.Delete(d.Remaining, i, i+1)
			changed = true
		}
	}
	if c := d.Current; d.TaskM() > total && c != nil && !c.Done && placeholderText.MatchString(c.Text) {
		d.Current = nil
		if i := slices.IndexFunc(d.Remaining, func(t Task) bool { return !t.Done && !isNone(t.Text) }); i >= 0 {
			t := withStatus(d.Remaining[i])
			d.Remaining = slices.Delete(d.Remaining, i, i+1)
			d.Current = &t
		}
		changed = true
	}
	if !changed {
		return false
	}
	k := len(d.Completed)
	renumber := func(t *Task) {
		k++
		if !t.Done && placeholderText.MatchString(t.Text) {
			t.Text = placeholder(k)
		}
	}
	if d.Current != nil {
		renumber(d.Current)
	}
	for i := range d.Remaining {
		renumber(&d.Remaining[i])
	}
	return true
}
