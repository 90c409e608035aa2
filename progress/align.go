package progress

import (
	"fmt"
	"regexp"
	"slices"
	"sync"
)

// AlignTo moves tasks between Completed, Current and Remaining so that done
// tasks are finished and the document lists at least total tasks, the
// shape CCC's state gives as taskIndex and totalTasks. Missing tasks are
// added as "Task k (from .ccc-state.json)": their names live only in the
// plan. It reports whether anything changed; a document with more than
// total tasks keeps them (no task is ever dropped).
func (d *Document) AlignTo(done, total int) bool {
	changed := false
	// Tasks are finished in order: the current one, then the queued ones
	// that are not done, then placeholders. The count of finished tasks and
	// whether Completed is all checkboxes are kept as tasks move, so a plan
	// far ahead of a long document costs one pass over it, not one count
	// and one scan of the document per task moved.
	n := d.done()
	if n < done {
		fin := d.finisher()
		if d.active() {
			fin.add(*d.Current)
			d.Current = nil
			n++
		}
		moved := false
		var rest []Task
		for i, t := range d.Remaining {
			if n >= done {
				rest = append(rest, d.Remaining[i:]...)
				break
			}
			if t.Done {
				rest = append(rest, t)
				continue
			}
			fin.add(t)
			n++
			moved = true
		}
		if moved {
			d.Remaining = rest
		}
		for ; n < done && d.TaskM() < total; n++ {
			fin.add(Task{Text: placeholder(d.TaskM() + 1)})
		}
		changed = fin.added > 0
	}
	// Finished tasks go back one at a time, each previous current task to the
	// front of Remaining; counted as they move, so a plan far behind a long
	// document costs one pass, not one count of the document per task.
	var back []Task
	if n > done && len(d.Completed) > 0 {
		var cur Task
		hasCur := d.Current != nil
		if hasCur {
			cur = *d.Current
		}
		for n > done && len(d.Completed) > 0 {
			last := d.Completed[len(d.Completed)-1]
			d.Completed = d.Completed[:len(d.Completed)-1]
			if last.Done {
				n--
			}
			if hasCur {
				if cur.Done {
					n--
				}
				back = append(back, Task{Text: cur.Text, Checkbox: cur.Checkbox})
			}
			last.Done, last.Status = false, ""
			cur, hasCur = last, true
		}
		d.Current = &cur
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

// finisher appends tasks to Completed as finished would, without scanning
// Completed for every task: whether every item of Completed has a checkbox
// only changes with the first task it gets.
type finisher struct {
	d      *Document
	allBox bool
	added  int
}

func (d *Document) finisher() *finisher {
	return &finisher{d: d, allBox: !slices.ContainsFunc(d.Completed, func(t Task) bool { return !t.Checkbox })}
}

func (f *finisher) add(t Task) {
	d := f.d
	if len(d.Completed) == 0 {
		t = d.finished(t) // an empty list takes after Remaining: once
		f.allBox = t.Checkbox
	} else {
		t.Done, t.Status = true, ""
		t.Checkbox = t.Checkbox || f.allBox
	}
	d.Completed = append(d.Completed, t)
	f.added++
}

func placeholder(k int) string { return fmt.Sprintf("Task %d (from .ccc-state.json)", k) }

var placeholderText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Task [0-9]+ \(from \.ccc-state\.json\)$`) })

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
	// Marked from the back, then removed in one pass: deleting one at a
	// time would move the tail of a long queue once per placeholder.
	drop := map[int]bool{}
	for i, excess := len(d.Remaining)-1, d.TaskM()-total; i >= 0 && len(drop) < excess; i-- {
		if t := d.Remaining[i]; !t.Done && placeholderText().MatchString(t.Text) {
			drop[i] = true
		}
	}
	if len(drop) > 0 {
		kept := d.Remaining[:0]
		for i, t := range d.Remaining {
			if !drop[i] {
				kept = append(kept, t)
			}
		}
		d.Remaining = kept
		changed = true
	}
	if c := d.Current; d.TaskM() > total && c != nil && !c.Done && placeholderText().MatchString(c.Text) {
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
		if !t.Done && placeholderText().MatchString(t.Text) {
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
