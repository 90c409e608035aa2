package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
)

// setPrompt replaces the Continuation Prompt section of root's progress
// file, as an agent editing it by hand would.
func setPrompt(t *testing.T, root, prompt string) {
	t.Helper()
	content := read(t, root, progress.FileName)
	i := strings.Index(content, "## Continuation Prompt")
	require.Positive(t, i)
	write(t, root, progress.FileName, content[:i]+"## Continuation Prompt\n"+prompt+"\n")
}

// dropMark takes ccc's mark out of root's progress file, leaving it as ccc
// wrote it before it marked its prompts.
func dropMark(t *testing.T, root string) {
	t.Helper()
	content := read(t, root, progress.FileName)
	out := regexp.MustCompile(`(?m)^<!-- ccc:generated sha256:[0-9a-f]+ -->\n`).ReplaceAllString(content, "")
	require.NotEqual(t, content, out, "the file had a mark")
	write(t, root, progress.FileName, out)
}

func promptOnDisk(t *testing.T, root string) string {
	t.Helper()
	doc, err := progress.Parse([]byte(read(t, root, progress.FileName)))
	require.NoError(t, err)
	return doc.ContinuationPrompt
}

func TestPromptProvenance(t *testing.T) {
	// The seed's two-line form, with the agent's own key files and next action.
	agent := "Resume CIA-12. Current task: task 2 of 3 — port parser. Key files: parse.go, render.go.\n" +
		"Next action: fix the CRLF bug in render.go line 120 then rerun the corpus."
	start := progress.Edits{Issue: "CIA-12", Done: []string{"sketch"}, Current: "port parser", AddTasks: []string{"ship"}}
	const (
		atParser = "Resume CIA-12. Current task: task 2 of 3 — port parser. Key files: none. Next action: continue the current task."
		atShip   = "Resume CIA-12. Current task: task 3 of 3 — ship. Key files: none. Next action: continue the current task."
	)

	t.Run("the agent's prompt in the seed's form survives a checkpoint", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, start))
		setPrompt(t, root, agent)
		r := runCP(newCP(root, Manual, progress.Edits{Decisions: []string{"x: y"}}))
		assert.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
		assert.Equal(t, agent, promptOnDisk(t, root))
		assert.Equal(t, agent, r.Prompt)
		assert.Empty(t, r.Warnings)
		// And again, after an edit that changes the task numbers.
		runCP(newCP(root, Manual, progress.Edits{AddTasks: []string{"docs"}}))
		assert.Equal(t, agent, promptOnDisk(t, root))
	})

	t.Run("ccc's prompt edited by hand, its mark kept, is the agent's", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, start))
		content := read(t, root, progress.FileName)
		edited := strings.Replace(atParser, "continue the current task", "fix the CRLF bug first", 1)
		write(t, root, progress.FileName, strings.Replace(content, atParser, edited, 1))
		r := runCP(newCP(root, Manual, progress.Edits{AddTasks: []string{"docs"}}))
		assert.Equal(t, edited, promptOnDisk(t, root))
		assert.Equal(t, edited, r.Prompt, "the mark never reaches the prompt printed")
		assert.Empty(t, r.Warnings)
	})

	t.Run("an agent's prompt without a mark survives", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, start))
		setPrompt(t, root, agent)
		runCP(newCP(root, Manual, progress.Edits{Decisions: []string{"x: y"}}))
		assert.Equal(t, agent, promptOnDisk(t, root))
	})

	t.Run("ccc's own prompt follows --done", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, start))
		assert.Equal(t, atParser, promptOnDisk(t, root))
		assert.Contains(t, read(t, root, progress.FileName), atParser+"\n<!-- ccc:generated "+progress.PromptHash(atParser)+" -->\n")
		r := runCP(newCP(root, Manual, progress.Edits{Done: []string{"port parser"}}))
		assert.Equal(t, atShip, promptOnDisk(t, root))
		assert.Equal(t, atShip, r.Prompt)
		assert.Empty(t, r.Warnings, "ccc's own prompt is replaced without a word")
	})

	t.Run("ccc's own prompt reflowed onto two lines is still ccc's", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, start))
		write(t, root, progress.FileName, strings.Replace(read(t, root, progress.FileName), " Next action:", "\nNext action:", 1))
		runCP(newCP(root, Manual, progress.Edits{AddTasks: []string{"docs"}}))
		assert.Contains(t, promptOnDisk(t, root), "task 2 of 4 — port parser")
	})

	t.Run("ccc's prompt follows the agent's hand edit of the tasks", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, start))
		// The agent adds a task in the file itself; the prompt stays ccc's.
		write(t, root, progress.FileName, strings.Replace(read(t, root, progress.FileName), "- ship\n", "- ship\n- write docs\n", 1))
		runCP(newCP(root, Manual, progress.Edits{}))
		assert.Equal(t, "Resume CIA-12. Current task: task 2 of 4 — port parser. Key files: none. Next action: continue the current task.", promptOnDisk(t, root))
	})

	t.Run("a file from before the mark: ccc's exact prompt is refreshed", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, start))
		dropMark(t, root)
		runCP(newCP(root, Manual, progress.Edits{AddTasks: []string{"docs"}}))
		assert.Contains(t, promptOnDisk(t, root), "task 2 of 4 — port parser")
	})

	t.Run("a file from before the mark: ccc's older wording is refreshed", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, start))
		dropMark(t, root)
		write(t, root, progress.FileName, strings.Replace(read(t, root, progress.FileName), "continue the current task", "continue port parser", 1))
		runCP(newCP(root, Manual, progress.Edits{AddTasks: []string{"docs"}}))
		assert.Contains(t, promptOnDisk(t, root), "task 2 of 4 — port parser")
	})

	for _, flag := range []struct {
		name  string
		edits progress.Edits
		want  string
	}{
		{"--next", progress.Edits{Next: "rerun the corpus"}, "Resume CIA-12. Current task: task 2 of 3 — port parser. Key files: none. Next action: rerun the corpus."},
		{"--current", progress.Edits{Current: "ship"}, "Resume CIA-12. Current task: task 2 of 3 — ship. Key files: none. Next action: continue the current task."},
		{"--done", progress.Edits{Done: []string{""}}, atShip},
	} {
		t.Run(flag.name+" replaces the agent's prompt, says so and keeps it in the backup", func(t *testing.T) {
			root := t.TempDir()
			runCP(newCP(root, Automated, start))
			setPrompt(t, root, agent)
			before := read(t, root, progress.FileName)
			r := runCP(newCP(root, Manual, flag.edits))
			assert.Equal(t, flag.want, promptOnDisk(t, root))
			assert.Equal(t, flag.want, r.Prompt)
			require.Len(t, r.Warnings, 1, r.Lines())
			m := regexp.MustCompile(`^the continuation prompt the agent wrote was replaced by one generated for ` + flag.name + `; the old text is in (\S+)$`).
				FindStringSubmatch(r.Warnings[0])
			require.NotNil(t, m, r.Warnings[0])
			assert.Equal(t, filepath.Join(projectfs.Dir, projectfs.BackupDir), filepath.Dir(m[1]))
			assert.Equal(t, before, read(t, root, m[1]), "the backup holds the agent's prompt")
			assert.Contains(t, r.Lines(), "Warning: "+r.Warnings[0], "the report prints it")
		})
	}

	t.Run("--refresh-prompt replaces the agent's prompt", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, start))
		setPrompt(t, root, agent)
		cp := newCP(root, Manual, progress.Edits{})
		cp.Persist.RefreshPrompt = true
		r := runCP(cp)
		assert.Equal(t, atParser, promptOnDisk(t, root))
		assert.Equal(t, atParser, r.Prompt)
		require.Len(t, r.Warnings, 1)
		assert.Contains(t, r.Warnings[0], "replaced by one generated for --refresh-prompt")
		// Now ccc's again: it follows the next edit.
		runCP(newCP(root, Manual, progress.Edits{AddTasks: []string{"docs"}}))
		assert.Contains(t, promptOnDisk(t, root), "task 2 of 4 — port parser")
	})

	t.Run("the stop hook's checkpoints keep refreshing ccc's prompt", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, start))
		for _, e := range []progress.Edits{{Done: []string{""}}, {AddTasks: []string{"docs"}}} {
			cp := newCP(root, Automated, e)
			cp.Persist.KeepState = true
			runCP(cp)
		}
		assert.Equal(t, "Resume CIA-12. Current task: task 3 of 4 — ship. Key files: none. Next action: continue the current task.", promptOnDisk(t, root))
	})

	t.Run("a restored older file: its prompt is still ccc's", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, start))
		old := read(t, root, progress.FileName)
		runCP(newCP(root, Manual, progress.Edits{Done: []string{""}}))
		write(t, root, progress.FileName, old) // ccc restore, git checkout, a teammate's copy
		runCP(newCP(root, Manual, progress.Edits{AddTasks: []string{"docs"}}))
		assert.Equal(t, "Resume CIA-12. Current task: task 2 of 4 — port parser. Key files: none. Next action: continue the current task.", promptOnDisk(t, root))
	})
}

