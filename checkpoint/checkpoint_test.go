package checkpoint

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/outbox"
	"github.com/ccc-checkpoint/ccc/state/records"
)

var t0 = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

func isolateGit(t *testing.T) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "Test Agent")
	t.Setenv("GIT_AUTHOR_EMAIL", "agent@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Test Agent")
	t.Setenv("GIT_COMMITTER_EMAIL", "agent@example.com")
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// newRepo makes a git repository with one commit and ccc's files ignored.
func newRepo(t *testing.T) string {
	t.Helper()
	isolateGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	write(t, dir, ".gitignore", ".ccc/\n.ccc-state.json\n.ccc-progress.md\n")
	write(t, dir, "parser.go", "package parser\n")
	write(t, dir, "other.go", "package other\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return string(b)
}

func newCP(root string, p Profile, e progress.Edits) *Context {
	return &Context{Root: root, Now: t0, Profile: p, Agent: "main", Edits: e, Issue: e.Issue, Key: testKey}
}

// testKey is the user's signing key in these tests.
var testKey = []byte("0123456789abcdef0123456789abcdef")

func runCP(cp *Context) Report {
	return Run(context.Background(), cp, cp.Profile.Steps(cp))
}

func step(t *testing.T, r Report, name string) Result {
	t.Helper()
	for _, s := range r.Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no step %q in %v", name, r.Lines())
	return Result{}
}

func TestManualCreatesProgressOutsideGit(t *testing.T) {
	root := t.TempDir()
	r := runCP(newCP(root, Manual, progress.Edits{Issue: "CIA-1", Current: "write parser", AddTasks: []string{"write tests"}}))

	assert.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
	assert.Equal(t, "Checkpoint complete: 4/4 steps succeeded.", r.Lines()[0])
	assert.Contains(t, r.Lines(), "Git snapshot skipped — not a git repository.")
	assert.Contains(t, r.Lines(), "Tracker update skipped — no tracker configured.")

	doc, err := progress.Parse([]byte(read(t, root, progress.FileName)))
	require.NoError(t, err)
	assert.Equal(t, "CIA-1", doc.Issue.Key)
	require.NotNil(t, doc.Current)
	assert.Equal(t, "write parser", doc.Current.Text)
	assert.Equal(t, 1, doc.TaskN())
	assert.Equal(t, 2, doc.TaskM())
	assert.Equal(t, "Resume CIA-1. Current task: task 1 of 2 — write parser. Key files: none. Next action: continue the current task.", r.Prompt)

	st, err := state.Parse([]byte(read(t, root, state.FileName)))
	require.NoError(t, err)
	assert.Equal(t, "CIA-1", st.Issue(), "the issue is stored for the tracker and CCC's hooks")
	last, ok := st.LastCheckpoint()
	require.True(t, ok)
	assert.Equal(t, t0, last.At)
}

func TestAutomatedRunsTwoSteps(t *testing.T) {
	root := t.TempDir()
	r := runCP(newCP(root, Automated, progress.Edits{Current: "x"}))
	assert.Equal(t, 2, r.Total)
	assert.Empty(t, r.Prompt, "the automated profile prints no prompt")
	assert.FileExists(t, filepath.Join(root, progress.FileName))
}

func TestEditsAccumulateAcrossRuns(t *testing.T) {
	root := t.TempDir()
	runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-7", Current: "a", AddTasks: []string{"b", "c"}}))
	runCP(newCP(root, Automated, progress.Edits{Done: []string{"a"}, Decisions: []string{"use x: it is fast"}, Blockers: []string{"need key (unblocked by: admin)"}}))
	r := runCP(newCP(root, Manual, progress.Edits{Next: "ask the admin"}))

	doc, err := progress.Parse([]byte(read(t, root, progress.FileName)))
	require.NoError(t, err)
	require.Len(t, doc.Completed, 1)
	assert.Equal(t, "a", doc.Completed[0].Text)
	require.NotNil(t, doc.Current)
	assert.Equal(t, "b", doc.Current.Text, "the next remaining task is promoted")
	assert.Equal(t, progress.Blocked, doc.Status())
	assert.Equal(t, "Resume CIA-7. Current task: task 2 of 3 — b. Key files: none. Next action: ask the admin.", r.Prompt)
}

func TestAgentWrittenPromptIsKept(t *testing.T) {
	root := t.TempDir()
	runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-2", Current: "a"}))
	p := filepath.Join(root, progress.FileName)
	content := read(t, root, progress.FileName)
	i := strings.Index(content, "## Continuation Prompt")
	require.Positive(t, i)
	mine := "Pick up the flaky test in parser_test.go first; the fix is half done."
	require.NoError(t, os.WriteFile(p, []byte(content[:i]+"## Continuation Prompt\n"+mine+"\n"), 0o644))

	r := runCP(newCP(root, Manual, progress.Edits{AddTasks: []string{"b"}}))
	assert.Equal(t, mine, r.Prompt)
	r = runCP(func() *Context {
		cp := newCP(root, Manual, progress.Edits{})
		cp.Persist.RefreshPrompt = true
		return cp
	}())
	assert.True(t, strings.HasPrefix(r.Prompt, "Resume CIA-2. Current task: task 1 of 2 — a."), r.Prompt)
}

func TestUnknownContentSurvivesCheckpoint(t *testing.T) {
	root := t.TempDir()
	orig := "# Session Progress\n\n**Issue:** CIA-3 — Parser\n**Session:** 2026-11-20T10:00:00Z\n**Execution Mode:** exec:tdd\n\n" +
		"## Completed Tasks\n- a ✓\n\n## Current Task\n- b — halfway\n\n## Remaining Tasks\n- c\n\n" +
		"## Notes for humans\nDo not touch `vendor/`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" +
		"## Decisions Made\n\n## Blockers\n- None\n\n## Continuation Prompt\nResume CIA-3. Current task: task 2 of 3 — b. Key files: none. Next action: continue b.\n"
	write(t, root, progress.FileName, orig)
	runCP(newCP(root, Automated, progress.Edits{AddTasks: []string{"d"}}))
	got := read(t, root, progress.FileName)
	assert.Contains(t, got, "## Notes for humans\nDo not touch `vendor/`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
	assert.Contains(t, got, "- c\n- d\n")
	assert.Less(t, strings.Index(got, "## Remaining Tasks"), strings.Index(got, "## Notes for humans"), "order kept")
	backups, err := projectfs.Backups(root, progress.FileName)
	require.NoError(t, err)
	require.Len(t, backups, 1)
	b, _ := os.ReadFile(backups[0])
	assert.Equal(t, orig, string(b), "the previous version is backed up")
}

func TestOutsideWriterDuringCheckpointIsNotLost(t *testing.T) {
	root := t.TempDir()
	runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-4", Current: "a"}))
	cp := newCP(root, Automated, progress.Edits{AddTasks: []string{"from ccc"}})
	writes := 0
	r := runBeforeWrite(cp, func() {
		if writes > 0 {
			return
		}
		writes++
		// The agent appends a section between ccc's read and its write.
		p := filepath.Join(root, progress.FileName)
		b, _ := os.ReadFile(p)
		require.NoError(t, os.WriteFile(p, append(b, "\n## Scratch\nwritten by the agent\n"...), 0o644))
	})
	assert.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
	got := read(t, root, progress.FileName)
	assert.Contains(t, got, "## Scratch\nwritten by the agent\n", "the outside write survives")
	assert.Contains(t, got, "- from ccc", "and so does ccc's edit")
}

func TestCorruptStateIsNeverOverwritten(t *testing.T) {
	root := t.TempDir()
	runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-5", Current: "a"}))
	runCP(newCP(root, Automated, progress.Edits{AddTasks: []string{"b"}})) // makes a state backup
	corrupt := "{\n  \"linearIssue\": \"CIA-5\",\n  \"taskIndex\": 2,,\n}\n"
	write(t, root, state.FileName, corrupt)

	r := runCP(newCP(root, Automated, progress.Edits{AddTasks: []string{"c"}}))
	assert.Equal(t, OutcomePartial, r.Outcome())
	persist := step(t, r, "Persist progress")
	assert.Equal(t, Failed, persist.Status)
	assert.Contains(t, r.String(), "Failed: Persist progress (.ccc-state.json:3:18: not valid JSON) — progress saved, .ccc-state.json left untouched.",
		"the failure names path:line")
	require.Len(t, r.Warnings, 1)
	assert.Contains(t, r.Warnings[0], ".ccc-state.json:3:18: not valid JSON")
	assert.Contains(t, r.Warnings[0], "continuing from backup .ccc/backups/.ccc-state.json.")

	assert.Equal(t, corrupt, read(t, root, state.FileName), "byte for byte")
	assert.Contains(t, read(t, root, progress.FileName), "- c", "progress is still saved")
	matches, _ := filepath.Glob(filepath.Join(root, ".ccc", "backups", "*.corrupt"))
	require.Len(t, matches, 1)
	b, _ := os.ReadFile(matches[0])
	assert.Equal(t, corrupt, string(b))
}

func TestProgressThatIsNotTextIsLeftAlone(t *testing.T) {
	root := t.TempDir()
	garbage := "# Session Progress\n\n## Current Task\n- a\x00\x01\x02\xff\n"
	write(t, root, progress.FileName, garbage)
	r := runCP(newCP(root, Manual, progress.Edits{AddTasks: []string{"b"}}))
	// Refused like a merge conflict: no later step commits, reports or
	// prompts from a file ccc cannot read.
	assert.Equal(t, OutcomeNothing, r.Outcome())
	assert.Empty(t, r.Steps)
	assert.Contains(t, r.Broken, ".ccc-progress.md:4: NUL byte: not a text file; fix it by hand")
	assert.Empty(t, r.Prompt)
	assert.Equal(t, garbage, read(t, root, progress.FileName))
}

func TestHugeProgressIsRefused(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, progress.FileName)
	f, err := os.Create(p)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(50<<20))
	require.NoError(t, f.Close())

	r := runCP(newCP(root, Automated, progress.Edits{AddTasks: []string{"b"}}))
	msg := step(t, r, "Persist progress").Message
	assert.Contains(t, msg, "is 50 MB, over the 10 MB limit")
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.EqualValues(t, 50<<20, fi.Size(), "left alone")
}

