package progress

import (
	"fmt"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAlignTo(t *testing.T) {
	doc := func(completed, remaining []string, current string) *Document {
		d := New("CIA-1", time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC))
		for _, c := range completed {
			d.Completed = append(d.Completed, Task{Text: c, Done: true})
		}
		for _, r := range remaining {
			d.Remaining = append(d.Remaining, Task{Text: r})
		}
		if current != "" {
			d.Current = &Task{Text: current}
		}
		return d
	}
	texts := func(ts []Task) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Text)
		}
		return out
	}
	tests := []struct {
		name                 string
		d                    *Document
		done, total          int
		changed              bool
		completed, remaining []string
		current              string
	}{
		{"already aligned", doc([]string{"a"}, []string{"c"}, "b"), 1, 3, false, []string{"a"}, []string{"c"}, "b"},
		{"state is ahead", doc([]string{"a"}, []string{"c", "d"}, "b"), 3, 4, true, []string{"a", "b", "c"}, nil, "d"},
		{"state is behind", doc([]string{"a", "b"}, []string{"d"}, "c"), 1, 4, true, []string{"a"}, []string{"c", "d"}, "b"},
		{"plan has more tasks", doc(nil, nil, "a"), 1, 3, true, []string{"a"}, []string{"Task 3 (from .ccc-state.json)"}, "Task 2 (from .ccc-state.json)"},
		{"empty document from the state alone", doc(nil, nil, ""), 2, 3, true,
			[]string{"Task 1 (from .ccc-state.json)", "Task 2 (from .ccc-state.json)"}, nil, "Task 3 (from .ccc-state.json)"},
		{"all done", doc([]string{"a"}, nil, "b"), 2, 2, true, []string{"a", "b"}, nil, ""},
		{"document has more tasks: kept", doc(nil, []string{"b", "c"}, "a"), 0, 2, false, nil, []string{"b", "c"}, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.d.AlignTo(tt.done, tt.total)
			assert.Equal(t, tt.changed, got)
			assert.Equal(t, tt.completed, texts(tt.d.Completed))
			assert.Equal(t, tt.remaining, texts(tt.d.Remaining))
			if tt.current == "" {
				assert.Nil(t, tt.d.Current)
			} else {
				require.NotNil(t, tt.d.Current)
				assert.Equal(t, tt.current, tt.d.Current.Text)
			}
			assert.Equal(t, tt.done, tt.d.CompletedCount())
			again, err := Parse(tt.d.Render())
			require.NoError(t, err)
			assert.Equal(t, tt.d.CompletedCount(), again.CompletedCount(), "survives a render")
		})
	}
}