// TestPromptProvenanceNeedsOnlyTheProgressFile covers the crash window of
// the side file ccc once kept: .ccc-progress.md was renamed into place
// before .ccc/prompt recorded the new prompt's hash, so a kill between the
// two left a hash that made every later checkpoint keep ccc's own prompt
// as the agent's. The mark is written in the same rename as the prompt.
func TestPromptProvenanceNeedsOnlyTheProgressFile(t *testing.T) {
	start := progress.Edits{Issue: "CIA-12", Current: "port parser", AddTasks: []string{"ship"}}
	want := "Resume CIA-12. Current task: task 1 of 3 — port parser. Key files: none. Next action: continue the current task."

	t.Run("a hash left by a kill is not read", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, start))
		// What .ccc/prompt held when a kill landed after the rename: the
		// hash of the prompt before this one.
		stale := "sha256:" + strings.Repeat("0", 64) + "\n"
		write(t, root, filepath.Join(projectfs.Dir, "prompt"), stale)
		runCP(newCP(root, Automated, progress.Edits{AddTasks: []string{"docs"}}))
		assert.Equal(t, want, promptOnDisk(t, root))
	})

	t.Run("without .ccc at all", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, start))
		require.NoError(t, os.RemoveAll(filepath.Join(root, projectfs.Dir)))
		runCP(newCP(root, Automated, progress.Edits{AddTasks: []string{"docs"}}))
		assert.Equal(t, want, promptOnDisk(t, root))
	})
}

