package hook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/testutil"
	"github.com/ccc-checkpoint/ccc/state"
)

func TestPreCompact(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		fixture string
		stdin   string
		fail    bool
		runs    bool
		stderr  string
		timeout time.Duration
		keep    bool // KeepState: CCC's loop keys are the stop hook's
	}{
		{name: "auto", files: map[string]string{ProgressFile: "# Session Progress\n"}, fixture: "precompact-auto.json",
			runs: true, timeout: config.DefaultHookTimeout},
		{name: "manual, state only", files: map[string]string{state.FileName: "{}"}, fixture: "precompact-manual.json",
			runs: true, timeout: config.DefaultHookTimeout},
		{name: "a CCC loop", files: map[string]string{state.FileName: `{"phase":"execution","taskIndex":0,"totalTasks":3}`}, fixture: "precompact-auto.json",
			runs: true, timeout: config.DefaultHookTimeout, keep: true},
		{name: "a CCC state between loops", files: map[string]string{state.FileName: `{"phase":"spec"}`, ProgressFile: "x"}, fixture: "precompact-auto.json",
			runs: true, timeout: config.DefaultHookTimeout, keep: true},
		{name: "phase null: no loop", files: map[string]string{state.FileName: `{"phase":null,"linearIssue":"CIA-1"}`}, fixture: "precompact-auto.json",
			runs: true, timeout: config.DefaultHookTimeout},
		{name: "corrupt state: left alone", files: map[string]string{state.FileName: `{"phase":`}, fixture: "precompact-auto.json",
			runs: true, timeout: config.DefaultHookTimeout, keep: true},
		{name: "timeout preference", files: map[string]string{ProgressFile: "x", PrefsFile: "hooks:\n  checkpoint_timeout: 3s\n"},
			fixture: "precompact-auto.json", runs: true, timeout: 3 * time.Second},
		{name: "checkpoint fails", files: map[string]string{ProgressFile: "x"}, fixture: "precompact-auto.json", fail: true,
			runs: true, timeout: config.DefaultHookTimeout, stderr: "ccc hook pre-compact: checkpoint: tracker unreachable\n"},
		// Broken preferences and a failed checkpoint share the hook's one line.
		{name: "broken preferences, checkpoint fails", files: map[string]string{ProgressFile: "x", PrefsFile: "hooks: [\n"}, fixture: "precompact-auto.json", fail: true,
			runs: true, timeout: config.DefaultHookTimeout, stderr: "ccc hook pre-compact: preferences: ROOT/.ccc-preferences.yaml: yaml: line 1: did not find expected node content; using the defaults; checkpoint: tracker unreachable\n"},
		{name: "broken preferences", files: map[string]string{ProgressFile: "x", PrefsFile: "hooks: [\n"}, fixture: "precompact-auto.json",
			runs: true, timeout: config.DefaultHookTimeout, stderr: "ccc hook pre-compact: preferences: ROOT/.ccc-preferences.yaml: yaml: line 1: did not find expected node content; using the defaults\n"},
		{name: "not a ccc project", fixture: "precompact-auto.json", stderr: "ccc hook pre-compact: no .ccc-progress.md or .ccc-state.json in ROOT: not a ccc project\n"},
		{name: "bad stdin", files: map[string]string{ProgressFile: "x"}, stdin: "compact please",
			stderr: "ccc hook pre-compact: stdin is not a JSON object\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProj(t)
			for name, body := range tt.files {
				p.write(name, []byte(body))
			}
			if tt.fail {
				p.cp.err = errors.New("tracker unreachable")
			}
			stdin := []byte(tt.stdin)
			if tt.fixture != "" {
				stdin = input(t, tt.fixture, nil)
			}
			PreCompact(context.Background(), p.env(), stdin)
			if tt.runs {
				require.Equal(t, 1, p.cp.count())
				assert.Equal(t, CheckpointRequest{Root: p.root, Deadline: tt.timeout, SessionID: "8f3c2a1e-4b7d-4e2a-9c51-0d6e7f8a9b10", KeepState: tt.keep},
					p.cp.calls[0], "the session reaches the record")
			} else {
				assert.Zero(t, p.cp.count())
			}
			assert.Equal(t, tt.stderr, strings.ReplaceAll(p.errs.String(), p.root, "ROOT"))
		})
	}
}

