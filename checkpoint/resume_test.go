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
	"github.com/ccc-checkpoint/ccc/state/records"
)

func TestResumeStateWithoutPlanFallsThroughToTheRecord(t *testing.T) {
	root := t.TempDir()
	// What ccc checkpoint itself leaves: a state with the issue and the
	// checkpoint entry, no plan.
	runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-1", Current: "write parser", AddTasks: []string{"tests"}}))
	st := read(t, root, state.FileName)
	require.NotContains(t, st, "totalTasks")
	require.NoError(t, os.Remove(filepath.Join(root, progress.FileName)))
	require.NoError(t, os.RemoveAll(filepath.Join(root, ".ccc", "backups")))

	r, err := LoadResume(context.Background(), root, t0.Add(time.Minute), time.Hour)
	require.NoError(t, err)
	assert.Equal(t, ".ccc/checkpoints/main.json", r.Source)
	assert.Equal(t, 1, r.TaskN)
	assert.Equal(t, 2, r.TaskM)
	assert.Contains(t, r.Prompt, "Current task: task 1 of 2 — write parser.")
	assert.Equal(t, t0, r.At)
	doc, err := progress.Parse([]byte(read(t, root, progress.FileName)))
	require.NoError(t, err)
	assert.Equal(t, 2, doc.TaskM(), "the rebuilt file keeps the tasks")
	assert.Equal(t, "2026-11-21T13:45:00Z", doc.Session, "and the record's time")

	t.Run("no record, no backup: nothing to resume, not an empty plan", func(t *testing.T) {
		require.NoError(t, os.Remove(filepath.Join(root, progress.FileName)))
		require.NoError(t, os.RemoveAll(filepath.Join(root, ".ccc")))
		_, err := LoadResume(context.Background(), root, t0, time.Hour)
		assert.ErrorIs(t, err, ErrNoProgress)
		assert.NoFileExists(t, filepath.Join(root, progress.FileName))
	})
}

// worktree adds a linked worktree of repo on a new branch.
func worktree(t *testing.T, repo, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	git(t, repo, "worktree", "add", "-q", "-b", name, dir)
	return dir
}

func TestResumeChoosesThisAgentsRecord(t *testing.T) {
	repo := newRepo(t)
	wb := worktree(t, repo, "wb")
	wc := worktree(t, repo, "wc")
	cpB := newCP(wb, Automated, progress.Edits{Issue: "CIA-2", Current: "b's task"})
	cpB.Agent = "b"
	runCP(cpB)
	cpA := newCP(repo, Automated, progress.Edits{Issue: "CIA-1", Current: "a's task"})
	cpA.Agent, cpA.Now = "a", t0.Add(15*time.Minute) // the newest record
	runCP(cpA)
	for _, f := range []string{progress.FileName, state.FileName} {
		require.NoError(t, os.Remove(filepath.Join(wb, f)))
	}
	require.NoError(t, os.RemoveAll(filepath.Join(wb, ".ccc")))
	ctx := context.Background()

	r, err := LoadResumeWith(ctx, wb, t0.Add(time.Hour), ResumeOptions{Agent: "b"})
	require.NoError(t, err)
	assert.Contains(t, r.Prompt, "b's task")
	assert.Equal(t, filepath.Join(repo, ".ccc/checkpoints/b.json"), r.Source)
	assert.Contains(t, read(t, wb, progress.FileName), "b's task")

	require.NoError(t, os.Remove(filepath.Join(wb, progress.FileName)))
	r, err = LoadResumeWith(ctx, wb, t0.Add(time.Hour), ResumeOptions{Agent: "renamed"})
	require.NoError(t, err)
	assert.Contains(t, r.Prompt, "b's task", "no record of its own: the one made on this branch")
	assert.Contains(t, r.Warnings, "agent renamed has no record; resumed agent b's, made on this branch (wb)")

	_, err = LoadResumeWith(ctx, wc, t0.Add(time.Hour), ResumeOptions{Agent: "c", ReadOnly: true})
	require.ErrorIs(t, err, ErrNoProgress, "another agent's work on another branch is never resumed")
	assert.Contains(t, err.Error(), "the records of other agents (a, b) are not resumed")
}

