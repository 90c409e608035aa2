package checkpoint

import (
	"fmt"
	"time"

	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
)

// planTotal is the number of tasks CCC's loop plans, 0 for none: the stop
// hook's new position, else the state's totalTasks.
func (cp *Context) planTotal() int {
	switch {
	case cp.Persist.Loop != nil:
		return cp.Persist.Loop.TotalTasks
	case cp.State == nil || cp.stateReadOnly:
		return 0
	}
	total, _ := cp.State.Int("totalTasks")
	return total
}

// syncSources reconciles the progress document with CCC's loop state when
// something other than ccc moved one of them (CCC's hooks advance taskIndex;
// an agent edits the progress file by hand). The more recently updated
// source wins and the other is rewritten to match. A new document (no
// file yet) is built from the state. It returns a notice, or "".
func (cp *Context) syncSources(doc *progress.Document, created bool, docTime time.Time) string {
	st := cp.State
	var index, total int
	switch {
	case cp.Persist.Loop != nil:
		// The stop hook just moved the loop (and deleted the state at its
		// end): its position is the newest word, whatever the file says.
		index, total = cp.Persist.Loop.TaskIndex, cp.Persist.Loop.TotalTasks
	case st == nil || cp.stateReadOnly:
		return ""
	default:
		total, _ = st.Int("totalTasks")
		index, _ = st.Int("taskIndex")
	}
	if total <= 0 {
		return "" // the state carries no plan
	}
	index = min(max(index, 0), total)
	done, m := doc.CompletedCount(), doc.TaskM()
	if done == index && m == total {
		return ""
	}
	if t, err := time.Parse(time.RFC3339, doc.Session); err == nil {
		docTime = t
	}
	var stateTime time.Time
	if st != nil {
		stateTime, _ = time.Parse(time.RFC3339, st.String("lastUpdatedAt"))
	}
	// A document with no tasks carries no plan: it never overrides one.
	stateWins := cp.Persist.Loop != nil || created || m == 0 || stateTime.After(docTime)
	if stateWins {
		if !doc.AlignTo(index, total) {
			return ""
		}
		if doc.TaskM() > total {
			cp.warnf("%s lists %d tasks, %s plans %d: the extra tasks are kept", progress.FileName, doc.TaskM(), state.FileName, total)
		}
		return fmt.Sprintf("Sync corrected: %s updated to match %s.", progress.FileName, state.FileName)
	}
	if cp.Persist.KeepState {
		return "" // the stop hook owns the loop state
	}
	for _, kv := range []struct {
		key string
		val any
	}{{"taskIndex", done}, {"totalTasks", m}, {"lastUpdatedAt", cp.Now.UTC().Format("2006-01-02T15:04:05Z")}} {
		if err := st.Set(kv.key, kv.val); err != nil {
			cp.warnf("%v", err)
			return ""
		}
	}
	return fmt.Sprintf("Sync corrected: %s updated to match %s.", state.FileName, progress.FileName)
}

// followTotal gives the state's plan the document's task count after the
// run's edits: a task added past totalTasks (--add-task, or the agent's
// list) is one more task for CCC's loop too, or the stop hook would end the
// loop "3 of 3 done" with a task still listed. One count, everywhere. A
// position the stop hook just set, and a state the stop hook owns
// (KeepState), are left to it.
func (cp *Context) followTotal(doc *progress.Document, total int) {
	m := doc.TaskM()
	if m == total || cp.Persist.Loop != nil || cp.Persist.KeepState || cp.State == nil || cp.stateReadOnly {
		return
	}
	if err := cp.State.Set("totalTasks", m); err != nil {
		cp.warnf("%v", err)
	}
}
