package checkpoint

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
)

// A checkpoint that updates a tracker saves the state twice (the
// checkpoint, then the comment it wrote). Only the first save backs the
// file up: the newest backup is the state as it was before the run, and the
// second save neither reads the backups again nor writes a copy of the
// run's own first save over that backup (issue 26).
func TestTrackerCheckpointBacksUpTheStateOnce(t *testing.T) {
	root := t.TempDir()
	fs := &fakeSink{}
	run := func(now time.Time, e progress.Edits) Report {
		cp := newCP(root, Automated, e)
		cp.Trackers = []Tracker{{Sink: fs}}
		cp.Now = now
		return runCP(cp)
	}
	r := run(t0, progress.Edits{Issue: "CIA-12", Current: "a", AddTasks: []string{"b"}})
	require.Contains(t, r.Lines(), "Fake update: created comment on CIA-12 https://tracker.example/c-1.")
	before, err := os.ReadFile(state.Path(root))
	require.NoError(t, err)
	backups, err := projectfs.Backups(root, state.FileName)
	require.NoError(t, err)

	r = run(t0.Add(time.Minute), progress.Edits{Next: "do b"})
	require.Contains(t, r.Lines(), "Fake update: updated comment on CIA-12 https://tracker.example/c-1.")
	after, err := projectfs.Backups(root, state.FileName)
	require.NoError(t, err)
	assert.Len(t, after, len(backups)+1, "one backup of the state per run")
	kept, err := os.ReadFile(after[0])
	require.NoError(t, err)
	assert.Equal(t, string(before), string(kept), "the newest backup is the state before the run")
}