// loader is a ResumeLoader with a fixed answer.
func loader(r Resume, ok bool, err error) ResumeLoader {
	return func(context.Context, string) (Resume, bool, error) { return r, ok, err }
}

var resume = Resume{
	Prompt:   "Resume CIA-12. Current task: task 2 of 3. Key files: parser.go.\nNext action: run go test ./parser/.",
	Issue:    "CIA-12",
	TaskN:    2,
	TaskM:    3,
	Blockers: []string{"grammar for unary minus unknown"},
	Age:      3*time.Hour + 5*time.Minute,
}

// TestSessionStart has a case per source and age rule; the output is
// compared with testdata/session-start/<name>.golden.
func TestSessionStart(t *testing.T) {
	drifted := resume
	drifted.Blockers = nil
	drifted.Warnings = []string{"branch changed since the checkpoint: was cia-12-parser, now main"}
	old := resume
	old.Age = 30 * time.Hour
	const brokenMsg = ".ccc-progress.md:6: unresolved merge conflict (3 marker lines, the first here); fix it by hand"
	broken := Resume{Broken: brokenMsg}
	prefsSaid := drifted
	prefsSaid.PrefsReported = true
	brokenOld := old
	brokenOld.Broken = brokenMsg
	brokenOld.Warnings = []string{".ccc-progress.md is broken (...); resumed from .ccc/checkpoints/main.json"}
	tests := []struct {
		name    string
		fixture string
		prefs   string
		r       Resume
		ok      bool
		err     error
		golden  string // "" expects no output
		stderr  string
	}{
		{name: "compact", fixture: "sessionstart-compact.json", r: resume, ok: true, golden: "compact"},
		{name: "resume old", fixture: "sessionstart-resume.json", r: old, ok: true, golden: "resume-old"},
		{name: "startup recent", fixture: "sessionstart-startup.json", r: drifted, ok: true, golden: "startup-drifted"},
		{name: "startup old", fixture: "sessionstart-startup.json", r: old, ok: true,
			stderr: "ccc hook session-start: the last checkpoint is 30h old (hooks.session_start_max_age 24h); not injected\n"},
		{name: "startup over the preference", fixture: "sessionstart-startup.json", prefs: "hooks:\n  session_start_max_age: 2h\n", r: resume, ok: true,
			stderr: "ccc hook session-start: the last checkpoint is 3h5m old (hooks.session_start_max_age 2h); not injected\n"},
		{name: "startup under the preference", fixture: "sessionstart-startup.json", prefs: "hooks:\n  session_start_max_age: 48h\n", r: old, ok: true, golden: "startup-48h"},
		// Broken preferences are said once: by the loader when it read
		// them (the command's), else by the startup check.
		{name: "startup, broken preferences", fixture: "sessionstart-startup.json", prefs: "hooks: [\n", r: drifted, ok: true, golden: "startup-drifted",
			stderr: "ccc hook session-start: preferences: ROOT/.ccc-preferences.yaml: yaml: line 1: did not find expected node content; using the defaults\n"},
		{name: "startup, broken preferences the loader said", fixture: "sessionstart-startup.json", prefs: "hooks: [\n", r: prefsSaid, ok: true, golden: "startup-drifted"},
		{name: "clear", fixture: "sessionstart-clear.json", r: resume, ok: true},
		{name: "broken, nothing to resume", fixture: "sessionstart-compact.json", r: broken, ok: true, golden: "broken",
			stderr: "ccc hook session-start: " + brokenMsg + "\n"},
		// However old the stand-in, the agent must learn that its file is broken.
		{name: "broken, an old stand-in at startup", fixture: "sessionstart-startup.json", r: brokenOld, ok: true, golden: "broken-standin",
			stderr: "ccc hook session-start: " + brokenMsg + "\n"},
		{name: "no checkpoint", fixture: "sessionstart-compact.json", stderr: "ccc hook session-start: no checkpoint in ROOT\n"},
		{name: "unreadable", fixture: "sessionstart-resume.json", err: errors.New(".ccc-progress.md: line 3: NUL byte"),
			stderr: "ccc hook session-start: .ccc-progress.md: line 3: NUL byte\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProj(t)
			if tt.prefs != "" {
				p.write(PrefsFile, []byte(tt.prefs))
			}
			out := SessionStart(context.Background(), p.env(), input(t, tt.fixture, nil), loader(tt.r, tt.ok, tt.err))
			if tt.golden == "" {
				assert.Empty(t, out)
			} else {
				testutil.Golden(t, filepath.Join("testdata", "session-start", tt.golden+".golden"), out)
			}
			assert.Equal(t, tt.stderr, strings.ReplaceAll(p.errs.String(), p.root, "ROOT"))
			assert.Zero(t, p.cp.count(), "session-start never checkpoints")
		})
	}
	t.Run("bad stdin", func(t *testing.T) {
		p := newProj(t)
		out := SessionStart(context.Background(), p.env(), []byte("{"), loader(resume, true, nil))
		assert.Empty(t, out)
		assert.Equal(t, 1, strings.Count(p.errs.String(), "\n"))
	})
}

