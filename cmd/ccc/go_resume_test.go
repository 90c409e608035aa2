package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
)

// TestGoDeleteIsNotResurrected: after (d)elete or (s)tart fresh, the next
// ccc go finds no checkpoint: not in the state, the record or the backups.
func TestGoDeleteIsNotResurrected(t *testing.T) {
	t.Parallel()
	for _, answer := range []string{"d", "s"} {
		t.Run(answer, func(t *testing.T) {
			root := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(root, state.FileName),
				[]byte(`{"linearIssue": "CIA-41", "taskIndex": 0, "totalTasks": 2, "phase": "execution"}`), 0o644))
			clock := time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)
			newF := func(answers string, tty bool) (*Factory, *bytes.Buffer, *bytes.Buffer) {
				var out, errOut bytes.Buffer
				return &Factory{
					IO:     IOStreams{In: strings.NewReader(answers), Out: &out, ErrOut: &errOut, InTTY: tty},
					Getenv: func(k string) string { return map[string]string{"CCC_PROJECT_ROOT": root}[k] },
					Getwd:  func() (string, error) { return root, nil },
					Now:    func() time.Time { return clock },
				}, &out, &errOut
			}
			f, _, errOut := newF("", false)
			require.Equal(t, 0, run([]string{"checkpoint", "--current", "write the prompt", "--add-task", "test it"}, f), errOut.String())
			clock = clock.Add(time.Minute)
			f, _, errOut = newF("", false)
			require.Equal(t, 0, run([]string{"checkpoint", "--decision", "x: y"}, f), errOut.String()) // leaves a backup

			clock = clock.Add(time.Minute)
			f, _, errOut = newF(answer+"\n", true)
			require.Equal(t, 0, run([]string{"go"}, f), errOut.String())
			assert.Contains(t, errOut.String(), "Removed taskIndex, totalTasks, ccc.checkpoint from .ccc-state.json.")
			assert.Contains(t, errOut.String(), "and .ccc/checkpoints/history/main/main-CIA-41-20261121-130100.json")
			st, err := os.ReadFile(filepath.Join(root, state.FileName))
			require.NoError(t, err)
			for _, gone := range []string{"taskIndex", "totalTasks", `"checkpoint"`} {
				assert.NotContains(t, string(st), gone)
			}
			assert.Contains(t, string(st), `"phase": "execution"`, "CCC's other keys stay")
			assert.Contains(t, string(st), `"linearIssue": "CIA-41"`)

			clock = clock.Add(time.Minute)
			f, out, errOut := newF("", false)
			assert.Equal(t, 1, run([]string{"go"}, f), "nothing left to resume")
			assert.Empty(t, out.String())
			assert.Contains(t, errOut.String(), "no .ccc-progress.md")
			assert.NoFileExists(t, filepath.Join(root, progress.FileName))
		})
	}
}