func TestResumeDates(t *testing.T) {
	ctx := context.Background()
	t.Run("a hand-written file: its Session, not its modification time", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, progress.FileName, "# Session Progress\n\n**Session:** 2026-11-20T10:00:00Z\n\n## Current Task\n- a\n")
		r, err := LoadResume(ctx, root, t0, 24*time.Hour)
		require.NoError(t, err)
		assert.Equal(t, time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), r.At)
		assert.True(t, r.Stale)
	})
	t.Run("a backup: its Session", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-3", Current: "a"}))
		cp := newCP(root, Automated, progress.Edits{Current: "b"})
		cp.Now = t0.Add(time.Hour) // backs up the t0 version
		runCP(cp)
		require.NoError(t, os.Remove(filepath.Join(root, state.FileName)))
		require.NoError(t, os.RemoveAll(filepath.Join(root, ".ccc", "checkpoints")))
		write(t, root, progress.FileName, "\x00 not text")
		r, err := LoadResume(ctx, root, t0.Add(2*time.Hour), time.Hour)
		require.NoError(t, err)
		assert.Contains(t, r.Source, ".ccc/backups/")
		assert.Equal(t, t0, r.At)
	})
	t.Run("read-only: an old CCC state is dated by it, and nothing is written", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, state.FileName, `{"linearIssue": "CIA-9", "taskIndex": 1, "totalTasks": 3, "lastUpdatedAt": "2025-01-01T00:00:00Z"}`)
		r, err := LoadResumeWith(ctx, root, t0, ResumeOptions{ReadOnly: true, StaleAfter: 24 * time.Hour})
		require.NoError(t, err)
		assert.Equal(t, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), r.At)
		assert.True(t, r.Stale)
		assert.NoFileExists(t, filepath.Join(root, progress.FileName))
		assert.Equal(t, []string{".ccc-progress.md is missing; resumed from .ccc-state.json"}, r.Warnings)
	})
}

func TestResumeAgeAndDriftFromTheSameCheckpoint(t *testing.T) {
	root := newRepo(t)
	ctx := context.Background()
	write(t, root, state.FileName, `{"linearIssue": "CIA-12", "taskIndex": 0, "totalTasks": 3, "phase": "execution"}`)
	runCP(newCP(root, Automated, progress.Edits{})) // like pre-compact: state records HEAD A
	git(t, root, "commit", "-q", "--allow-empty", "-m", "one")
	git(t, root, "commit", "-q", "--allow-empty", "-m", "two")
	gate := newCP(root, Automated, progress.Edits{})
	gate.Persist.KeepState, gate.Now = true, t0.Add(10*time.Minute) // the stop hook's gate checkpoint
	runCP(gate)

	r, err := LoadResume(ctx, root, t0.Add(11*time.Minute), time.Hour)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(10*time.Minute), r.At, "the gate checkpoint's time")
	assert.Equal(t, git(t, root, "rev-parse", "HEAD"), r.Head, "and its HEAD")
	assert.False(t, r.HeadMoved())
	assert.Equal(t, 0, r.CommitsSince)

	git(t, root, "commit", "-q", "--allow-empty", "-m", "three")
	r, err = LoadResume(ctx, root, t0.Add(12*time.Minute), time.Hour)
	require.NoError(t, err)
	assert.Equal(t, 1, r.CommitsSince, "drift counted from the same checkpoint")
}

func TestClearResume(t *testing.T) {
	for _, choice := range []string{"delete", "start fresh"} {
		t.Run(choice, func(t *testing.T) {
			root := t.TempDir()
			ctx := context.Background()
			write(t, root, state.FileName, `{"linearIssue": "CIA-5", "taskIndex": 1, "totalTasks": 3, "phase": "execution", "custom": 1}`)
			runCP(newCP(root, Automated, progress.Edits{Current: "a"}))
			cp := newCP(root, Automated, progress.Edits{Current: "b"})
			cp.Now = t0.Add(time.Minute) // leaves a backup of the first version
			runCP(cp)

			c, err := ClearResume(ctx, root, "main", t0.Add(2*time.Minute))
			require.NoError(t, err)
			assert.Contains(t, c.Progress, ".ccc/backups/.ccc-progress.md.")
			assert.Contains(t, c.Record, ".ccc/checkpoints/history/main/main-CIA-5-")
			assert.Equal(t, []string{"taskIndex", "totalTasks", "ccc.checkpoint"}, c.State)
			assert.NoFileExists(t, filepath.Join(root, progress.FileName))
			st := read(t, root, state.FileName)
			assert.Contains(t, st, `"custom": 1`)
			assert.Contains(t, st, `"phase": "execution"`)
			assert.Contains(t, st, `"linearIssue": "CIA-5"`)

			// The next ccc go finds nothing to resume.
			_, err = LoadResume(ctx, root, t0.Add(3*time.Minute), time.Hour)
			require.ErrorIs(t, err, ErrNoProgress)
			dir, err := records.Dir(ctx, root)
			require.NoError(t, err)
			s, err := records.Find(dir, filepath.Base(c.Record[:len(c.Record)-len(".json")]))
			require.NoError(t, err, "the record is kept in history")
			assert.Equal(t, records.KindHistory, s.Kind)

			// Work after it is resumed again.
			next := newCP(root, Automated, progress.Edits{Current: "fresh"})
			next.Now = t0.Add(4 * time.Minute)
			runCP(next)
			require.NoError(t, os.Remove(filepath.Join(root, progress.FileName)))
			r, err := LoadResume(ctx, root, t0.Add(5*time.Minute), time.Hour)
			require.NoError(t, err)
			assert.Contains(t, r.Prompt, "fresh")
		})
	}
}