func TestFailedCheckpointPrompt(t *testing.T) {
	root := t.TempDir()
	runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-12", Current: "port parser"}))
	r := runCP(newCP(root, Manual, progress.Edits{Done: []string{""}, Blockers: []string{FailurePrefix + "the upstream API was removed"}}))
	want := "Resume CIA-12. Current task: none (1 of 1 tasks done). Key files: none. " +
		"Next action: investigate the failure (the upstream API was removed); to retry, reopen the work with ccc checkpoint --unblock FAILED."
	assert.Equal(t, want, r.Prompt)
	assert.NotContains(t, r.Prompt, "review the finished work")
	assert.Equal(t, want, promptOnDisk(t, root))
}

func TestPromptKeyFilesLeaveOutRefusedPaths(t *testing.T) {
	root := t.TempDir()
	write(t, root, state.FileName, `{"activeTaskFiles": ["parse.go", "-rf", ".ccc/lock", "../elsewhere.go", ".ccc-state.json", "pkg/render.go"]}`)
	r := runCP(newCP(root, Manual, progress.Edits{Issue: "CIA-4", Current: "a"}))
	assert.Equal(t, "Resume CIA-4. Current task: task 1 of 1 — a. Key files: parse.go, pkg/render.go. Next action: continue the current task.", r.Prompt)
}

func TestUnappliableEditsAreUsageErrors(t *testing.T) {
	tests := []struct {
		name  string
		edits progress.Edits
		want  string
	}{
		{"--unblock matching nothing", progress.Edits{Unblock: []string{"nothing"}, AddTasks: []string{"x"}},
			`--unblock "nothing": no blocker matches`},
		{"--unblock matching two", progress.Edits{Unblock: []string{"disk"}},
			`--unblock "disk": 2 blockers match; use more of the description`},
		{"--done \"\" with no current task", progress.Edits{Done: []string{""}, Current: ""},
			"--done: there is no current task"},
		{"two problems, both named", progress.Edits{AddTasks: []string{" "}, Decisions: []string{"None"}},
			`--add-task: empty text; --decision "None": "None" marks an empty section`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-6", Blockers: []string{"disk full", "disk slow"}}))
			progressBefore, stateBefore := read(t, root, progress.FileName), read(t, root, state.FileName)
			backups, _ := filepath.Glob(filepath.Join(root, projectfs.Dir, projectfs.BackupDir, "*"))

			cp := newCP(root, Manual, tt.edits)
			cp.Now = t0.Add(time.Hour)
			var ran []string
			steps := append(Manual.Steps(cp), fakeStep{name: "after", ran: &ran})
			r := Run(context.Background(), cp, steps)

			assert.Equal(t, OutcomeUsage, r.Outcome())
			assert.Equal(t, tt.want, r.Error)
			assert.Equal(t, []string{"Checkpoint not run: " + tt.want + ". Nothing was written."}, r.Lines())
			assert.Empty(t, r.Steps)
			assert.Empty(t, ran, "no step runs after the usage error")
			assert.Empty(t, r.Prompt)
			assert.Equal(t, progressBefore, read(t, root, progress.FileName), "nothing written")
			assert.Equal(t, stateBefore, read(t, root, state.FileName), "nothing written")
			after, _ := filepath.Glob(filepath.Join(root, projectfs.Dir, projectfs.BackupDir, "*"))
			assert.Equal(t, backups, after, "not even a backup")

			raw, err := json.Marshal(r)
			require.NoError(t, err)
			assert.Contains(t, string(raw), `"error":`)
			assert.Contains(t, string(raw), `"steps":[]`, "the report keeps its shape")
		})
	}
}

