package checkpoint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
)

// The progress file's backup is of the bytes persist read, not of a second
// read of the file (issue 26): an outside write between the two is not what
// the failed attempt backed up; the attempt that reads it backs it up.
func TestProgressBackupIsWhatWasRead(t *testing.T) {
	root := t.TempDir()
	runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-4", Current: "a"}))
	read1 := read(t, root, progress.FileName)
	cp := newCP(root, Automated, progress.Edits{AddTasks: []string{"from ccc"}})
	p := filepath.Join(root, progress.FileName)
	agents := read1 + "\n## Scratch\nwritten by the agent\n"
	backedUp := func() string {
		backups, err := projectfs.Backups(root, progress.FileName)
		require.NoError(t, err)
		require.NotEmpty(t, backups)
		return read(t, filepath.Dir(backups[0]), filepath.Base(backups[0]))
	}
	var seen []string
	r := runBeforeWrite(cp, func() {
		if len(seen) == 0 {
			require.NoError(t, os.WriteFile(p, []byte(agents), 0o644))
		} else {
			seen = append(seen, backedUp())
		}
		seen = append(seen, "attempt")
	})
	assert.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
	seen = append(seen, backedUp())
	assert.Equal(t, []string{"attempt", read1, "attempt", agents}, seen, "each attempt backed up what it read")
}
