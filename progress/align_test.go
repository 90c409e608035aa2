package progress

import (
	"testing"
	"time"

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