func TestUnwritableProjectFailsPersistAndRunsTheRest(t *testing.T) {
	root := t.TempDir()
	// .ccc as a plain file: ccc cannot make its lock directory, the same
	// path as a read-only project (which root, running these tests in CI,
	// would not notice).
	write(t, root, ".ccc", "")
	r := runCP(newCP(root, Manual, progress.Edits{Current: "a"}))
	persist := step(t, r, "Persist progress")
	assert.Equal(t, Failed, persist.Status)
	assert.Contains(t, persist.Message, "not a directory")
	assert.Len(t, r.Steps, 4, "every step ran")
	assert.NoFileExists(t, filepath.Join(root, progress.FileName))
}

func TestConcurrentCheckpointsLoseNoEdit(t *testing.T) {
	root := t.TempDir()
	runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-8", Current: "start"}))
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := runCP(newCP(root, Automated, progress.Edits{AddTasks: []string{fmt.Sprintf("task %02d", i)}}))
			assert.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
		}()
	}
	wg.Wait()
	doc, err := progress.Parse([]byte(read(t, root, progress.FileName)))
	require.NoError(t, err)
	assert.Len(t, doc.Remaining, n, "every edit landed")
	_, err = state.Parse([]byte(read(t, root, state.FileName)))
	assert.NoError(t, err, "the state file is valid")
}

