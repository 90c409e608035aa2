package checkpoint

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state"
)

// storingSink stores a pending reference before it writes, as the Linear,
// GitHub and file sinks do, and fails the way they do when it cannot.
type storingSink struct{ fakeSink }

func (s *storingSink) Upsert(ctx context.Context, d sinks.Delivery) (sinks.Result, error) {
	if err := d.Persist(sinks.Ref{PendingID: "p-1"}); err != nil {
		return sinks.Result{}, &sinks.Error{Cause: "could not store the new comment id", Permanent: true, Err: err}
	}
	return s.fakeSink.Upsert(ctx, d)
}

// With a corrupt state file the tracker step says so, with path:line, not
// only that a comment id could not be stored.
func TestTrackerNamesCorruptStateAsTheCause(t *testing.T) {
	root := t.TempDir()
	write(t, root, state.FileName, "{\n  \"linearIssue\": \"CIA-5\",\n  \"ccc\": {\"checkp")
	cp := newCP(root, Automated, progress.Edits{Issue: "CIA-5", Current: "a"})
	cp.Trackers = []Tracker{{Sink: &storingSink{}}}
	r := runCP(cp)
	assert.Contains(t, r.String(), "Failed: Persist progress (.ccc-state.json:3:18: not valid JSON)")
	assert.Contains(t, r.String(), "Failed: Fake update (could not store the new comment id: .ccc-state.json:3:18 is not valid JSON)")
}

const roTrackerEnv = "CCC_TEST_RO_TRACKER_ROOT"

// In a project directory the user cannot write, the tracker step names the
// permission error on the path, never "another ccc process is delivering".
func TestReadOnlyProjectNamesPermissionDenied(t *testing.T) {
	inReadOnlyProject(t, roTrackerEnv, checkReadOnlyTracker)
}

func checkReadOnlyTracker(t *testing.T, root string) {
	cp := newCP(root, Automated, progress.Edits{AddTasks: []string{"b"}})
	cp.Trackers = []Tracker{{Sink: &fakeSink{}, Target: "CIA-3"}}
	r := runCP(cp)
	tracker := step(t, r, "Fake update")
	assert.Equal(t, Failed, tracker.Status)
	assert.Contains(t, tracker.Message, "permission denied")
	assert.Contains(t, tracker.Message, filepath.Join(root, projectfs.Dir))
	assert.NotContains(t, r.String(), "another ccc process")
}
