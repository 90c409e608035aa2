package comment

import (
	"time"

	"github.com/ccc-checkpoint/ccc/progress"
)

// Build takes the status of d as it is at now: the current task, the
// counts, the decisions and the blockers still open.
func Build(d *progress.Document, now time.Time) Status {
	in := Status{
		Updated:   now.UTC(),
		TaskN:     d.TaskN(),
		TaskM:     d.TaskM(),
		Completed: d.CompletedCount(),
		Percent:   d.Percent(),
		Status:    d.Status().String(),
		Next:      d.Next(),
	}
	if d.Current != nil {
		in.Task = d.Current.Text
	}
	for _, dec := range d.Decisions {
		in.Decisions = append(in.Decisions, dec.String())
	}
	for _, b := range d.OpenBlockers() {
		in.Blockers = append(in.Blockers, b.String())
	}
	return in
}
