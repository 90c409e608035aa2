package checkpoint

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// TestRedactSnapshotOfManyTasks: the record of 10,000 tasks is redacted
// with a few dozen allocations (the single fields' scans) when no task can
// hold a credential (one look at them all), where each task's own scan cost
// about 50 (issue 26), and a task that does hold one is still redacted.
func TestRedactSnapshotOfManyTasks(t *testing.T) {
	r, err := redact.New([]string{"s3cr3t-h3ld-v4lue"}, nil)
	require.NoError(t, err)
	cp := &Context{Redactor: r}
	s := records.Snapshot{Agent: "main", Current: "the current task"}
	for i := range 5000 {
		s.Completed = append(s.Completed, fmt.Sprintf("task %d: migrate endpoint /api/v1/resource%d", i, i))
		s.Remaining = append(s.Remaining, fmt.Sprintf("task %d: migrate endpoint /api/v1/resource%d", 5000+i, 5000+i))
	}
	allocs := testing.AllocsPerRun(3, func() { cp.redactSnapshot(s) })
	assert.LessOrEqual(t, allocs, 100.0, "allocations to redact a snapshot of 10,000 clean tasks (500,052 before)")

	s.Remaining[4321] = "rotate s3cr3t-h3ld-v4lue"
	got := cp.redactSnapshot(s)
	assert.Equal(t, "rotate [REDACTED:secret]", got.Remaining[4321])
	assert.Equal(t, s.Remaining[4320], got.Remaining[4320])
}
