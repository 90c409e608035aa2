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