func TestGitSnapshotCommitsOnlyInScopeFiles(t *testing.T) {
	root := newRepo(t)
	runCP(newCP(root, Manual, progress.Edits{Issue: "CIA-9", Current: "write parser", AddTasks: []string{"write tests"}}))
	write(t, root, state.FileName, strings.Replace(read(t, root, state.FileName), "{", `{"activeTaskFiles": ["parser.go", "../outside.go"],`, 1))
	write(t, root, "parser.go", "package parser\n\nfunc Parse() {}\n")
	write(t, root, "other.go", "package other // not in scope\n")

	r := runCP(newCP(root, Manual, progress.Edits{}))
	snap := step(t, r, "Git snapshot")
	require.Equal(t, OK, snap.Status, r.Lines())
	assert.Contains(t, snap.Message, "(1 file: parser.go)")
	assert.Equal(t, "parser.go", git(t, root, "show", "--name-only", "--format=", "HEAD"))
	assert.Equal(t, "chore(CIA-9): checkpoint — task 1/2: write parser", git(t, root, "log", "-1", "--format=%s"))
	assert.Equal(t, "M other.go", git(t, root, "status", "--porcelain"), "out-of-scope change left alone, unstaged")
	assert.Contains(t, strings.Join(r.Warnings, "\n"), `refused "../outside.go"`)

	st, err := state.Parse([]byte(read(t, root, state.FileName)))
	require.NoError(t, err)
	last, _ := st.LastCheckpoint()
	assert.Equal(t, git(t, root, "rev-parse", "HEAD"), last.Head, "HEAD after the snapshot is recorded")
	assert.Equal(t, "main", last.Branch)

	res, err := LoadResume(context.Background(), root, t0.Add(time.Hour), 24*time.Hour)
	require.NoError(t, err)
	assert.False(t, res.HeadMoved())
	assert.False(t, res.BranchMoved())
	assert.False(t, res.Stale)
	assert.Equal(t, time.Hour, res.Age)
}

func TestCommitMessageTemplate(t *testing.T) {
	root := newRepo(t)
	write(t, root, config.PrefsFile, "checkpoint:\n  commit_message: \"wip({issue}) {n} of {m}: {task}\"\n")
	write(t, root, state.FileName, `{"activeTaskFiles": ["parser.go"]}`)
	write(t, root, "parser.go", "package parser // changed\n")
	project := config.Settings{Env: config.Env{ConfigDir: t.TempDir()}}.Project(root)
	require.NoError(t, project.Problems.Commands)
	cp := newCP(root, Manual, progress.Edits{Issue: "CIA-10", Current: "x"})
	cp.Git.CommitMessage = project.Prefs.Checkpoint.CommitMessage
	r := runCP(cp)
	require.Equal(t, OK, step(t, r, "Git snapshot").Status, r.Lines())
	assert.Equal(t, "wip(CIA-10) 1 of 1: x", git(t, root, "log", "-1", "--format=%s"))
}

func TestResumeDetectsDrift(t *testing.T) {
	root := newRepo(t)
	runCP(newCP(root, Manual, progress.Edits{Issue: "CIA-11", Current: "a"}))
	write(t, root, "later.go", "package later\n")
	git(t, root, "add", "later.go")
	git(t, root, "commit", "-q", "-m", "later")
	git(t, root, "checkout", "-q", "-b", "feature")

	res, err := LoadResume(context.Background(), root, t0.Add(25*time.Hour), 24*time.Hour)
	require.NoError(t, err)
	assert.True(t, res.Stale)
	assert.True(t, res.BranchMoved())
	assert.Equal(t, "main", res.Branch)
	assert.Equal(t, "feature", res.NowBranch)
	assert.True(t, res.HeadMoved())
	assert.Equal(t, 1, res.CommitsSince)
	assert.Equal(t, "CIA-11", res.Issue)
}

func TestResumeWithoutProgress(t *testing.T) {
	_, err := LoadResume(context.Background(), t.TempDir(), t0, time.Hour)
	assert.ErrorIs(t, err, ErrNoProgress)
}

// fakeSink answers like a tracker from a script of errors.
type fakeSink struct {
	name   string // "fake" when empty
	mu     sync.Mutex
	errs   []error
	calls  int
	bodies []string
}

func (s *fakeSink) Name() string {
	if s.name == "" {
		return "fake"
	}
	return s.name
}
func (s *fakeSink) Title() string { return strings.ToUpper(s.Name()[:1]) + s.Name()[1:] }
func (s *fakeSink) Upsert(_ context.Context, d sinks.Delivery) (sinks.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	s.bodies = append(s.bodies, d.Body)
	if len(s.errs) > 0 {
		err := s.errs[0]
		s.errs = s.errs[1:]
		if err != nil {
			return sinks.Result{Requests: 1}, err
		}
	}
	if d.Prev.ID != "" {
		return sinks.Result{Action: sinks.Updated, Ref: sinks.Ref{ID: d.Prev.ID, URL: d.Prev.URL}, Requests: 1}, nil
	}
	return sinks.Result{Action: sinks.Created, Ref: sinks.Ref{ID: "c-1", URL: "https://tracker.example/c-1"}, Requests: 1}, nil
}

func TestTrackerStepUpsertsAndRemembers(t *testing.T) {
	root := t.TempDir()
	fs := &fakeSink{}
	run := func(e progress.Edits) Report {
		cp := newCP(root, Automated, e)
		cp.Trackers = []Tracker{{Sink: fs}}
		cp.Now = cp.Now.Add(time.Duration(fs.calls) * time.Minute)
		return runCP(cp)
	}
	r := run(progress.Edits{Issue: "CIA-12", Current: "a", AddTasks: []string{"b"}})
	assert.Contains(t, r.Lines(), "Fake update: created comment on CIA-12 https://tracker.example/c-1.")
	assert.Contains(t, fs.bodies[0], "**Task:** 1 of 2 — a")

	r = run(progress.Edits{Next: "do b"})
	assert.Contains(t, r.Lines(), "Fake update: updated comment on CIA-12 https://tracker.example/c-1.")
	assert.Equal(t, 2, fs.calls)

	r = run(progress.Edits{})
	assert.Contains(t, r.Lines(), "Fake update skipped — status unchanged.")
	assert.Equal(t, 2, fs.calls, "an unchanged status sends nothing")

	fs.errs = []error{&sinks.Error{Cause: "HTTP 503"}}
	r = run(progress.Edits{AddTasks: []string{"c"}})
	assert.Contains(t, r.Lines(), "Failed: Fake update (HTTP 503) — queued for retry (ccc sync).")
	assert.Equal(t, OutcomePartial, r.Outcome())

	fs.errs = []error{sinks.Skip("FAKE_KEY not set")}
	r = run(progress.Edits{AddTasks: []string{"d"}})
	assert.Contains(t, r.Lines(), "Fake update skipped — FAKE_KEY not set.")

	st, err := state.Parse([]byte(read(t, root, state.FileName)))
	require.NoError(t, err)
	var ref sinks.Ref
	found, err := st.Ref("fake", "CIA-12", "main", &ref)
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, "c-1", ref.ID)
}

