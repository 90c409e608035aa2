package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/status"
	"github.com/ccc-checkpoint/ccc/internal/testutil"
	"github.com/ccc-checkpoint/ccc/state/outbox"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// agT0 is the clock of the agents' first checkpoints.
var agT0 = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

// agRun runs a command line as main does and returns its exit status.
func agRun(f *Factory, args ...string) int { return run(args, f) }

// agEnv is a scratch repository for agents and a clock the test moves.
type agEnv struct {
	t    *testing.T
	main string // the main worktree
	dir  string // the shared records directory
	now  time.Time
	env  map[string]string
}

func newAgEnv(t *testing.T) *agEnv {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	isolateGit(t.Setenv, home)
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(home))
	// Fixed dates make the commits, and so the SHAs in golden files, the same
	// on every run.
	t.Setenv("GIT_AUTHOR_DATE", "2026-11-21T12:00:00Z")
	t.Setenv("GIT_COMMITTER_DATE", "2026-11-21T12:00:00Z")
	main, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	e := &agEnv{t: t, main: main, now: agT0, env: map[string]string{"NO_COLOR": "1"}}
	e.git(main, "init", "-q", "-b", "main")
	e.git(main, "commit", "-q", "--allow-empty", "-m", "base")
	e.dir = filepath.Join(main, ".ccc", "checkpoints")
	return e
}

func (e *agEnv) git(dir string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(e.t, err, "git %q: %s", args, out)
	return strings.TrimSpace(string(out))
}

// worktree adds a linked worktree on its own branch, as a parallel agent has.
func (e *agEnv) worktree(name string) string {
	wt := filepath.Join(filepath.Dir(e.main), filepath.Base(e.main)+"-"+name)
	e.git(e.main, "worktree", "add", "-q", "-b", "agent-"+name, wt)
	e.t.Cleanup(func() { _ = os.RemoveAll(wt) })
	return wt
}

// checkpoint writes an agent's record as a checkpoint in wt would.
func (e *agEnv) checkpoint(wt, agent, issue string, done, total int, mod func(*records.Snapshot)) {
	e.t.Helper()
	s := records.Snapshot{
		Agent: agent, SessionID: "session-" + agent, Issue: issue, Current: fmt.Sprintf("task %d of %s", done+1, issue),
		Prompt: fmt.Sprintf("Resume %s. Current task: task %d of %d.", issue, done+1, total),
		Branch: e.git(wt, "symbolic-ref", "--short", "HEAD"), Head: e.git(wt, "rev-parse", "HEAD"),
	}
	for i := range done {
		s.Completed = append(s.Completed, fmt.Sprintf("task %d of %s", i+1, issue))
	}
	for i := done + 1; i < total; i++ {
		s.Remaining = append(s.Remaining, fmt.Sprintf("task %d of %s", i+1, issue))
	}
	if mod != nil {
		mod(&s)
	}
	_, err := records.Write(context.Background(), e.dir, s, e.now)
	require.NoError(e.t, err)
}

// run runs ccc in cwd at the env's clock.
func (e *agEnv) run(cwd string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	now := e.now
	f := &Factory{
		IO:     IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Getenv: func(k string) string { return e.env[k] },
		Getwd:  func() (string, error) { return cwd, nil },
		Now:    func() time.Time { return now },
	}
	code = agRun(f, args...)
	return code, out.String(), errOut.String()
}

// agGolden compares got with testdata/agents/name, after replacing the
// scratch paths.
func agGolden(t *testing.T, name, got string, e *agEnv) {
	t.Helper()
	if e != nil {
		got = strings.ReplaceAll(got, filepath.Dir(e.main), "$TMP")
	}
	testutil.Golden(t, filepath.Join("testdata", "agents", name), got)
}

