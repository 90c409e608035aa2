package checkpoint

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
)

func taskTexts(d *progress.Document) []string {
	var out []string
	for _, t := range d.Completed {
		out = append(out, "x "+t.Text)
	}
	if d.Current != nil {
		out = append(out, "> "+d.Current.Text)
	}
	for _, t := range d.Remaining {
		out = append(out, "- "+t.Text)
	}
	return out
}

// Tasks a checkpoint names fill the slots of CCC's plan: with totalTasks 3
// and no tasks in the document, --current and --add-task give "task 1 of
// 3", placeholders stand only for slots no named task fills, and the stop
// loop then finishes the same 3 tasks the document lists.
func TestNamedTasksFillThePlansSlots(t *testing.T) {
	const plan = `{"taskIndex": 0, "totalTasks": 3, "phase": "execution"}`
	tests := []struct {
		name    string
		edits   progress.Edits
		persist string
		tasks   []string
	}{
		{"current and two added tasks", progress.Edits{Current: "A", AddTasks: []string{"B", "C"}},
			"task 1 of 3", []string{"> A", "- B", "- C"}},
		{"current only", progress.Edits{Current: "A"},
			"task 1 of 3", []string{"> A", "- Task 2 (from .ccc-state.json)", "- Task 3 (from .ccc-state.json)"}},
		{"added tasks only", progress.Edits{AddTasks: []string{"B"}},
			"task 1 of 3", []string{"> Task 1 (from .ccc-state.json)", "- Task 2 (from .ccc-state.json)", "- B"}},
		{"more named tasks than slots: none dropped", progress.Edits{Current: "A", AddTasks: []string{"B", "C", "D"}},
			"task 1 of 4", []string{"> A", "- B", "- C", "- D"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, progress.FileName, "# Session Progress\n\n## Current Task\n\n## Remaining Tasks\n")
			write(t, root, state.FileName, plan)
			r := runCP(newCP(root, Automated, tt.edits))
			require.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
			assert.Contains(t, r.Lines(), fmt.Sprintf("Persist progress: updated .ccc-progress.md (%s, In Progress).", tt.persist))
			doc, err := progress.Parse([]byte(read(t, root, progress.FileName)))
			require.NoError(t, err)
			assert.Equal(t, tt.tasks, taskTexts(doc))
		})
	}

	t.Run("the stop loop and the document count the same tasks", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, state.FileName, plan)
		r := runCP(newCP(root, Automated, progress.Edits{Current: "A", AddTasks: []string{"B", "C"}}))
		require.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
		assert.Contains(t, r.Lines(), "Persist progress: created .ccc-progress.md (task 1 of 3, In Progress).")
		for index := 1; index <= 3; index++ {
			cp := newCP(root, Automated, progress.Edits{})
			cp.Persist.KeepState, cp.Persist.Loop = true, &Loop{TaskIndex: index, TotalTasks: 3}
			r := runCP(cp)
			require.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
			doc, err := progress.Parse([]byte(read(t, root, progress.FileName)))
			require.NoError(t, err)
			assert.Equal(t, []int{index, 3}, []int{doc.CompletedCount(), doc.TaskM()}, "loop at %d of 3", index)
		}
		doc, err := progress.Parse([]byte(read(t, root, progress.FileName)))
		require.NoError(t, err)
		assert.Equal(t, []string{"x A", "x B", "x C"}, taskTexts(doc))
	})
}