func TestTrackerIssueResolution(t *testing.T) {
	tests := []struct {
		name, flag, stateJSON, docIssue, branch, want string
	}{
		{"flag wins", "CIA-1", `{"linearIssue": "CIA-2"}`, "CIA-3", "cia-4-x", "CIA-1"},
		{"state", "", `{"linearIssue": "CIA-2"}`, "CIA-3", "cia-4-x", "CIA-2"},
		{"state alias", "", `{"activeIssue": "CIA-5"}`, "CIA-3", "", "CIA-5"},
		{"document", "", `{}`, "CIA-3", "cia-4-x", "CIA-3"},
		{"branch", "", `{}`, "", "claude/cia-387-dispatch-rules", "CIA-387"},
		{"none", "", `{}`, "", "main", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := state.Parse([]byte(tt.stateJSON))
			require.NoError(t, err)
			doc := progress.New(tt.docIssue, t0)
			cp := &Context{Issue: tt.flag, State: st, Doc: doc, branch: tt.branch}
			got, _ := cp.trackerIssue()
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestKeepStateLeavesStateButBookkeeping(t *testing.T) {
	root := t.TempDir()
	orig := "{\n  \"phase\": \"execution\",\n  \"taskIndex\": 2,\n  \"linearIssue\": \"CIA-13\"\n}\n"
	write(t, root, state.FileName, orig)
	cp := newCP(root, Automated, progress.Edits{Current: "a"})
	cp.Persist.KeepState = true
	cp.Trackers = []Tracker{{Sink: &fakeSink{}}}
	r := runCP(cp)
	require.Equal(t, OutcomeOK, r.Outcome(), r.Lines())

	st, err := state.Parse([]byte(read(t, root, state.FileName)))
	require.NoError(t, err)
	assert.Equal(t, []string{"phase", "taskIndex", "linearIssue", "ccc"}, st.Keys(), "only ccc's bookkeeping was added")
	_, recorded := st.LastCheckpoint()
	assert.False(t, recorded, "no checkpoint record in a state the hook owns")
	var ref sinks.Ref
	found, err := st.Ref("fake", "CIA-13", "main", &ref)
	require.NoError(t, err)
	assert.True(t, found, "the tracker reference is kept")

	// Without a tracker the file stays byte for byte.
	write(t, root, state.FileName, orig)
	cp = newCP(root, Automated, progress.Edits{AddTasks: []string{"b"}})
	cp.Persist.KeepState = true
	runCP(cp)
	assert.Equal(t, orig, read(t, root, state.FileName))
}

func TestKeepStateNeverRecreatesState(t *testing.T) {
	root := t.TempDir()
	cp := newCP(root, Automated, progress.Edits{Issue: "CIA-14", Current: "a"})
	cp.Persist.KeepState = true
	cp.Trackers = []Tracker{{Sink: &fakeSink{}}}
	r := runCP(cp)
	require.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
	assert.Contains(t, r.Lines(), "Fake update: created comment on CIA-14 https://tracker.example/c-1.")
	assert.NoFileExists(t, filepath.Join(root, state.FileName))
}

func TestTrackerFanOut(t *testing.T) {
	root := t.TempDir()
	good := &fakeSink{name: "good"}
	bad := &fakeSink{name: "bad", errs: []error{&sinks.Error{Cause: "HTTP 502"}}}
	cp := newCP(root, Automated, progress.Edits{Issue: "CIA-15", Current: "a"})
	cp.Trackers = []Tracker{
		{Sink: good},
		{Sink: bad, Target: "acme/app#7"},
		{Sink: &fakeSink{name: "untargeted"}, Skip: "no GitHub issue or pull request (pass --github owner/repo#N)"},
	}
	r := runCP(cp)
	assert.Equal(t, OutcomePartial, r.Outcome())
	assert.Equal(t, 1, good.calls, "delivered although another sink failed")
	assert.Equal(t, 1, bad.calls)
	tracker := step(t, r, "Tracker update")
	assert.Equal(t, []string{
		"Checkpoint saved; 1 of 2 steps failed: Tracker update (queued for retry).",
		"Persist progress: created .ccc-progress.md (task 1 of 1, In Progress).",
		"Failed: Tracker update (1 of 3 failed) — queued for retry (ccc sync).",
		"  Good: created comment on CIA-15 https://tracker.example/c-1.",
		"  Bad: failed (HTTP 502) — queued for retry (ccc sync).",
		"  Untargeted: skipped — no GitHub issue or pull request (pass --github owner/repo#N).",
	}, r.Lines())
	require.Len(t, tracker.Sinks, 3)
	assert.Equal(t, SinkResult{Sink: "good", Title: "Good", Target: "CIA-15", Action: sinks.Created, URL: "https://tracker.example/c-1", Requests: 1,
		Wrote: "created comment on CIA-15"}, tracker.Sinks[0])
	assert.Equal(t, SinkResult{Sink: "bad", Title: "Bad", Target: "acme/app#7", Action: sinks.Failed, Requests: 1, Error: "HTTP 502", Queued: true}, tracker.Sinks[1])
	assert.Equal(t, sinks.Skipped, tracker.Sinks[2].Action)
	assert.Contains(t, r.StatusBody, "## Checkpoint Status")

	// Next run: the good sink is unchanged, the bad one recovers.
	cp = newCP(root, Automated, progress.Edits{})
	cp.Trackers = []Tracker{{Sink: good}, {Sink: bad, Target: "acme/app#7"}}
	r = runCP(cp)
	assert.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
	assert.Equal(t, 1, good.calls, "unchanged: no call")
	assert.Contains(t, r.Lines(), "Tracker update: 1 of 2 delivered.")
	assert.Contains(t, r.Lines(), "  Good: skipped — status unchanged.")
	assert.Contains(t, r.Lines(), "  Bad: created comment on acme/app#7 https://tracker.example/c-1.")
}

func TestPostBodyReplacesStatus(t *testing.T) {
	root := t.TempDir()
	fs := &fakeSink{}
	cp := newCP(root, Automated, progress.Edits{})
	cp.Tracker.Body = "Deployed build 42."
	cp.Trackers = []Tracker{{Sink: fs, Target: "CIA-16"}}
	r := Run(context.Background(), cp, Post.Steps(cp))
	assert.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
	require.Len(t, fs.bodies, 1)
	assert.Equal(t, "Deployed build 42.", fs.bodies[0])
	assert.NoFileExists(t, filepath.Join(root, progress.FileName), "post writes no progress")
}

func TestOutboxKeepsWhatFailedAndDeliversItLater(t *testing.T) {
	root := t.TempDir()
	lin := &fakeSink{name: "linear", errs: []error{&sinks.Error{Cause: "HTTP 503"}}}
	other := &fakeSink{name: "other"}
	at := func(d time.Duration, sk []Tracker, e progress.Edits) Report {
		cp := newCP(root, Automated, e)
		cp.Now = t0.Add(d)
		cp.Trackers = sk
		return runCP(cp)
	}
	r := at(0, []Tracker{{Sink: lin}}, progress.Edits{Issue: "CIA-17", Current: "a"})
	assert.Contains(t, r.Lines(), "Failed: Linear update (HTTP 503) — queued for retry (ccc sync).")
	queued, err := outbox.List(root, t0)
	require.NoError(t, err)
	require.Len(t, queued, 1)
	assert.Equal(t, "linear", queued[0].Sink)
	assert.Equal(t, "CIA-17", queued[0].Target)
	assert.Equal(t, "HTTP 503", queued[0].LastError)
	assert.Contains(t, queued[0].Body, "**Task:** 1 of 1 — a")

	// A run for another sink before the entry is due leaves it queued.
	r = at(10*time.Second, []Tracker{{Sink: lin, Target: "CIA-99"}}, progress.Edits{})
	assert.Empty(t, r.Outbox, "not due yet")

	// Once due, the next run of the same sink delivers it first.
	r = at(time.Minute, []Tracker{{Sink: lin, Target: "CIA-99"}, {Sink: other}}, progress.Edits{})
	require.Len(t, r.Outbox, 1)
	assert.Contains(t, r.Lines(), "Outbox: 1 of 1 queued update(s) delivered.")
	assert.Equal(t, 3, lin.calls, "the queued body went out; the run's own status was unchanged for CIA-99")
	assert.Equal(t, queued[0].Body, lin.bodies[2])
	queued, err = outbox.List(root, t0)
	require.NoError(t, err)
	assert.Empty(t, queued)
}

func TestOwnDeliverySupersedesQueuedBody(t *testing.T) {
	root := t.TempDir()
	lin := &fakeSink{name: "linear", errs: []error{&sinks.Error{Cause: "HTTP 503"}}}
	cp := newCP(root, Automated, progress.Edits{Issue: "CIA-18", Current: "a"})
	cp.Trackers = []Tracker{{Sink: lin}}
	runCP(cp)
	cp = newCP(root, Automated, progress.Edits{Current: "b"})
	cp.Now = t0.Add(time.Hour)
	cp.Trackers = []Tracker{{Sink: lin}}
	r := runCP(cp)
	assert.Empty(t, r.Outbox, "the stale queued body is not sent")
	assert.Equal(t, 2, lin.calls)
	queued, err := outbox.List(root, t0)
	require.NoError(t, err)
	assert.Empty(t, queued, "the new delivery supersedes it")
}

func TestSyncCorrection(t *testing.T) {
	progressAt := func(session string) string {
		return "# Session Progress\n\n**Issue:** CIA-19\n**Session:** " + session + "\n\n## Completed Tasks\n- a ✓\n\n" +
			"## Current Task\n- b\n\n## Remaining Tasks\n- c\n- d\n\n## Decisions Made\n\n## Blockers\n- None\n\n## Continuation Prompt\n"
	}
	t.Run("state is newer: progress follows", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, progress.FileName, progressAt("2026-11-21T10:00:00Z"))
		write(t, root, state.FileName, `{"taskIndex": 3, "totalTasks": 4, "lastUpdatedAt": "2026-11-21T12:00:00Z", "phase": "execution"}`)
		r := runCP(newCP(root, Automated, progress.Edits{}))
		assert.Contains(t, r.Lines(), "Sync corrected: .ccc-progress.md updated to match .ccc-state.json.")
		assert.Equal(t, []string{"Sync corrected: .ccc-progress.md updated to match .ccc-state.json."}, r.Notices)
		doc, err := progress.Parse([]byte(read(t, root, progress.FileName)))
		require.NoError(t, err)
		assert.Equal(t, 3, doc.CompletedCount())
		require.NotNil(t, doc.Current)
		assert.Equal(t, "d", doc.Current.Text)
	})
	t.Run("progress is newer: state follows", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, progress.FileName, progressAt("2026-11-21T12:00:00Z"))
		write(t, root, state.FileName, `{"taskIndex": 0, "totalTasks": 2, "lastUpdatedAt": "2026-11-21T10:00:00Z", "phase": "execution"}`)
		r := runCP(newCP(root, Automated, progress.Edits{}))
		assert.Contains(t, r.Lines(), "Sync corrected: .ccc-state.json updated to match .ccc-progress.md.")
		st, err := state.Parse([]byte(read(t, root, state.FileName)))
		require.NoError(t, err)
		i, _ := st.Int("taskIndex")
		n, _ := st.Int("totalTasks")
		assert.Equal(t, []int{1, 4}, []int{i, n})
		assert.Equal(t, "2026-11-21T13:45:00Z", st.String("lastUpdatedAt"))
		assert.Equal(t, []string{"taskIndex", "totalTasks", "lastUpdatedAt", "phase", "linearIssue", "ccc"}, st.Keys())
	})
	t.Run("in agreement: nothing said", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, progress.FileName, progressAt("2026-11-21T12:00:00Z"))
		write(t, root, state.FileName, `{"taskIndex": 1, "totalTasks": 4, "lastUpdatedAt": "2026-11-21T13:00:00Z"}`)
		r := runCP(newCP(root, Automated, progress.Edits{}))
		assert.Empty(t, r.Notices)
	})
	t.Run("no progress file: built from the state's plan", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, state.FileName, `{"linearIssue": "CIA-20", "taskIndex": 1, "totalTasks": 3, "phase": "execution"}`)
		r := runCP(newCP(root, Automated, progress.Edits{}))
		assert.Contains(t, r.Lines(), "Persist progress: created .ccc-progress.md (task 2 of 3, In Progress).")
		doc, err := progress.Parse([]byte(read(t, root, progress.FileName)))
		require.NoError(t, err)
		require.NotNil(t, doc.Current)
		assert.Equal(t, "Task 2 (from .ccc-state.json)", doc.Current.Text)
	})
	t.Run("the stop hook's loop position wins, with the state deleted", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, progress.FileName, progressAt("2026-11-21T13:45:00Z")) // as new as the run: no time says who wins
		cp := newCP(root, Automated, progress.Edits{})
		cp.Persist.KeepState, cp.Issue = true, "CIA-19"
		cp.Persist.Loop = &Loop{TaskIndex: 4, TotalTasks: 4}
		r := runCP(cp)
		require.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
		assert.Contains(t, r.Lines(), "Persist progress: updated .ccc-progress.md (task 4 of 4, Complete).")
		doc, err := progress.Parse([]byte(read(t, root, progress.FileName)))
		require.NoError(t, err)
		assert.Equal(t, 4, doc.CompletedCount())
		assert.Nil(t, doc.Current)
		assert.Contains(t, doc.ContinuationPrompt, "Current task: none (4 of 4 tasks done)")
		assert.NoFileExists(t, filepath.Join(root, state.FileName), "not re-created")
	})
	t.Run("the stop hook's loop position wins over a newer document", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, progress.FileName, progressAt("2026-11-21T12:00:00Z"))
		orig := `{"taskIndex": 2, "totalTasks": 4, "lastUpdatedAt": "2026-11-21T10:00:00Z"}`
		write(t, root, state.FileName, orig)
		cp := newCP(root, Automated, progress.Edits{})
		cp.Persist.KeepState, cp.Persist.Loop = true, &Loop{TaskIndex: 2, TotalTasks: 4}
		runCP(cp)
		doc, err := progress.Parse([]byte(read(t, root, progress.FileName)))
		require.NoError(t, err)
		assert.Equal(t, 2, doc.CompletedCount())
		assert.Equal(t, orig, read(t, root, state.FileName))
	})
	t.Run("the stop hook's state is never rewritten", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, progress.FileName, progressAt("2026-11-21T12:00:00Z"))
		orig := `{"taskIndex": 0, "totalTasks": 2, "lastUpdatedAt": "2026-11-21T10:00:00Z"}`
		write(t, root, state.FileName, orig)
		cp := newCP(root, Automated, progress.Edits{})
		cp.Persist.KeepState = true
		r := runCP(cp)
		assert.Empty(t, r.Notices)
		assert.Equal(t, orig, read(t, root, state.FileName))
	})
}