func TestFillSlots(t *testing.T) {
	ph := placeholder
	task := func(s string) Task { return Task{Text: s} }
	done := func(s string) Task { return Task{Text: s, Done: true} }
	tests := []struct {
		name      string
		completed []Task
		current   *Task
		remaining []Task
		total     int
		changed   bool
		// want lists the tasks after: "x" done, ">" current, "-" queued.
		want []string
	}{
		{"named current pushed its placeholder back", nil, &Task{Text: "A"}, []Task{task(ph(1)), task(ph(2)), task(ph(3))}, 3, true,
			[]string{"> A", "- " + ph(2), "- " + ph(3)}},
		{"added tasks take the last slots", nil, &Task{Text: ph(1)}, []Task{task(ph(2)), task(ph(3)), task("B")}, 3, true,
			[]string{"> " + ph(1), "- " + ph(2), "- B"}},
		{"a placeholder current gives way to a named task", nil, &Task{Text: ph(1)}, []Task{task("B"), task("C"), task("D")}, 3, true,
			[]string{"> B", "- C", "- D"}},
		{"done placeholders stay", []Task{done(ph(1))}, &Task{Text: "A"}, []Task{task(ph(2)), task(ph(3)), task("B")}, 3, true,
			[]string{"x " + ph(1), "> A", "- B"}},
		{"within the plan: nothing changes", nil, &Task{Text: "A"}, []Task{task(ph(3)), task(ph(2))}, 3, false,
			[]string{"> A", "- " + ph(3), "- " + ph(2)}},
		{"no placeholder to drop", nil, &Task{Text: "A"}, []Task{task("B"), task("C"), task("D")}, 3, false,
			[]string{"> A", "- B", "- C", "- D"}},
		{"text like a placeholder but named differently", nil, &Task{Text: "A"}, []Task{task("Task 2 (from the plan)")}, 1, false,
			[]string{"> A", "- Task 2 (from the plan)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := New("", time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC))
			d.Completed, d.Current, d.Remaining = tt.completed, tt.current, tt.remaining
			assert.Equal(t, tt.changed, d.FillSlots(tt.total))
			var got []string
			for _, c := range d.Completed {
				got = append(got, "x "+c.Text)
			}
			if d.Current != nil {
				got = append(got, "> "+d.Current.Text)
			}
			for _, r := range d.Remaining {
				got = append(got, "- "+r.Text)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// allocated returns the bytes f allocates: a count, not a time, so it can
// bound how work grows with the input.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// longDoc is a document of n tasks: done of them completed, the next one
// current, the rest queued; checkbox items when box is set.
func longDoc(n, done int, box bool) *Document {
	d := New("CIA-1", time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC))
	for i := range n {
		t := Task{Text: fmt.Sprintf("task %d", i+1), Checkbox: box}
		switch {
		case i < done:
			t.Done = true
			d.Completed = append(d.Completed, t)
		case i == done:
			d.Current = &t
		default:
			d.Remaining = append(d.Remaining, t)
		}
	}
	return d
}

// TestAlignToLongPlan aligns a 95,000-task document (the size that took the
// stop hook past its 10-second timeout) to a plan far ahead of it and far
// behind it. Before, every task moved recounted and copied the whole
// document: 95,000 tasks allocated hundreds of gigabytes and never
// finished. The bound is on bytes allocated, a few times the task list.
func TestAlignToLongPlan(t *testing.T) {
	const n = 95_000
	taskSize := uint64(unsafe.Sizeof(Task{}))
	tests := []struct {
		name          string
		from, to      int
		box           bool
		wantCurrent   string
		wantCompleted int
	}{
		{"plan ahead", 0, n - 1, false, fmt.Sprint("task ", n), n - 1},
		{"plan ahead, checkboxes", 10, n - 5, true, fmt.Sprint("task ", n-4), n - 5},
		{"plan behind", n - 1, 1, false, "task 2", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := longDoc(n, tt.from, tt.box)
			var changed bool
			bytes := allocated(func() { changed = d.AlignTo(tt.to, n) })
			assert.True(t, changed)
			assert.LessOrEqual(t, bytes, 8*n*taskSize, "AlignTo allocates in proportion to the document")
			assert.Equal(t, tt.to, d.CompletedCount())
			assert.Len(t, d.Completed, tt.wantCompleted)
			require.NotNil(t, d.Current)
			assert.Equal(t, tt.wantCurrent, d.Current.Text)
			assert.Equal(t, n, d.TaskM(), "no task dropped or added")
			for i, c := range d.Completed {
				require.Equal(t, fmt.Sprint("task ", i+1), c.Text, "order kept")
				require.True(t, c.Done)
				require.Equal(t, tt.box, c.Checkbox)
			}
			for i, r := range d.Remaining {
				require.Equal(t, fmt.Sprint("task ", tt.wantCompleted+2+i), r.Text, "order kept")
				require.False(t, r.Done)
			}
		})
	}
}

// TestAlignToAdoptsCheckboxes: a task finished into a Completed list of
// checkbox items gets one; into a mixed list it keeps its own; into an
// empty one it takes after the queue. The same as one task at a time.
func TestAlignToAdoptsCheckboxes(t *testing.T) {
	tests := []struct {
		name      string
		completed []Task
		current   Task
		remaining []Task
		done      int
		want      []bool // the checkboxes of Completed after
	}{
		{"all boxes", []Task{{Text: "a", Checkbox: true, Done: true}}, Task{Text: "b"}, []Task{{Text: "c"}}, 3, []bool{true, true, true}},
		{"mixed", []Task{{Text: "a", Checkbox: true, Done: true}, {Text: "a2", Done: true}}, Task{Text: "b"}, []Task{{Text: "c", Checkbox: true}}, 4, []bool{true, false, false, true}},
		{"empty, queue of boxes", nil, Task{Text: "b"}, []Task{{Text: "c", Checkbox: true}}, 2, []bool{true, true}},
		{"empty, mixed queue", nil, Task{Text: "b"}, []Task{{Text: "c", Checkbox: true}, {Text: "d"}}, 2, []bool{false, true}},
		{"done task in the queue stays", nil, Task{Text: "b"}, []Task{{Text: "c", Checkbox: true, Done: true}, {Text: "d", Checkbox: true}}, 3, []bool{true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := New("", time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC))
			cur := tt.current
			d.Completed, d.Current, d.Remaining = tt.completed, &cur, tt.remaining
			d.AlignTo(tt.done, d.TaskM())
			var got []bool
			for _, c := range d.Completed {
				got = append(got, c.Checkbox)
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.done, d.CompletedCount())
		})
	}
}
