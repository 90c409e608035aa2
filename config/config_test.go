package config

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadCommands is the commands' view of root's preferences: what
// Settings.Project gives them, and the problem they warn about.
func loadCommands(root string) (Prefs, error) {
	p, pr := load(root)
	return p, pr.Commands
}

func TestLoadPrefs(t *testing.T) {
	tests := []struct {
		name, yaml string
		check      func(t *testing.T, p Prefs)
		errHas     string
	}{
		{"missing file", "", func(t *testing.T, p Prefs) { assert.Equal(t, Default(), p) }, ""},
		{"values", "execution:\n  max_task_iterations: 3\ncheckpoint:\n  commit_message: \"wip({issue})\"\n  timeout: 45s\n  automated_timeout: 5\n  stale_after: 2h\nsync:\n  debounce: 500ms\n",
			func(t *testing.T, p Prefs) {
				assert.Equal(t, "wip({issue})", p.Checkpoint.CommitMessage)
				assert.Equal(t, Duration(45*time.Second), p.Checkpoint.Timeout)
				assert.Equal(t, Duration(5*time.Second), p.Checkpoint.AutomatedTimeout, "a bare number is seconds")
				assert.Equal(t, Duration(2*time.Hour), p.Checkpoint.StaleAfter)
				assert.Equal(t, Duration(500*time.Millisecond), p.Sync.Debounce)
			}, ""},
		{"blank values keep defaults", "checkpoint:\n  commit_message: \"  \"\n  timeout:\n",
			func(t *testing.T, p Prefs) { assert.Equal(t, Default(), p) }, ""},
		{"sinks", "sinks:\n  linear: {enabled: true}\n  github: {repo: acme/app, issue: 7}\n  file: {path: STATUS.md, enabled: false}\n  jira: {}\n",
			func(t *testing.T, p Prefs) {
				require.Len(t, p.Sinks, 4)
				assert.True(t, p.Sinks["linear"].On())
				assert.Equal(t, SinkPrefs{Repo: "acme/app", Issue: 7}, p.Sinks["github"])
				assert.True(t, p.Sinks["github"].On(), "listed means on")
				assert.False(t, p.Sinks["file"].On())
				assert.Equal(t, "STATUS.md", p.Sinks["file"].Path)
			}, ""},
		{"redaction", "redact:\n  patterns:\n    - {name: internal, regexp: 'ACME-[0-9]{6}'}\n    - {regexp: 'pw=(\\S+)'}\nsinks:\n  github: {redact: false}\n  linear: {}\n",
			func(t *testing.T, p Prefs) {
				require.Len(t, p.Redact.Patterns, 2)
				assert.Equal(t, "internal", p.Redact.Patterns[0].Name)
				assert.Equal(t, `pw=(\S+)`, p.Redact.Patterns[1].Regexp)
				require.NotNil(t, p.Sinks["github"].Redact)
				assert.False(t, *p.Sinks["github"].Redact)
				assert.Nil(t, p.Sinks["linear"].Redact, "on unless turned off explicitly")
			}, ""},
		{"handoff", "handoff: {remote: origin, keep: 200, keep_for: 30d}\n", func(t *testing.T, p Prefs) {
			assert.Equal(t, "origin", p.Handoff.Remote, "README's switch for the checkpoint branch")
			require.NotNil(t, p.Handoff.Keep)
			assert.Equal(t, 200, *p.Handoff.Keep)
			require.NotNil(t, p.Handoff.KeepFor)
			assert.Equal(t, Duration(30*24*time.Hour), *p.Handoff.KeepFor)
		}, ""},
		{"empty sinks section", "sinks:\n", func(t *testing.T, p Prefs) {
			assert.NotNil(t, p.Sinks, "an empty section means no sinks, not the defaults")
			assert.Empty(t, p.Sinks)
		}, ""},
		{"bad duration", "checkpoint:\n  timeout: soon\n",
			func(t *testing.T, p Prefs) { assert.Equal(t, failedClosed(), p) }, `line 2: "soon" is not a duration`},
		{"days", "checkpoint:\n  stale_after: 2d\n  timeout: 1.5\n",
			func(t *testing.T, p Prefs) {
				assert.Equal(t, Duration(48*time.Hour), p.Checkpoint.StaleAfter)
				assert.Equal(t, Duration(1500*time.Millisecond), p.Checkpoint.Timeout)
			}, ""},
		// "5u" was read as "5us" (5µs) before the parsers were one.
		{"unit without s", "checkpoint:\n  timeout: 5u\n",
			func(t *testing.T, p Prefs) { assert.Equal(t, failedClosed(), p) }, `line 2: "5u" is not a duration`},
		{"not yaml", "checkpoint: [\n", func(t *testing.T, p Prefs) { assert.Equal(t, failedClosed(), p) }, "line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if tt.yaml != "" {
				require.NoError(t, os.WriteFile(filepath.Join(root, PrefsFile), []byte(tt.yaml), 0o644))
			}
			p, err := loadCommands(root)
			if tt.errHas != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.errHas)
				assert.Contains(t, err.Error(), PrefsFile, "the error names the file")
			} else {
				require.NoError(t, err)
			}
			tt.check(t, p)
		})
	}
}