func TestResumeSources(t *testing.T) {
	t.Run("missing progress is rebuilt from the state", func(t *testing.T) {
		root := t.TempDir()
		write(t, root, state.FileName, `{"linearIssue": "CIA-21", "taskIndex": 1, "totalTasks": 3, "activeTaskFiles": ["a.go"]}`)
		r, err := LoadResume(context.Background(), root, t0, time.Hour)
		require.NoError(t, err)
		assert.Equal(t, state.FileName, r.Source)
		assert.Equal(t, "Resume CIA-21. Current task: task 2 of 3 — Task 2 (from .ccc-state.json). Key files: a.go. Next action: continue the current task.", r.Prompt)
		assert.Contains(t, r.Warnings, ".ccc-progress.md is missing; resumed from .ccc-state.json and rebuilt it")
		assert.FileExists(t, filepath.Join(root, progress.FileName))
	})
	t.Run("corrupt progress: the newest valid backup, file left alone", func(t *testing.T) {
		root := t.TempDir()
		runCP(newCP(root, Automated, progress.Edits{Issue: "CIA-22", Current: "a"}))
		runCP(newCP(root, Automated, progress.Edits{Current: "b"})) // backs up the "a" version
		require.NoError(t, os.Remove(filepath.Join(root, state.FileName)))
		require.NoError(t, os.RemoveAll(filepath.Join(root, ".ccc", "checkpoints")), "no record either")
		garbage := "\x00\x01 not text"
		write(t, root, progress.FileName, garbage)
		r, err := LoadResume(context.Background(), root, t0, time.Hour)
		require.NoError(t, err)
		assert.Contains(t, r.Source, ".ccc/backups/.ccc-progress.md.")
		assert.Contains(t, r.Prompt, "Resume CIA-22. Current task: task 1 of 1 — a.")
		assert.Contains(t, r.Warnings[0], ".ccc-progress.md cannot be read: .ccc-progress.md:1: ")
		assert.Equal(t, garbage, read(t, root, progress.FileName), "a corrupt file is never overwritten")
	})
	t.Run("a record stands in when there is no state", func(t *testing.T) {
		root := t.TempDir()
		cp := newCP(root, Automated, progress.Edits{Issue: "CIA-23", Current: "b", Done: []string{"a"}})
		cp.Agent = "worker-1"
		runCP(cp)
		require.NoError(t, os.Remove(filepath.Join(root, progress.FileName)))
		require.NoError(t, os.Remove(filepath.Join(root, state.FileName)))
		require.NoError(t, os.RemoveAll(filepath.Join(root, ".ccc", "backups")))
		r, err := LoadResumeWith(context.Background(), root, t0.Add(time.Hour), ResumeOptions{Agent: "worker-1"})
		require.NoError(t, err)
		assert.Equal(t, ".ccc/checkpoints/worker-1.json", r.Source)
		assert.Equal(t, t0, r.At, "dated by the record, not by the file just rebuilt")
		assert.Equal(t, time.Hour, r.Age)
		assert.Equal(t, "Resume CIA-23. Current task: task 2 of 2 — b. Key files: none. Next action: continue the current task.", r.Prompt)
	})
	t.Run("no source at all", func(t *testing.T) {
		_, err := LoadResume(context.Background(), t.TempDir(), t0, time.Hour)
		assert.ErrorIs(t, err, ErrNoProgress)
	})
}