// TestAgentsScenario is the issue's done-when, in Go: three agents in
// three worktrees checkpoint; c stops; as the clock advances ccc status
// shows it WARNING, then STALE (exit 4); ccc takeover hands its work to d;
// ccc cleanup --dry-run lists what the policy would remove.
func TestAgentsScenario(t *testing.T) {
	e := newAgEnv(t)
	wtB, wtC := e.worktree("b"), e.worktree("c")
	e.checkpoint(e.main, "a", "CIA-1", 1, 4, nil)
	e.checkpoint(wtB, "b", "CIA-2", 2, 3, nil)
	e.checkpoint(wtC, "c", "CIA-3", 0, 2, func(s *records.Snapshot) { s.Blockers = []string{"API docs missing"} })

	// a and b keep beating, from their own worktrees; c has stopped.
	beat := func() {
		for _, ab := range []struct{ wt, agent string }{{e.main, "a"}, {wtB, "b"}} {
			code, _, stderr := e.run(ab.wt, "heartbeat", "--agent", ab.agent)
			require.Equal(t, 0, code, stderr)
		}
	}
	e.now = agT0.Add(20 * time.Minute)
	beat()
	e.now = agT0.Add(35 * time.Minute)
	beat()

	code, stdout, stderr := e.run(wtB, "status")
	assert.Equal(t, 0, code, "WARNING is not STALE")
	assert.Empty(t, stderr)
	agGolden(t, "status_warning.txt", stdout, e)

	e.now = agT0.Add(60 * time.Minute)
	beat()
	e.now = agT0.Add(65 * time.Minute)
	code, stdout, stderr = e.run(e.main, "status")
	assert.Equal(t, ExitStale, code)
	assert.Contains(t, stderr, "ccc takeover")
	agGolden(t, "status_stale.txt", stdout, e)

	code, stdout, _ = e.run(wtC, "status", "--json")
	assert.Equal(t, ExitStale, code, "the same exit status with --json")
	var rep StatusReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	require.Len(t, rep.Agents, 3)
	assert.Equal(t, 1, rep.Stale)
	assert.Equal(t, "STALE", rep.Agents[2].Health)
	assert.Equal(t, int64(65*60), rep.Agents[2].IdleSeconds)
	assert.Equal(t, "blocked", rep.Agents[2].Status)
	assert.Equal(t, e.dir, rep.Dir, "every worktree sees the shared directory")
	assert.Equal(t, []string{}, rep.Warnings)

	code, stdout, stderr = e.run(e.main, "status", "--markdown", "--output", "STATUS.md")
	assert.Equal(t, ExitStale, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "Wrote STATUS.md (3 agent(s)).")
	md, err := os.ReadFile(filepath.Join(e.main, "STATUS.md"))
	require.NoError(t, err)
	agGolden(t, "status.md", string(md), e)

	// Hand c's work to d.
	e.now = agT0.Add(66 * time.Minute)
	code, stdout, stderr = e.run(wtC, "takeover", "c", "--as", "d")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "Resume CIA-3. Current task: task 1 of 2.\n", stdout, "c's own continuation prompt")
	crashed := filepath.Join(e.dir, fmt.Sprintf("c_crashed_%d.json", e.now.Unix()))
	assert.Contains(t, stderr, "Took over c's work (CIA-3, 0/2 done) as d, session ")
	assert.Contains(t, stderr, "Old record kept as "+crashed+".")
	assert.NotContains(t, stderr, "Warning", "c was stale: no warning")
	assert.FileExists(t, crashed)

	// a finishes its issue; someone commits on b's branch.
	e.checkpoint(e.main, "a", "CIA-1", 4, 4, func(s *records.Snapshot) { s.Status = records.StatusComplete; s.Current = "" })
	e.git(wtB, "commit", "-q", "--allow-empty", "-m", "b moves on")
	code, stdout, _ = e.run(e.main, "status")
	assert.Equal(t, 0, code, "d took over: no agent is stale")
	agGolden(t, "status_after_takeover.txt", stdout, e)

	code, stdout, stderr = e.run(e.main, "cleanup", "--dry-run")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "would remove a-CIA-1-complete.json (completed archive, a-CIA-1-20261121-145100)\n", stdout)
	assert.Contains(t, stderr, "Dry run: 1 record(s) would be removed, 0 moved to failed/")
	assert.FileExists(t, filepath.Join(e.dir, "a-CIA-1-complete.json"), "a dry run changes nothing")

	// Eight days later every record is old enough to go.
	e.now = agT0.Add(8 * 24 * time.Hour)
	code, stdout, _ = e.run(e.main, "cleanup", "--dry-run")
	assert.Equal(t, 0, code)
	agGolden(t, "cleanup_week.txt", stdout, e)
	code, stdout, stderr = e.run(e.main, "cleanup")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "removed c_crashed_")
	assert.NoFileExists(t, crashed)
	assert.NoFileExists(t, records.CurrentPath(e.dir, "b"), "b stopped beating a week ago too: aged by updatedAt")
}