func TestIssueFlagUpdatesActiveIssue(t *testing.T) {
	root := t.TempDir()
	write(t, root, state.FileName, `{"activeIssue": "OLD-1", "phase": "execution"}`)
	runCP(newCP(root, Automated, progress.Edits{Issue: "NEW-2", Current: "a"}))
	st, err := state.Parse([]byte(read(t, root, state.FileName)))
	require.NoError(t, err)
	assert.Equal(t, "NEW-2", st.String("linearIssue"))
	assert.Equal(t, "NEW-2", st.String("activeIssue"), "CCC's hooks that read the old key see the new issue")
}

func TestPersistStampsCCCTimes(t *testing.T) {
	root := t.TempDir()
	runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-1", Current: "a"}))
	st, err := state.Parse([]byte(read(t, root, state.FileName)))
	require.NoError(t, err)
	assert.Equal(t, "2026-11-21T13:45:00Z", st.String("createdAt"), "set when persist creates the state")
	assert.Equal(t, "2026-11-21T13:45:00Z", st.String("lastUpdatedAt"))

	cp := newCP(root, Automated, progress.Edits{AddTasks: []string{"b"}})
	cp.Now = t0.Add(90 * time.Minute)
	runCP(cp)
	st, err = state.Parse([]byte(read(t, root, state.FileName)))
	require.NoError(t, err)
	assert.Equal(t, "2026-11-21T13:45:00Z", st.String("createdAt"), "kept")
	assert.Equal(t, "2026-11-21T15:15:00Z", st.String("lastUpdatedAt"), "the run's clock")

	// A state CCC created: createdAt is CCC's and stays as it is.
	other := t.TempDir()
	write(t, other, state.FileName, `{"phase": "execution", "createdAt": "2026-01-01T00:00:00Z"}`)
	runCP(newCP(other, Automated, progress.Edits{Current: "a"}))
	st, err = state.Parse([]byte(read(t, other, state.FileName)))
	require.NoError(t, err)
	assert.Equal(t, "2026-01-01T00:00:00Z", st.String("createdAt"))
	assert.Equal(t, "2026-11-21T13:45:00Z", st.String("lastUpdatedAt"))
}

func TestTemplateHasExecutionMode(t *testing.T) {
	root := t.TempDir()
	runCP(newCP(root, Automated, progress.Edits{Current: "a"}))
	assert.Contains(t, read(t, root, progress.FileName), "\n**Execution Mode:** exec:quick\n", "CCC's default when nothing names one")

	withState := t.TempDir()
	write(t, withState, state.FileName, `{"executionMode": "tdd"}`)
	runCP(newCP(withState, Automated, progress.Edits{Current: "a"}))
	assert.Contains(t, read(t, withState, progress.FileName), "\n**Execution Mode:** exec:tdd\n")
}

func TestJSONStepsAlwaysHaveAMessage(t *testing.T) {
	root := t.TempDir()
	r := runCP(newCP(root, Manual, progress.Edits{Issue: "CIA-1", Current: "a"}))
	raw, err := json.Marshal(r)
	require.NoError(t, err)
	var got struct {
		Steps []map[string]any `json:"steps"`
	}
	require.NoError(t, json.Unmarshal(raw, &got))
	require.Len(t, got.Steps, 4)
	for _, s := range got.Steps {
		for _, k := range []string{"name", "status", "message", "duration_ms"} {
			assert.Contains(t, s, k, "step %v", s["name"])
		}
	}
	assert.Equal(t, "", got.Steps[3]["message"], "the prompt step says nothing, but the key is there")
}