func TestSecretsAreRedactedBeforeLeaving(t *testing.T) {
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	root := newRepo(t)
	write(t, root, state.FileName, `{"activeTaskFiles": ["parser.go"]}`)
	write(t, root, "parser.go", "package parser // changed\n")
	scrubbed, raw := &fakeSink{name: "scrubbed"}, &fakeSink{name: "raw"}
	cp := newCP(root, Manual, progress.Edits{Issue: "CIA-24", Current: "rotate " + token,
		Decisions: []string{"use the key lin_api_0123456789abcdefghijklmnopqrstuvwxyzAB: it works"}})
	cp.Trackers = []Tracker{{Sink: scrubbed}, {Sink: raw}}
	cp.Tracker.NoRedact = map[string]bool{"raw": true}
	r := runCP(cp)
	require.Equal(t, OutcomeOK, r.Outcome(), r.Lines())

	require.Len(t, scrubbed.bodies, 1)
	assert.NotContains(t, scrubbed.bodies[0], token)
	assert.NotContains(t, scrubbed.bodies[0], "lin_api_0123")
	assert.Contains(t, scrubbed.bodies[0], "rotate [REDACTED:github-token]")
	assert.Contains(t, scrubbed.bodies[0], "[REDACTED:linear-key]")
	assert.Contains(t, r.Lines(), "  Scrubbed: created comment on CIA-24 https://tracker.example/c-1 (2 secret(s) redacted).")
	assert.Contains(t, raw.bodies[0], token, "redaction is off only where the preferences say so")
	assert.Equal(t, 2, step(t, r, "Tracker update").Sinks[0].Redacted, "the token is in the Task line (Next does not repeat it), the key in Decisions")

	msg := git(t, root, "log", "-1", "--format=%s")
	assert.Equal(t, "chore(CIA-24): checkpoint — task 1/1: rotate [REDACTED:github-token]", msg)
	assert.Contains(t, strings.Join(r.Warnings, "\n"), "1 secret(s) redacted from the commit message")
	assert.Contains(t, read(t, root, progress.FileName), token, "the user's own progress file is not rewritten")
}

