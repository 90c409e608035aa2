package checkpoint

import (
	"context"
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

const conflicted = "# Session Progress\n\n**Issue:** CIA-40\n\n## Completed Tasks\n<<<<<<< HEAD\n- a ✓\n=======\n- b ✓\n>>>>>>> other\n\n## Current Task\n- c\n"

// A progress file too broken to touch stops the whole run before anything
// is written: no progress or state write, no backup, no commit, no record,
// no tracker call, no outbox entry; exit 1 with path:line and the fix.
func TestBrokenProgressStopsTheRun(t *testing.T) {
	tests := []struct {
		name, file, where string
	}{
		{"merge conflict", conflicted, ".ccc-progress.md:6: unresolved merge conflict"},
		{"no known section", "Notes\n\n- a\n- b\n", ".ccc-progress.md:1: none of the sections ccc knows"},
	}
	for _, tc := range tests {
		for _, profile := range []Profile{Manual, Automated} {
			t.Run(tc.name+"/"+string(profile), func(t *testing.T) {
				root := newRepo(t)
				const st = `{"linearIssue": "CIA-40", "activeTaskFiles": ["parser.go"]}`
				write(t, root, state.FileName, st)
				write(t, root, progress.FileName, tc.file)
				write(t, root, "parser.go", "package parser\n\nfunc P() {}\n")
				fs := &fakeSink{}
				cp := newCP(root, profile, progress.Edits{Done: []string{"c"}})
				cp.Trackers = []Tracker{{Sink: fs, Target: "CIA-40"}}

				r := runCP(cp)
				assert.Equal(t, OutcomeNothing, r.Outcome())
				assert.Empty(t, r.Steps, "no step reports anything")
				assert.Contains(t, r.Broken, tc.where)
				assert.Equal(t, "Checkpoint not run: "+strings.TrimSuffix(r.Broken, ".")+". Nothing was written.", r.Lines()[0])
				assert.Contains(t, r.Broken, "ccc restore --file progress")
				assert.Empty(t, r.Error, "not a usage error")
				assert.Empty(t, r.Prompt)

				assert.Equal(t, tc.file, read(t, root, progress.FileName), "byte-identical")
				assert.Equal(t, st, read(t, root, state.FileName))
				assert.Zero(t, fs.calls, "nothing told to the tracker")
				assert.Equal(t, "1", git(t, root, "rev-list", "--count", "HEAD"), "nothing committed")
				for _, dir := range []string{"checkpoints", "outbox", "backups"} {
					assert.NoDirExists(t, filepath.Join(root, ".ccc", dir))
				}
			})
		}
	}
}

// Repairable files are rewritten as before.
func TestRepairableProgressIsRewritten(t *testing.T) {
	tests := []struct{ name, file string }{
		{"empty file", ""},
		{"one known section, the rest missing", "Notes\n\n## Current Task\n- c\n"},
		{"a heading underline that only looks like a marker", "# P\n\nTitle\n=======\n\n## Current Task\n- c\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, progress.FileName, tc.file)
			r := runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-41", AddTasks: []string{"d"}}))
			assert.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
			doc, err := progress.Parse([]byte(read(t, root, progress.FileName)))
			require.NoError(t, err)
			assert.Equal(t, "CIA-41", doc.Issue.Key)
			assert.Contains(t, read(t, root, progress.FileName), "## Remaining Tasks\n- d\n")
		})
	}
}

func TestLoadProgressRefusesBrokenFile(t *testing.T) {
	root := t.TempDir()
	write(t, root, progress.FileName, conflicted)
	cp := newCP(root, Automated, progress.Edits{})
	err := cp.LoadProgress()
	require.ErrorIs(t, err, progress.ErrBroken)
	assert.Contains(t, err.Error(), ".ccc-progress.md:6: ")
	assert.Nil(t, cp.Doc, "nothing to report from")
}

func TestResumeNeverUsesBrokenFile(t *testing.T) {
	t.Run("a good backup stands in; a broken one is skipped", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-42", Current: "a"}))
		runCP(newCP(root, Automated, progress.Edits{Current: "b"})) // backs up the "a" version
		require.NoError(t, os.Remove(filepath.Join(root, state.FileName)))
		require.NoError(t, os.RemoveAll(filepath.Join(root, ".ccc", "checkpoints")))
		// A newer backup holding a conflict must not be the stand-in.
		write(t, root, ".ccc/backups/"+progress.FileName+".29991231T000000.000000000Z", conflicted)
		write(t, root, progress.FileName, conflicted)

		r, err := LoadResume(context.Background(), root, t0, time.Hour)
		require.NoError(t, err)
		assert.Contains(t, r.Source, ".ccc/backups/.ccc-progress.md.2026")
		assert.Contains(t, r.Prompt, "Resume CIA-42. Current task: task 1 of 1 — a.")
		assert.Contains(t, r.Broken, ".ccc-progress.md:6: unresolved merge conflict")
		assert.Contains(t, r.Warnings[0], ".ccc-progress.md is broken (.ccc-progress.md:6: ")
		assert.Equal(t, conflicted, read(t, root, progress.FileName))
	})
	t.Run("nothing to stand in: an error, never an empty or complete handoff", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, progress.FileName, "Notes\n")
		_, err := LoadResume(context.Background(), root, t0, time.Hour)
		require.ErrorIs(t, err, progress.ErrBroken)
		assert.NotErrorIs(t, err, ErrNoProgress)
		assert.Contains(t, err.Error(), ".ccc-progress.md:1: none of the sections ccc knows")
	})
}