func TestResumeStatus(t *testing.T) {
	r := Resume{TaskN: 0, TaskM: 0, Age: 42 * time.Second, Blockers: []string{"a", "b (unblocked by: c)"}}
	assert.Equal(t, "ccc status: task 0 of 0, blockers: a; b (unblocked by: c), checkpoint taken 42s ago.", r.Status())
}

func TestFormatAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second:                "0s",
		42 * time.Second:            "42s",
		12 * time.Minute:            "12m",
		3*time.Hour + 5*time.Minute: "3h5m",
		26 * time.Hour:              "26h",
		50 * time.Hour:              "2d2h",
		72 * time.Hour:              "3d",
	} {
		assert.Equal(t, want, FormatAge(d))
	}
}

func TestSessionEnd(t *testing.T) {
	t.Run("copies the progress file", func(t *testing.T) {
		p := newProj(t)
		p.write(ProgressFile, []byte("# Session Progress\n\n**Issue:** CIA-12\n"))
		dest := SessionEnd(context.Background(), p.env(), input(t, "sessionend.json", nil))
		assert.Equal(t, filepath.Join(p.root, ".ccc", "sessions", ".ccc-progress-20261121T134500Z.md"), dest)
		assert.Equal(t, string(p.read(ProgressFile)), string(p.read(".ccc/sessions/.ccc-progress-20261121T134500Z.md")))
		assert.Empty(t, p.errs.String())
		entries, err := os.ReadDir(p.root)
		require.NoError(t, err)
		assert.Len(t, entries, 2, "nothing but the progress file and .ccc at the root")
	})
	t.Run("keeps the newest 20", func(t *testing.T) {
		p := newProj(t)
		p.write(ProgressFile, []byte("now\n"))
		for i := range 25 {
			stamp := testNow.Add(-time.Duration(i+1) * time.Hour).Format(sessionStamp)
			p.write(".ccc/sessions/.ccc-progress-"+stamp+".md", []byte("old\n"))
		}
		p.write(".ccc/sessions/notes.md", []byte("mine\n"))
		p.write(".ccc/sessions/.ccc-progress-latest.md", []byte("not a copy\n"))
		SessionEnd(context.Background(), p.env(), input(t, "sessionend.json", nil))
		entries, err := os.ReadDir(p.path(".ccc/sessions"))
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		require.Len(t, names, KeepSessions+2)
		assert.Contains(t, names, "notes.md")
		assert.Contains(t, names, ".ccc-progress-latest.md")
		assert.Contains(t, names, ".ccc-progress-20261121T134500Z.md")
		assert.Contains(t, names, ".ccc-progress-"+testNow.Add(-19*time.Hour).Format(sessionStamp)+".md")
		assert.NotContains(t, names, ".ccc-progress-"+testNow.Add(-20*time.Hour).Format(sessionStamp)+".md")
	})
	t.Run("no progress file", func(t *testing.T) {
		p := newProj(t)
		assert.Empty(t, SessionEnd(context.Background(), p.env(), input(t, "sessionend.json", nil)))
		assert.Equal(t, fmt.Sprintf("ccc hook session-end: no .ccc-progress.md in %s: nothing to keep\n", p.root), p.errs.String())
		_, err := os.Stat(p.path(".ccc"))
		assert.True(t, os.IsNotExist(err), "nothing created")
	})
	t.Run("unreadable progress file", func(t *testing.T) {
		p := newProj(t)
		require.NoError(t, os.Mkdir(p.path(ProgressFile), 0o755))
		assert.Empty(t, SessionEnd(context.Background(), p.env(), input(t, "sessionend.json", nil)))
		assert.Equal(t, 1, strings.Count(p.errs.String(), "\n"))
	})
	t.Run("bad stdin", func(t *testing.T) {
		p := newProj(t)
		p.write(ProgressFile, []byte("x"))
		assert.Empty(t, SessionEnd(context.Background(), p.env(), []byte("[]")))
		assert.Equal(t, "ccc hook session-end: stdin is not a JSON object\n", p.errs.String())
	})
}