func TestRecordWrittenWithSessionAndSnapshotHead(t *testing.T) {
	root := newRepo(t)
	write(t, root, state.FileName, `{"activeTaskFiles": ["parser.go"], "phase": "execution"}`)
	write(t, root, "parser.go", "package parser // v2\n")
	cp := newCP(root, Manual, progress.Edits{Issue: "CIA-25", Current: "a", AddTasks: []string{"b"}})
	cp.Agent, cp.Record.SessionID = "w1", "sess-1"
	r := runCP(cp)
	require.Equal(t, OutcomeOK, r.Outcome(), r.Lines())

	dir, err := records.Dir(context.Background(), root)
	require.NoError(t, err)
	rec, err := records.Load(dir, "w1")
	require.NoError(t, err)
	assert.Equal(t, "sess-1", rec.SessionID)
	assert.Equal(t, "CIA-25", rec.Issue)
	assert.Equal(t, "execution", rec.Phase)
	assert.Equal(t, "a", rec.CurrentStep)
	assert.Equal(t, []string{"b"}, rec.NextSteps)
	assert.Equal(t, "main", rec.Branch)
	assert.Equal(t, git(t, root, "rev-parse", "HEAD"), rec.Head, "the HEAD of the snapshot commit, so status shows no drift")
	assert.Equal(t, r.Prompt, rec.ResumeInstructions)
}

// TestTrackerReportSaysEachReasonOnce: with several sinks the step's line
// counts them and each sink's line gives its reason; queued updates that
// end alike share one line.
func TestTrackerReportSaysEachReasonOnce(t *testing.T) {
	root := t.TempDir()
	noKey := &fakeSink{name: "linear", errs: []error{sinks.Skip("LINEAR_API_KEY not set")}}
	cp := newCP(root, Automated, progress.Edits{Issue: "CIA-21", Current: "a"})
	cp.Trackers = []Tracker{
		{Sink: noKey},
		{Sink: &fakeSink{name: "github"}, Skip: "no GitHub issue or pull request (pass --github owner/repo#N)"},
	}
	r := runCP(cp)
	assert.Equal(t, OutcomeOK, r.Outcome())
	assert.Equal(t, []string{
		"Checkpoint complete: 2/2 steps succeeded.",
		"Persist progress: created .ccc-progress.md (task 1 of 1, In Progress).",
		"Tracker update skipped — none of 2 delivered.",
		"  Linear: skipped — LINEAR_API_KEY not set.",
		"  Github: skipped — no GitHub issue or pull request (pass --github owner/repo#N).",
	}, r.Lines())

	// Three updates queued for two issues, then a run without the key:
	// every redelivery skips for the same reason, said once.
	lin := &fakeSink{name: "linear", errs: []error{&sinks.Error{Cause: "HTTP 503"}, &sinks.Error{Cause: "HTTP 503"}, &sinks.Error{Cause: "HTTP 503"}}}
	for i, q := range []struct{ issue, agent string }{{"CIA-21", "main"}, {"CIA-22", "main"}, {"CIA-22", "b"}} {
		cp = newCP(root, Automated, progress.Edits{Issue: q.issue, Current: fmt.Sprintf("task %d", i)})
		cp.Agent = q.agent
		cp.Trackers = []Tracker{{Sink: lin}}
		require.Equal(t, OutcomePartial, runCP(cp).Outcome())
	}
	skip := sinks.Skip("LINEAR_API_KEY not set")
	noKey = &fakeSink{name: "linear", errs: []error{skip, skip, skip, skip}}
	cp = newCP(root, Automated, progress.Edits{Issue: "CIA-23"})
	cp.Now = t0.Add(time.Hour)
	cp.Trackers = []Tracker{{Sink: noKey}}
	r = runCP(cp)
	assert.Equal(t, []string{
		"Checkpoint complete: 2/2 steps succeeded.",
		"Persist progress: updated .ccc-progress.md (task 1 of 4, In Progress).",
		"Linear update skipped — LINEAR_API_KEY not set.",
		"Outbox: 0 of 3 queued update(s) delivered.",
		"  Linear CIA-21, CIA-22 (3 updates): skipped — LINEAR_API_KEY not set.",
	}, r.Lines())
}