func TestStatusEmptyAndBroken(t *testing.T) {
	e := newAgEnv(t)
	code, stdout, stderr := e.run(e.main, "status")
	assert.Equal(t, 0, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "No agent records in "+e.dir+".\n", stderr)

	code, stdout, _ = e.run(e.main, "status", "--json")
	assert.Equal(t, 0, code)
	assert.JSONEq(t, fmt.Sprintf(`{"now":"2026-11-21T13:45:00Z","dir":%q,"warnAfter":"30m","staleAfter":"1h",
		"agents":[],"stale":0,"unknown":0,"warnings":[]}`, e.dir), stdout)

	e.checkpoint(e.main, "a", "CIA-1", 0, 1, nil)
	require.NoError(t, os.WriteFile(filepath.Join(e.dir, "broken.json"), []byte("{"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(e.main, ".ccc-preferences.yaml"), []byte("agents:\n  warn_after: soon\n"), 0o644))
	code, stdout, stderr = e.run(e.main, "status")
	assert.Equal(t, 1, code, "a broken record is its agent's UNKNOWN row, and exit status 1; the rest is shown")
	assert.Contains(t, stdout, "a       CIA-1")
	assert.Contains(t, stdout, "\nbroken  —      —                —         —        —            UNKNOWN  —\n")
	assert.Contains(t, stdout, "broken: UNKNOWN — records: "+filepath.Join(e.dir, "broken.json")+": not a JSON object")
	assert.Contains(t, stderr, "status: 1 agent record(s) cannot be read")
	assert.Contains(t, stderr, `agents.warn_after: "soon" is not a duration (use e.g. 30m, 2h or 1d); using the defaults`)
}

// TestStatusThresholdsAndQueue: preferences move the thresholds, and queued
// deliveries show per agent, even for an agent without a record.
func TestStatusThresholdsAndQueue(t *testing.T) {
	e := newAgEnv(t)
	wt := e.worktree("b")
	e.checkpoint(e.main, "a", "CIA-1", 0, 1, nil)
	require.NoError(t, os.WriteFile(filepath.Join(e.main, ".ccc-preferences.yaml"), []byte("agents:\n  warn_after: 5m\n  stale_after: 10m\n"), 0o644))
	for _, q := range []struct {
		root, agent, cause string
		at                 time.Duration
	}{
		{e.main, "a", "HTTP 503", -20 * time.Minute},
		{wt, "a", "HTTP 502", -5 * time.Minute},
		{wt, "main", "timeout", -time.Minute},
	} {
		_, err := outbox.Queue(q.root, outbox.Entry{Sink: "linear", Target: "CIA-1", Agent: q.agent, Body: "x"}, q.cause, agT0.Add(q.at))
		require.NoError(t, err)
	}
	e.now = agT0.Add(11 * time.Minute)
	code, stdout, _ := e.run(e.main, "status", "--json")
	assert.Equal(t, ExitStale, code, "stale after the preference's 10m")
	var rep StatusReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	assert.Equal(t, "5m", rep.WarnAfter)
	require.Len(t, rep.Agents, 2)
	oldest := agT0.Add(-20 * time.Minute)
	assert.Equal(t, records.QueuedStatus{Count: 2, Oldest: &oldest, LastError: "HTTP 502"}, rep.Agents[0].Queued, "both worktrees' outboxes")
	assert.Equal(t, "main", rep.Agents[1].Agent)
	assert.Equal(t, "", rep.Agents[1].Health, "no record, no health")

	code, stdout, _ = e.run(e.main, "status")
	assert.Equal(t, ExitStale, code)
	assert.Contains(t, stdout, "2, oldest 31m: HTTP 502")
	assert.Contains(t, stdout, "main   —      —")
}

// TestStatusWatch redraws in place on a terminal and prints frame after
// frame otherwise; the wait ending (a signal) ends it with status 0.
func TestStatusWatch(t *testing.T) {
	e := newAgEnv(t)
	e.checkpoint(e.main, "a", "CIA-1", 0, 1, nil)
	for _, tty := range []bool{true, false} {
		t.Run(fmt.Sprintf("tty=%v", tty), func(t *testing.T) {
			var out bytes.Buffer
			tick := agT0
			f := &Factory{IO: IOStreams{Out: &out, ErrOut: &out}, Getenv: func(string) string { return "" },
				Now: func() time.Time { return tick }}
			frames := 0
			wait := func(_ context.Context, d time.Duration) error {
				assert.Equal(t, 2*time.Second, d)
				frames++
				tick = tick.Add(31 * time.Minute) // a stops beating: WARNING on the second frame
				if frames == 2 {
					return context.Canceled
				}
				return nil
			}
			err := statusWatch(context.Background(), f, e.main, &StatusOptions{Interval: 2 * time.Second}, tty, wait)
			require.NoError(t, err)
			got := out.String()
			assert.Equal(t, 2, strings.Count(got, "ccc status — "), "two frames")
			assert.Contains(t, got, "ACTIVE")
			assert.Contains(t, got, "WARNING")
			if tty {
				assert.True(t, strings.HasPrefix(got, "\x1b[?25l\x1b[H\x1b[2J"), "a clean screen once, at the start")
				assert.Equal(t, 1, strings.Count(got, "\x1b[2J"), "never cleared again: no flicker")
				assert.Equal(t, 2, strings.Count(got, "\x1b[J"), "each frame clears what the last left below it")
				assert.Contains(t, got, "\x1b[K\n")
				assert.True(t, strings.HasSuffix(got, "\x1b[?25h"), "the cursor comes back")
				assert.Contains(t, got, "\x1b[33m! WARNING\x1b[0m")
			} else {
				assert.NotContains(t, got, "\x1b")
				assert.Contains(t, got, "\n\nccc status — 2026-11-21 14:16:00Z", "frames follow one another")
			}
		})
	}
}

func TestStatusFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want *StatusOptions
		err  string
	}{
		{[]string{"status"}, &StatusOptions{Interval: 5 * time.Second}, ""},
		{[]string{"status", "--json"}, &StatusOptions{JSON: true, Interval: 5 * time.Second}, ""},
		{[]string{"status", "--markdown", "-o", "S.md"}, &StatusOptions{Markdown: true, Output: "S.md", Interval: 5 * time.Second}, ""},
		{[]string{"status", "-w", "--interval", "1s"}, &StatusOptions{Watch: true, Interval: time.Second}, ""},
		{[]string{"status", "--json", "--markdown"}, nil, "--json and --markdown are exclusive"},
		{[]string{"status", "--output", "x"}, nil, "--output needs --markdown"},
		{[]string{"status", "--watch", "--json"}, nil, "does not combine"},
		{[]string{"status", "--interval", "0s"}, nil, "--interval must be longer than zero"},
		{[]string{"status", "extra"}, nil, "unknown command"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) { checkParsed(t, NewCmdStatus, tt.args, tt.want, tt.err) })
	}
}