func TestFailureBlockerEndsTheRecordAsFailed(t *testing.T) {
	root := t.TempDir()
	ctx := context.Background()
	runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-6", Current: "a"}))
	cp := newCP(root, Automated, progress.Edits{Blockers: []string{FailurePrefix + "the API was removed"}})
	cp.Now = t0.Add(time.Minute)
	r := runCP(cp)
	require.Equal(t, OutcomeOK, r.Outcome(), r.Lines())

	dir, err := records.Dir(ctx, root)
	require.NoError(t, err)
	_, err = records.Load(dir, "main")
	require.ErrorIs(t, err, records.ErrNoRecord, "a failed record leaves the agent without a current one")
	all, err := records.All(dir)
	require.NoError(t, err)
	require.NotEmpty(t, all)
	failed := all[0]
	assert.Equal(t, records.KindFailed, failed.Kind)
	assert.Equal(t, filepath.Join(dir, records.FailedDir, failed.ID+".json"), failed.Path)
	assert.Equal(t, records.StatusFailed, failed.Status)
	assert.Equal(t, []records.Error{{Type: "failure", Message: "the API was removed", Timestamp: t0.Add(time.Minute), Blocking: true}}, failed.Errors)
	assert.Contains(t, read(t, root, progress.FileName), "- FAILED: the API was removed")
}

func TestResumeNamesTheCorruptState(t *testing.T) {
	root := t.TempDir()
	write(t, root, progress.FileName, "# Session Progress\n\n**Session:** 2026-11-21T13:00:00Z\n\n## Current Task\n- a\n")
	write(t, root, state.FileName, "{\n  \"taskIndex\": 1,\n  ,\n}\n")
	r, err := LoadResume(context.Background(), root, t0, time.Hour)
	require.NoError(t, err)
	require.Len(t, r.Warnings, 1)
	assert.Regexp(t, `^`+filepath.Join(root, state.FileName)+`:3:3: not valid JSON: .*; a copy is kept at .*\.ccc/backups/\.ccc-state\.json\.[0-9T.]+Z\.corrupt; checkpoint details unknown$`, r.Warnings[0])
}

func TestResumeWarnsWhenThePromptContradictsTheDocument(t *testing.T) {
	start := progress.Edits{Issue: "CIA-1", Current: "write parser", AddTasks: []string{"write tests"}}
	tests := []struct {
		name string
		// edit changes the progress file as an agent would, by hand.
		edit func(content string) string
		want []string
	}{
		{"ccc's prompt for the document as it is", func(c string) string { return c }, nil},
		{"the Current Task edited by hand under ccc's prompt",
			func(c string) string {
				return strings.Replace(c, "## Current Task\n- write parser\n", "## Current Task\n- write tests\n", 1)
			},
			[]string{`the continuation prompt names "write parser" as the current task, but the Current Task section has "write tests"; the next ccc checkpoint regenerates it`}},
		{"the agent's own prompt, behind the Next Action field",
			func(c string) string {
				c = strings.Replace(c, "**Execution Mode:**", "**Next Action:** run go test ./...\n**Execution Mode:**", 1)
				i := strings.Index(c, "## Continuation Prompt")
				return c[:i] + "## Continuation Prompt\nResume CIA-1. Current task: task 1 of 2 — write parser. Key files: parse.go.\nNext action: read the spec.\n"
			},
			[]string{`the continuation prompt gives "read the spec" as the next action, but the Next Action field says "run go test ./..."; edit the prompt, or regenerate it with ccc checkpoint --refresh-prompt`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			runCP(newCP(root, Automated, start))
			write(t, root, progress.FileName, tc.edit(read(t, root, progress.FileName)))
			r, err := LoadResume(context.Background(), root, t0.Add(time.Minute), time.Hour)
			require.NoError(t, err)
			assert.Equal(t, tc.want, r.Warnings)
			assert.NotContains(t, r.Prompt, "ccc:generated", "the mark is never printed")
		})
	}
}

func TestResumeSummaryAndDrift(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)
	r := Resume{Issue: "CIA-1", TaskN: 2, TaskM: 5, At: at, Age: 3 * time.Hour, Branch: "main", Head: "0123456789",
		Source: "records/a.json", Stale: true, NowBranch: "dev", NowHead: "abcdef0123", CommitsSince: 2}
	assert.Equal(t, "Checkpoint for CIA-1 (task 2 of 5), taken 3h ago (2026-11-21 13:45 UTC) on main at 0123456 (from records/a.json).", r.Summary())
	assert.Equal(t, []string{
		"the checkpoint is 3h old (over 1h): check that the prompt still holds",
		"branch changed since the checkpoint: was main, now dev",
		"HEAD moved since the checkpoint: 2 new commit(s), 0123456 → abcdef0",
	}, r.DriftWarnings(time.Hour))
	assert.Empty(t, Resume{TaskN: 1, TaskM: 1}.DriftWarnings(time.Hour))
	assert.Equal(t, "Checkpoint (task 1 of 1).", Resume{TaskN: 1, TaskM: 1}.Summary())
}