// TestIssueKeysInAnyCase: an issue key in lower case, from an edit, the
// state or the branch, reaches the state and the tracker in upper case.
func TestIssueKeysInAnyCase(t *testing.T) {
	root := t.TempDir()
	cp := newCP(root, Automated, progress.Edits{Issue: "cia-30", Current: "a"})
	cp.Trackers = []Tracker{{Sink: &fakeSink{}}}
	r := runCP(cp)
	require.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
	assert.Equal(t, "CIA-30", step(t, r, "Fake update").Sinks[0].Target)
	st, err := state.Parse([]byte(read(t, root, state.FileName)))
	require.NoError(t, err)
	assert.Equal(t, "CIA-30", st.String("linearIssue"))

	other := t.TempDir()
	write(t, other, state.FileName, `{"linearIssue": "cia-31"}`)
	cp = newCP(other, Automated, progress.Edits{Current: "a"})
	cp.Trackers = []Tracker{{Sink: &fakeSink{}}}
	r = runCP(cp)
	assert.Equal(t, "CIA-31", step(t, r, "Fake update").Sinks[0].Target)
	assert.Contains(t, read(t, other, progress.FileName), "**Issue:** CIA-31")

	for branch, want := range map[string]string{"cia-32-parser": "CIA-32", "claude/Eng2-7": "ENG2-7"} {
		cp = &Context{Root: t.TempDir(), branch: branch}
		got, from := cp.trackerIssue()
		assert.Equal(t, want, got)
		assert.Equal(t, "branch "+branch, from)
	}
}

// A task is redacted before it is cut to the subject's length: cut first, a
// token across the cut left its first part in the subject, where no
// redactor could recognise it any more (a GitHub token cut short is no
// longer a token's shape). A held token base64-encoded across the cut is
// gone too.
func TestCommitMessageRedactsBeforeItCuts(t *testing.T) {
	const held = "held-secret-0123456789-abcdefghij"
	enc := base64.StdEncoding.EncodeToString([]byte(held))
	tok := "gh" + "p_" + strings.Repeat("Ab3", 12)
	for name, secret := range map[string]string{"pattern token": tok, "held token base64": enc} {
		t.Run(name, func(t *testing.T) {
			root := newRepo(t)
			write(t, root, state.FileName, `{"activeTaskFiles": ["parser.go"]}`)
			write(t, root, "parser.go", "package parser // changed\n")
			task := strings.Repeat("a", maxSubjectTask-len(secret)/2) + " " + secret + " and more"
			cp := newCP(root, Manual, progress.Edits{Issue: "CIA-10", Current: task})
			red, err := redact.New([]string{held}, nil)
			require.NoError(t, err)
			cp.Redactor = red
			r := runCP(cp)
			require.Equal(t, OK, step(t, r, "Git snapshot").Status, r.Lines())
			msg := git(t, root, "log", "-1", "--format=%B")
			assert.NotContains(t, msg, secret[:12], "no part of the token survives the cut")
			assert.Contains(t, msg, "[REDACTED:")
		})
	}
}

// A task of megabytes makes a commit with a readable subject: the task cut
// to 72 characters there, and in full (up to a limit) in the body.
func TestCommitMessageCapsALongTask(t *testing.T) {
	root := newRepo(t)
	write(t, root, state.FileName, `{"activeTaskFiles": ["parser.go"]}`)
	write(t, root, "parser.go", "package parser // changed\n")
	task := strings.Repeat("parse ", 1<<20)
	r := runCP(newCP(root, Manual, progress.Edits{Issue: "CIA-10", Current: task}))
	require.Equal(t, OK, step(t, r, "Git snapshot").Status, r.Lines())
	subject := git(t, root, "log", "-1", "--format=%s")
	assert.Equal(t, "chore(CIA-10): checkpoint — task 1/1: "+strings.Repeat("parse ", 11)+"parse…", strings.TrimSpace(subject))
	body := git(t, root, "log", "-1", "--format=%b")
	assert.Equal(t, maxBodyTask, utf8.RuneCountInString(strings.TrimSpace(body)))
	assert.True(t, strings.HasSuffix(strings.TrimSpace(body), "…"))
}

func TestGitFailureNamesTheCause(t *testing.T) {
	err := gitFailure(&gitrepo.GitError{Args: []string{"commit"}, Err: errors.New("fork/exec /usr/bin/git: argument list too long")})
	var f *Failure
	require.ErrorAs(t, err, &f)
	assert.Equal(t, "git commit: fork/exec /usr/bin/git: argument list too long", f.Cause)

	err = gitFailure(&gitrepo.GitError{Args: []string{"commit"}, Stderr: "fatal: bad object", Err: errors.New("exit status 128")})
	require.ErrorAs(t, err, &f)
	assert.Equal(t, "fatal: bad object", f.Cause)
}