// agParse runs a command line through one command's flag parsing, the
// command built by build with the root's --dir; it returns the exit status
// main would give and stderr.
// checkParsed runs one flag-parsing case of a command built with a runF: a
// usage error is exit 2 naming wantErr with nothing run; otherwise the
// parsed options are want.
func checkParsed[O any](t *testing.T, newCmd func(*Factory, *string, func(*O) error) *cobra.Command, args []string, want *O, wantErr string) {
	t.Helper()
	var got *O
	code, stderr := agParse(func(f *Factory, dir *string) *cobra.Command {
		return newCmd(f, dir, func(o *O) error { got = o; return nil })
	}, args...)
	if wantErr != "" {
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, wantErr)
		assert.Nil(t, got, "nothing runs")
		return
	}
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, got)
}

func agParse(build func(f *Factory, dir *string) *cobra.Command, args ...string) (int, string) {
	var stderr bytes.Buffer
	f := &Factory{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &stderr}, Getenv: func(string) string { return "" }}
	root := NewCmdRoot(f)
	dir := ""
	c := build(f, &dir)
	for _, old := range root.Commands() {
		if old.Name() == c.Name() {
			root.RemoveCommand(old)
		}
	}
	root.AddCommand(c)
	root.SetArgs(args)
	err := root.Execute()
	var usage *usageError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &usage) || isCobraUsage(err):
		return 2, stderr.String() + err.Error()
	default:
		return 1, stderr.String() + err.Error()
	}
}

// BenchmarkStatus times ccc status (read every record, judge it, render the
// table) over 10, 100 and 1,000 agents in one repository.
func BenchmarkStatus(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			root := b.TempDir()
			cmd := exec.Command("git", "init", "-q", "-b", "main", root)
			require.NoError(b, cmd.Run())
			dir := filepath.Join(root, ".ccc", "checkpoints")
			require.NoError(b, os.MkdirAll(dir, 0o755))
			for i := range n {
				r := &records.Record{
					SchemaVersion: records.SchemaVersion, ID: fmt.Sprintf("agent%04d-CIA-%d-20261121-134500", i, i),
					Agent: fmt.Sprintf("agent%04d", i), Issue: fmt.Sprintf("CIA-%d", i), Status: records.StatusInProgress,
					CurrentStep: "write the parser", CompletedSteps: []string{"one", "two"}, NextSteps: []string{"four"},
					Subtasks:           records.Subtasks{Total: 4, Completed: 2, Percent: 50},
					ResumeInstructions: strings.Repeat("Resume the work. ", 20),
					UpdatedAt:          agT0.Add(-time.Duration(i) * time.Minute), Branch: "main",
				}
				data, err := records.Encode(r)
				require.NoError(b, err)
				require.NoError(b, os.WriteFile(records.CurrentPath(dir, r.Agent), data, 0o644))
			}
			f := &Factory{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" },
				Now: func() time.Time { return agT0 }}
			b.ResetTimer()
			for b.Loop() {
				rep, err := collectStatus(context.Background(), f, root)
				if err != nil || len(rep.Agents) != n {
					b.Fatalf("%v, %d agents", err, len(rep.Agents))
				}
				_ = status.Table(rep, false)
			}
		})
	}
}