// TestRootErrors: a project root that cannot be found is one line on
// stderr and no output, for every hook.
func TestRootErrors(t *testing.T) {
	p := newProj(t)
	env := p.env()
	env.Root = func(context.Context, string) (string, error) {
		return "", errors.New("project root: stat /gone: no such file or directory")
	}
	ctx := context.Background()
	assert.Empty(t, Stop(ctx, env, input(t, "stop.json", nil)).Stdout())
	PreCompact(ctx, env, input(t, "precompact-auto.json", nil))
	assert.Empty(t, SessionStart(ctx, env, input(t, "sessionstart-compact.json", nil), loader(resume, true, nil)))
	assert.Empty(t, SessionEnd(ctx, env, input(t, "sessionend.json", nil)))
	assert.Equal(t, strings.Join([]string{
		"ccc hook stop: project root: stat /gone: no such file or directory; allowing the stop",
		"ccc hook pre-compact: project root: stat /gone: no such file or directory",
		"ccc hook session-start: project root: stat /gone: no such file or directory",
		"ccc hook session-end: project root: stat /gone: no such file or directory",
	}, "\n")+"\n", p.errs.String())
	assert.Zero(t, p.cp.count())
}

// TestRootFromStdinCwd: every hook finds the project from the cwd Claude
// Code sends on stdin, not from where the process happens to run.
func TestRootFromStdinCwd(t *testing.T) {
	p := newProj(t)
	var got []string
	env := p.env()
	env.Root = func(_ context.Context, cwd string) (string, error) {
		got = append(got, cwd)
		return p.root, nil
	}
	ctx := context.Background()
	Stop(ctx, env, input(t, "stop.json", nil))
	PreCompact(ctx, env, input(t, "precompact-auto.json", nil))
	SessionStart(ctx, env, input(t, "sessionstart-compact.json", nil), loader(resume, true, nil))
	SessionEnd(ctx, env, input(t, "sessionend.json", nil))
	SessionEnd(ctx, env, input(t, "sessionend.json", map[string]any{"cwd": nil}))
	assert.Equal(t, []string{"/home/dev/shop", "/home/dev/shop", "/home/dev/shop", "/home/dev/shop", ""}, got)
}