func TestParseDuration(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration // -1: an error
	}{
		{"45", 45 * time.Second},
		{" 4 ", 4 * time.Second},
		{"0.02", 20 * time.Millisecond},
		{"1.5", 1500 * time.Millisecond},
		{"1e3", 1000 * time.Second},
		{"0", 0},
		{"90s", 90 * time.Second},
		{"1h30m", 90 * time.Minute},
		{"500ms", 500 * time.Millisecond},
		{"0s", 0},
		{"2d", 48 * time.Hour},
		{"0d", 0},
		{"1d12h", 36 * time.Hour},
		{"30d", 30 * 24 * time.Hour},
		{"-5", -1},
		{"-2s", -1},
		{"-1d", -1},
		{"1d-1h", -1},
		{"1.5d", -1},
		{"1d30", -1}, // seconds do not follow days
		{"7days", -1},
		{"d", -1},
		{"", -1},
		{"soon", -1},
		{"5u", -1},
		{"NaN", -1},
		{"Inf", -1},
		{"1e30", -1},
		{"100001d", -1},
		{"100000d2562047h", -1}, // overflows
	} {
		got, err := ParseDuration(tt.in)
		if tt.want < 0 {
			assert.ErrorContains(t, err, "is not a duration", tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

func TestFindRoot(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	repo := t.TempDir()
	out, err := exec.Command("git", "init", "-q", repo).CombinedOutput()
	require.NoError(t, err, string(out))
	sub := filepath.Join(repo, "a", "b")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	plain := t.TempDir()
	env := EnvOf
	ctx := context.Background()

	got, err := FindRoot(ctx, plain, env(map[string]string{"CCC_PROJECT_ROOT": repo}), sub)
	require.NoError(t, err)
	assert.Equal(t, plain, got, "--dir first")

	got, err = FindRoot(ctx, "", env(map[string]string{"CCC_PROJECT_ROOT": plain}), sub)
	require.NoError(t, err)
	assert.Equal(t, plain, got, "then CCC_PROJECT_ROOT")

	got, err = FindRoot(ctx, "", env(nil), sub)
	require.NoError(t, err)
	want, _ := filepath.EvalSymlinks(repo)
	assert.Equal(t, want, got, "then the git top level")

	got, err = FindRoot(ctx, "", env(nil), plain)
	require.NoError(t, err)
	assert.Equal(t, plain, got, "then the current directory")

	_, err = FindRoot(ctx, filepath.Join(plain, "missing"), env(nil), plain)
	assert.Error(t, err)
}

func TestAgent(t *testing.T) {
	env := func(v string) Env { return EnvOf(map[string]string{"CCC_AGENT": v}) }
	assert.Equal(t, "flag", Agent("flag", env("envagent")))
	assert.Equal(t, "envagent", Agent("", env("envagent")))
	assert.Equal(t, "main", Agent("", env("")))
}

func TestDurationFlagValue(t *testing.T) {
	for _, tt := range []struct {
		in, shown string
		want      time.Duration
	}{
		{"5", "5s", 5 * time.Second},
		{"0.5", "500ms", 500 * time.Millisecond},
		{"90s", "1m30s", 90 * time.Second},
		{"7d", "7d", 7 * 24 * time.Hour},
		{"1d12h", "36h0m0s", 36 * time.Hour},
		{"0", "0", 0},
	} {
		var d Duration
		require.NoError(t, d.Set(tt.in), tt.in)
		assert.Equal(t, Duration(tt.want), d, tt.in)
		assert.Equal(t, tt.shown, d.String(), tt.in)
	}
	d := Duration(time.Minute)
	err := d.Set("5x")
	assert.EqualError(t, err, `"5x" is not a duration (write e.g. 45 for seconds, 90s, 30m, 12h or 7d)`)
	assert.Equal(t, Duration(time.Minute), d, "a bad value leaves the flag as it was")
	assert.Equal(t, "duration", d.Type())
}

func TestCIAgent(t *testing.T) {
	tests := []struct {
		name, flag string
		env        map[string]string
		want       string
	}{
		{"outside CI", "", nil, "ci"},
		{"any CI but GitHub Actions", "", map[string]string{"CI": "true", "GITHUB_JOB": "build"}, "ci"},
		{"GitHub Actions job", "", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_JOB": "build"}, "build"},
		{"job id made a safe name", "", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_JOB": " test/linux amd64!"}, "test-linux-amd64"},
		{"a job named main is not the session", "", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_JOB": "main"}, "ci-main"},
		{"no job id", "", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_JOB": "//"}, "ci"},
		{"long job id", "", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_JOB": strings.Repeat("j", 70)}, strings.Repeat("j", 64)},
		{"CCC_AGENT wins", "", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_JOB": "build", "CCC_AGENT": "nightly"}, "nightly"},
		{"--agent wins", "main", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_JOB": "build", "CCC_AGENT": "nightly"}, "main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CIAgent(tt.flag, EnvOf(tt.env)))
		})
	}
}

// The user's own preferences are read with the same reader from CCC_CONFIG_DIR (else the user
// config directory), and only there does redact: false count.
func TestUserPrefsAndRedactOff(t *testing.T) {
	dir := t.TempDir()
	getenv := Env{ConfigDir: dir}
	path, err := UserPrefsPath(getenv)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "preferences.yaml"), path)

	user, err := LoadUserPrefs(getenv)
	require.NoError(t, err, "a missing file is the defaults")
	assert.Equal(t, Default(), user)

	require.NoError(t, os.WriteFile(path, []byte("sinks:\n  file: {redact: false}\n  linear: {redact: true}\n"), 0o644))
	user, err = LoadUserPrefs(getenv)
	require.NoError(t, err)

	repoRoot := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(repoRoot, PrefsFile), []byte("sinks:\n  linear: {redact: false}\n  github: {redact: false}\n  file: {}\n"), 0o644))
	repo, err := loadCommands(repoRoot)
	require.NoError(t, err)

	off, ignored := RedactOff(repo, user)
	assert.Equal(t, map[string]bool{"file": true}, off)
	assert.Equal(t, []string{"github", "linear"}, ignored)

	off, ignored = RedactOff(repo, Default())
	assert.Empty(t, off, "a repository alone never turns redaction off")
	assert.Len(t, ignored, 2)

	require.NoError(t, os.WriteFile(path, []byte("sinks: [\n"), 0o644))
	user, err = LoadUserPrefs(getenv)
	assert.ErrorContains(t, err, path)
	assert.Equal(t, failedClosed(), user)
}

// failedClosed is what a preferences file that cannot be used gives: the
// defaults, and no repository git hooks.
func failedClosed() Prefs {
	p := Default()
	p.Checkpoint.GitHooks = new(bool)
	return p
}

func TestGitHooksCanOnlyBeTurnedOff(t *testing.T) {
	off, on := false, true
	tests := []struct {
		name string
		pref *bool
		env  string
		want bool
	}{
		{"default: like git commit", nil, "", true},
		{"the preferences turn them off", &off, "", false},
		{"the environment turns them off", nil, "false", false},
		{"CCC_GIT_HOOKS=0", nil, "0", false},
		{"a repository's true does not override the user's off", &on, "off", false},
		{"true is the default anyway", &on, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Prefs
			p.Checkpoint.GitHooks = tt.pref
			got := GitHooks(p, Env{GitHooks: tt.env})
			assert.Equal(t, tt.want, got)
		})
	}
}

// The user's own preferences may be a symlink into a dotfiles checkout: only
// a repository's files are confined to their project.
func TestUserPrefsMayBeASymlink(t *testing.T) {
	dir, dotfiles := t.TempDir(), t.TempDir()
	real := filepath.Join(dotfiles, "ccc.yaml")
	require.NoError(t, os.WriteFile(real, []byte("sinks:\n  file: {redact: false}\n"), 0o644))
	require.NoError(t, os.Symlink(real, filepath.Join(dir, "preferences.yaml")))
	user, err := LoadUserPrefs(Env{ConfigDir: dir})
	require.NoError(t, err)
	off, _ := RedactOff(Default(), user)
	assert.Equal(t, map[string]bool{"file": true}, off)
}

// TestLoadSectionsApart: each reader's sections keep what they read when
// another's are bad; only a file that cannot be used fails them all.
func TestLoadSectionsApart(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, PrefsFile),
		[]byte("checkpoint:\n  timeout: soon\nreplan:\n  enabled: false\nagents:\n  warn_after: 10m\n  stale_after: 2h\n"), 0o644))
	p, pr := load(root)
	assert.ErrorContains(t, pr.Commands, `"soon" is not a duration`)
	assert.NoError(t, pr.Hooks)
	assert.NoError(t, pr.Agents)
	assert.Equal(t, failedClosed().Checkpoint, p.Checkpoint, "a bad commands' key: their defaults, git hooks off")
	assert.False(t, p.Replan.Enabled)
	assert.Equal(t, AgentPrefs{WarnAfter: Duration(10 * time.Minute), StaleAfter: Duration(2 * time.Hour)}, p.Agents)

	require.NoError(t, os.WriteFile(filepath.Join(root, PrefsFile), []byte("agents:\n  warn_after: soon\nreplan:\n  enabled: false\n"), 0o644))
	p, pr = load(root)
	assert.NoError(t, pr.Commands)
	assert.ErrorContains(t, pr.Agents, "agents.warn_after")
	assert.Equal(t, Default().Agents, p.Agents)
	assert.False(t, p.Replan.Enabled)

	require.NoError(t, os.WriteFile(filepath.Join(root, PrefsFile), []byte("- a\n- b\n"), 0o644))
	p, pr = load(root)
	assert.Error(t, pr.Commands)
	assert.EqualError(t, pr.Hooks, "preferences: "+filepath.Join(root, PrefsFile)+": not a mapping")
	assert.Error(t, pr.Agents)
	assert.Equal(t, failedClosed(), p)
}