// cccRepo is a repository laid out as the README says: only .ccc/ ignored,
// the progress and state files committed.
func cccRepo(t *testing.T) string {
	t.Helper()
	isolateGit(t)
	root := t.TempDir()
	git(t, root, "init", "-q", "-b", "main")
	write(t, root, ".gitignore", ".ccc/\n")
	write(t, root, "parser.go", "package parser\n")
	runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-1", Current: "write parser", AddTasks: []string{"write tests"}}))
	write(t, root, state.FileName, strings.Replace(read(t, root, state.FileName), "{", `{"activeTaskFiles": ["parser.go"],`, 1))
	git(t, root, "add", ".")
	git(t, root, "commit", "-q", "-m", "initial")
	return root
}

func TestGitSnapshotCleanDespiteCCCFiles(t *testing.T) {
	root := cccRepo(t)
	cp := newCP(root, Manual, progress.Edits{Decisions: []string{"x: y"}})
	cp.Now = t0.Add(time.Hour) // the Session line changes: step 1 dirties the progress file
	r := runCP(cp)
	assert.Contains(t, r.Lines(), "Git snapshot skipped — working tree clean.")
	assert.Contains(t, git(t, root, "status", "--porcelain"), ".ccc-progress.md", "ccc's own change is there, and not committed")
	assert.Equal(t, "initial", git(t, root, "log", "-1", "--format=%s"))
}

func TestCommitMessageNamesTheTaskBeingCommitted(t *testing.T) {
	root := cccRepo(t)
	write(t, root, "parser.go", "package parser\n\nfunc Parse() {}\n")
	r := runCP(newCP(root, Manual, progress.Edits{Done: []string{"write parser"}}))
	require.Equal(t, OK, step(t, r, "Git snapshot").Status, r.Lines())
	assert.Equal(t, "chore(CIA-1): checkpoint — task 1/2: write parser", git(t, root, "log", "-1", "--format=%s"))
	assert.Equal(t, "parser.go", git(t, root, "show", "--name-only", "--format=", "HEAD"), "ccc's files are never committed")

	// The last task: the message still names it, not "no current task".
	write(t, root, "parser.go", "package parser\n\nfunc Parse() error { return nil }\n")
	r = runCP(newCP(root, Manual, progress.Edits{Done: []string{""}}))
	require.Equal(t, OK, step(t, r, "Git snapshot").Status, r.Lines())
	assert.Equal(t, "chore(CIA-1): checkpoint — task 2/2: write tests", git(t, root, "log", "-1", "--format=%s"))
}

func TestFailedPersistShowsTheDocumentAsSaved(t *testing.T) {
	const saved = "# Session Progress\n\n**Issue:** CIA-3\n\n## Current Task\n- a\n\n## Continuation Prompt\n"

	t.Run("the file keeps changing under ccc", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, progress.FileName, saved)
		cp := newCP(root, Manual, progress.Edits{AddTasks: []string{"b"}})
		n := 0
		r := runBeforeWrite(cp, func() { // another writer wins every race
			n++
			write(t, root, progress.FileName, saved+strings.Repeat("\n", n))
		})
		require.Equal(t, Failed, step(t, r, "Persist progress").Status, r.Lines())
		assert.NotContains(t, read(t, root, progress.FileName), "- b")
		assert.Equal(t, "Resume CIA-3. Current task: task 1 of 2 — a. Key files: none. Next action: continue the current task.", r.Prompt,
			"the prompt the user copies keeps the unsaved --add-task")
		assert.NotContains(t, r.StatusBody, "b", "the tracker hears only what is saved")
		assert.True(t, r.Unsaved)
		assert.Contains(t, r.Warnings, "the continuation prompt holds this run's edits, which were not saved in .ccc-progress.md: copy it now")
	})

	t.Run("the lock cannot be taken", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, progress.FileName, saved)
		write(t, root, projectfs.Dir, "") // a plain file where .ccc/ should be
		r := runCP(newCP(root, Manual, progress.Edits{AddTasks: []string{"b"}}))
		require.Equal(t, Failed, step(t, r, "Persist progress").Status, r.Lines())
		assert.Equal(t, OK, step(t, r, "Continuation prompt").Status, "the document could still be read")
		assert.Contains(t, r.Prompt, "task 1 of 2 — a", "the unsaved --add-task, applied to the file as read")
	})

	t.Run("nothing was saved", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, projectfs.Dir, "")
		r := runCP(newCP(root, Manual, progress.Edits{Current: "a", Next: "run the tests"}))
		assert.Equal(t, "Resume the session. Current task: task 1 of 1 — a. Key files: none. Next action: run the tests.", r.Prompt,
			"what the user passed, to copy by hand")
		assert.Equal(t, OutcomeUnsaved, r.Outcome())
		assert.Equal(t, "Nothing saved: .ccc-progress.md could not be written; 1 of 4 steps failed.", r.Lines()[0])
		assert.Equal(t, "progress not saved", step(t, r, "Git snapshot").Message, "no commit for a checkpoint that does not exist")
	})

	t.Run("nothing was saved, no edit", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, projectfs.Dir, "")
		r := runCP(newCP(root, Manual, progress.Edits{}))
		assert.Equal(t, progress.GenericPrompt, r.Prompt)
		assert.Equal(t, "no .ccc-progress.md", step(t, r, "Continuation prompt").Message)
	})
}

// roEnv names the read-only project a re-executed test binary checks.
const roEnv = "CCC_TEST_READONLY_ROOT"

// TestReadOnlyProjectRuns makes a chmod 555 project and checkpoints it as a
// user who cannot write there. Root ignores directory permissions, so when
// the tests run as root (CI, containers) the check runs in a copy of this
// test binary started as nobody.
func TestReadOnlyProjectRuns(t *testing.T) {
	inReadOnlyProject(t, roEnv, checkReadOnly)
}

// inReadOnlyProject makes a chmod 555 project holding readOnlyDoc and runs
// check in it as a user who cannot write there: when the tests run as root,
// in a copy of the test binary started as nobody, which finds the project
// in the variable env and runs only the calling test.
func inReadOnlyProject(t *testing.T, env string, check func(*testing.T, string)) {
	t.Helper()
	if root := os.Getenv(env); root != "" {
		check(t, root)
		return
	}
	base := t.TempDir()
	root := filepath.Join(base, "project")
	write(t, root, progress.FileName, readOnlyDoc)
	require.NoError(t, os.Chmod(root, 0o555))
	t.Cleanup(func() { _ = os.Chmod(root, 0o755) })
	if os.Geteuid() != 0 {
		check(t, root)
		return
	}
	runAsNobody(t, base, "^"+t.Name()+"$", env+"="+root)
}

const readOnlyDoc = "# Session Progress\n\n**Issue:** CIA-3\n\n## Current Task\n- a\n\n## Continuation Prompt\n"

func checkReadOnly(t *testing.T, root string) {
	r := runCP(newCP(root, Manual, progress.Edits{AddTasks: []string{"b"}}))
	persist := step(t, r, "Persist progress")
	assert.Equal(t, Failed, persist.Status)
	assert.Contains(t, persist.Message, "permission denied")
	assert.Len(t, r.Steps, 4, "every step ran")
	assert.Equal(t, readOnlyDoc, read(t, root, progress.FileName), "nothing lost, nothing half-written")
	assert.Equal(t, OutcomeUnsaved, r.Outcome())
	assert.Regexp(t, `^Nothing saved: `, r.Lines()[0])
	assert.Contains(t, r.Prompt, "task 1 of 2 — a", "the prompt keeps the unsaved --add-task for the user to copy")
	assert.NoFileExists(t, filepath.Join(root, state.FileName))
}

// nobody is the unprivileged uid and gid the re-executed test runs as.
const nobody = 65534

// runAsNobody runs the test binary again, as nobody, for the tests matching
// run, with env added. dir (made traversable) receives a copy of the binary,
// since go test keeps it in a directory only its owner can enter.
func runAsNobody(t *testing.T, dir, run string, env ...string) {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			require.NoError(t, os.Chmod(d, fi.Mode().Perm()|0o005))
			perm := fi.Mode().Perm()
			t.Cleanup(func() { _ = os.Chmod(d, perm) })
		}
	}
	bin := filepath.Join(dir, "checkpoint.test")
	copyFile(t, self, bin, 0o755)

	cmd := exec.Command(bin, "-test.run", run, "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Skipf("cannot start a process as uid %d to check a read-only directory (%v); run the tests as a normal user to cover it", nobody, err)
	}
	require.NoError(t, err, "as uid %d:\n%s", nobody, out)
	require.Contains(t, string(out), "--- PASS", "the check ran as uid %d:\n%s", nobody, out)
	t.Logf("as uid %d:\n%s", nobody, out)
}

func copyFile(t *testing.T, from, to string, perm os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}