// A preferences file that does not parse, or has a key ccc does not know,
// fails closed: the git snapshot runs no repository hooks (the safeguard
// the file may have been turning on), and the error names the file, the
// line and, for an unknown key, the nearest known one.
func TestBrokenPrefsFailClosed(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"a YAML error", "checkpoint:\n  git_hooks: false\n sync: [\n", `\.ccc-preferences\.yaml: yaml: line \d+`},
		{"a bad value", "checkpoint:\n  git_hooks: nope\n", `\.ccc-preferences\.yaml: yaml: unmarshal errors`},
		{"a misspelt section", "checkpont:\n  git_hooks: false\n", `\.ccc-preferences\.yaml:1: unknown key checkpont \(did you mean checkpoint\?\)$`},
		{"a misspelt key", "sync:\n  debounce: 3s\ncheckpoint:\n  git_hook: false\n", `\.ccc-preferences\.yaml:4: unknown key checkpoint\.git_hook \(did you mean checkpoint\.git_hooks\?\)$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(root, PrefsFile), []byte(tt.yaml), 0o644))
			p, err := loadCommands(root)
			require.Error(t, err)
			assert.Regexp(t, tt.want, err.Error())
			assert.False(t, GitHooks(p, Env{}), "no repository hooks while the file is broken")
		})
	}

	t.Run("the user's own file", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, UserPrefsName), []byte("checkpoint: {git_hooks: false\n"), 0o644))
		p, err := LoadUserPrefs(Env{ConfigDir: dir})
		require.Error(t, err)
		assert.Contains(t, err.Error(), filepath.Join(dir, UserPrefsName))
		assert.False(t, GitHooks(p, Env{}))
	})

	t.Run("known keys are no problem", func(t *testing.T) {
		root := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(root, PrefsFile), []byte(
			"checkpoint:\n  timeout: 5s\nhooks:\n  checkpoint_timeout: 3s\nagents:\n  warn_after: 1h\nexecution:\n  default_mode: x\nsinks:\n  github:\n    repo: a/b\n"), 0o644))
		p, err := loadCommands(root)
		require.NoError(t, err)
		assert.True(t, GitHooks(p, Env{}))
	})
}
