package hook

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
)

func i64(v int64) *int64 { return &v }

// TestLoadPrefs has a case per preference key and per defaulting rule of
// §2.4: absent, null and "" take the default; a boolean is off only when
// set to something other than true; non-integers of integer keys are
// ignored.
func TestLoadPrefs(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want func(p *config.HookPrefs) // applied to the defaults
	}{
		{"empty file", "", func(p *config.HookPrefs) {}},
		{"only comments", "# nothing set\n", func(p *config.HookPrefs) {}},
		{"unknown keys", "gates:\n  spec_approval: false\nsession:\n  context_budget_pct: 30\ncheckpoint:\n  timeout: 5s\n", func(p *config.HookPrefs) {}},

		{"execution.max_task_iterations", "execution:\n  max_task_iterations: 8\n", func(p *config.HookPrefs) { p.Execution.MaxTaskIterations = i64(8) }},
		{"execution.max_task_iterations quoted", "execution:\n  max_task_iterations: \"8\"\n", func(p *config.HookPrefs) { p.Execution.MaxTaskIterations = i64(8) }},
		{"execution.max_task_iterations not an integer", "execution:\n  max_task_iterations: eight\n", func(p *config.HookPrefs) {}},
		{"execution.max_task_iterations fraction", "execution:\n  max_task_iterations: 2.5\n", func(p *config.HookPrefs) {}},
		{"execution.max_task_iterations null", "execution:\n  max_task_iterations: null\n", func(p *config.HookPrefs) {}},
		{"execution.max_task_iterations empty", "execution:\n  max_task_iterations: \"\"\n", func(p *config.HookPrefs) {}},
		{"execution.max_global_iterations", "execution:\n  max_global_iterations: 120\n", func(p *config.HookPrefs) { p.Execution.MaxGlobalIterations = i64(120) }},
		{"execution.max_global_iterations list", "execution:\n  max_global_iterations: [1]\n", func(p *config.HookPrefs) {}},
		{"execution.default_mode", "execution:\n  default_mode: tdd\n", func(p *config.HookPrefs) { p.Execution.DefaultMode = "tdd" }},
		{"execution.default_mode tilde", "execution:\n  default_mode: ~\n", func(p *config.HookPrefs) {}},

		{"replan.enabled false", "replan:\n  enabled: false\n", func(p *config.HookPrefs) { p.Replan.Enabled = false }},
		{"replan.enabled no", "replan:\n  enabled: no\n", func(p *config.HookPrefs) { p.Replan.Enabled = false }},
		{"replan.enabled True", "replan:\n  enabled: True\n", func(p *config.HookPrefs) { p.Replan.Enabled = false }},
		{"replan.enabled quoted true", "replan:\n  enabled: \"true\"\n", func(p *config.HookPrefs) {}},
		{"replan.enabled null", "replan:\n  enabled:\n", func(p *config.HookPrefs) {}},
		{"replan.enabled empty", "replan:\n  enabled: ''\n", func(p *config.HookPrefs) {}},
		{"replan.enabled mapping", "replan:\n  enabled: {on: yes}\n", func(p *config.HookPrefs) { p.Replan.Enabled = false }},
		{"replan.max_replans_per_session", "replan:\n  max_replans_per_session: 5\n", func(p *config.HookPrefs) { p.Replan.MaxReplansPerSession = 5 }},
		{"replan.max_replans_per_session zero", "replan:\n  max_replans_per_session: 0\n", func(p *config.HookPrefs) { p.Replan.MaxReplansPerSession = 0 }},
		{"replan.max_replans_per_session not an integer", "replan:\n  max_replans_per_session: many\n", func(p *config.HookPrefs) {}},

		{"prompts.subagent_discipline", "prompts:\n  subagent_discipline: false\n", func(p *config.HookPrefs) { p.Prompts.SubagentDiscipline = false }},
		{"prompts.search_before_build", "prompts:\n  search_before_build: 0\n", func(p *config.HookPrefs) { p.Prompts.SearchBeforeBuild = false }},
		{"prompts.agents_file", "prompts:\n  agents_file: off\n", func(p *config.HookPrefs) { p.Prompts.AgentsFile = false }},
		{"planning.always_recommend", "planning:\n  always_recommend: false\n", func(p *config.HookPrefs) { p.Planning.AlwaysRecommend = false }},
		{"planning.prioritization_framework", "planning:\n  prioritization_framework: moscow\n", func(p *config.HookPrefs) { p.Planning.PrioritizationFramework = "moscow" }},
		{"eval.analyze_before_execute", "eval:\n  analyze_before_execute: false\n", func(p *config.HookPrefs) { p.Eval.AnalyzeBeforeExecute = false }},
		{"eval.cost_profile", "eval:\n  cost_profile: pay-per-use\n", func(p *config.HookPrefs) { p.Eval.CostProfile = "pay-per-use" }},
		{"eval.max_budget_usd as written", "eval:\n  max_budget_usd: 7.50\n", func(p *config.HookPrefs) { p.Eval.MaxBudgetUSD = "7.50" }},
		{"eval.max_budget_usd empty", "eval:\n  max_budget_usd: \"\"\n", func(p *config.HookPrefs) {}},
		{"style.explanatory", "style:\n  explanatory: detailed\n", func(p *config.HookPrefs) { p.Style.Explanatory = "detailed" }},
		{"style.explanatory_by_role.scan", "style:\n  explanatory_by_role:\n    scan: terse\n", func(p *config.HookPrefs) { p.Style.ExplanatoryByRole.Scan = "terse" }},
		{"style.explanatory_by_role not a mapping", "style:\n  explanatory_by_role: terse\n", func(p *config.HookPrefs) {}},

		{"hooks.checkpoint_timeout", "hooks:\n  checkpoint_timeout: 3s\n", func(p *config.HookPrefs) { p.Hooks.CheckpointTimeout = config.Duration(3 * time.Second) }},
		{"hooks.checkpoint_timeout seconds", "hooks:\n  checkpoint_timeout: 4\n", func(p *config.HookPrefs) { p.Hooks.CheckpointTimeout = config.Duration(4 * time.Second) }},
		{"hooks.checkpoint_timeout invalid", "hooks:\n  checkpoint_timeout: soon\n", func(p *config.HookPrefs) {}},
		{"hooks.checkpoint_timeout negative", "hooks:\n  checkpoint_timeout: -2s\n", func(p *config.HookPrefs) {}},
		{"hooks.checkpoint_timeout at the limit", "hooks:\n  checkpoint_timeout: 25s\n", func(p *config.HookPrefs) { p.Hooks.CheckpointTimeout = config.Duration(MaxCheckpointTimeout) }},
		{"hooks.session_start_max_age", "hooks:\n  session_start_max_age: 2h\n", func(p *config.HookPrefs) { p.Hooks.SessionStartMaxAge = config.Duration(2 * time.Hour) }},
		{"hooks.effort_env false, retired", "hooks:\n  effort_env: false\n", func(p *config.HookPrefs) {}},
		{"hooks.effort_env yes, retired", "hooks:\n  effort_env: yes\n", func(p *config.HookPrefs) {}},

		{"anchors and aliases", "base: &b\n  max_task_iterations: 9\nexecution: *b\n", func(p *config.HookPrefs) { p.Execution.MaxTaskIterations = i64(9) }},
		{"duplicate key takes the last", "eval:\n  cost_profile: budget\n  cost_profile: pay-per-use\n", func(p *config.HookPrefs) { p.Eval.CostProfile = "pay-per-use" }},
		{"section not a mapping", "execution: fast\nprompts: [a, b]\n", func(p *config.HookPrefs) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(root, PrefsFile), []byte(tt.yaml), 0o644))
			got, err := Env{}.Prefs(root)
			require.NoError(t, err)
			want := config.Default().HookPrefs
			tt.want(&want)
			assert.Equal(t, want, got)
		})
	}
}

// TestEffortEnvRetired: a file that still turns hooks.effort_env on loads
// like one without it, with one note for the caller to report.
func TestEffortEnvRetired(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, PrefsFile), []byte("hooks:\n  effort_env: true\n  session_start_max_age: 2h\n"), 0o644))
	got, err := Env{}.Prefs(root)
	require.Error(t, err)
	assert.Equal(t, "preferences: hooks.effort_env is no longer supported (Claude Code ignores an env key in hook output); remove it", err.Error())
	want := config.Default().HookPrefs
	want.Hooks.SessionStartMaxAge = config.Duration(2 * time.Hour)
	assert.Equal(t, want, got, "the other keys still apply")
}

func TestLoadPrefsDefaults(t *testing.T) {
	p, err := Env{}.Prefs(t.TempDir())
	require.NoError(t, err)
	var want config.HookPrefs
	want.Replan.Enabled, want.Replan.MaxReplansPerSession = true, 2
	want.Prompts.SubagentDiscipline, want.Prompts.SearchBeforeBuild, want.Prompts.AgentsFile, want.Planning.AlwaysRecommend = true, true, true, true
	want.Planning.PrioritizationFramework, want.Eval.AnalyzeBeforeExecute, want.Eval.CostProfile, want.Eval.MaxBudgetUSD = "none", true, "budget", "10"
	want.Style.Explanatory, want.Style.ExplanatoryByRole.Scan = "balanced", ""
	want.Hooks.CheckpointTimeout, want.Hooks.SessionStartMaxAge = config.Duration(10*time.Second), config.Duration(24*time.Hour)
	want.Hooks.CaptureInterval = config.Duration(5 * time.Minute)
	assert.Equal(t, want, p)
}

// TestLoadPrefsUnusable: a file that is not YAML, or not a mapping, gives
// the defaults and an error naming the file.
func TestLoadPrefsUnusable(t *testing.T) {
	for name, body := range map[string]string{
		"not yaml":    "execution:\n  max_task_iterations: [1\n",
		"tabs":        "execution:\n\tdefault_mode: tdd\n",
		"a list":      "- execution\n- quick\n",
		"a scalar":    "quick\n",
		"binary junk": "\x00\x01\x02",
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(root, PrefsFile), []byte(body), 0o644))
			got, err := Env{}.Prefs(root)
			require.Error(t, err)
			assert.Contains(t, err.Error(), PrefsFile)
			assert.Equal(t, config.Default().HookPrefs, got)
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		root := t.TempDir()
		require.NoError(t, os.Mkdir(filepath.Join(root, PrefsFile), 0o755))
		got, err := Env{}.Prefs(root)
		require.Error(t, err)
		assert.Equal(t, config.Default().HookPrefs, got)
	})
}

// TestStopUnparsablePrefs: a broken preferences file does not stop the
// loop: the defaults apply and one line says why.
func TestStopUnparsablePrefs(t *testing.T) {
	p := newProj(t)
	p.write(PrefsFile, []byte("replan: [\n"))
	p.write(".ccc-state.json", stateJSON(t, nil))
	d := p.stop(input(t, "stop.json", map[string]any{"last_assistant_message": outReplan}))
	assert.Equal(t, RuleReplan, d.Rule, "replan.enabled defaults to true")
	assert.Contains(t, p.errs.String(), "ccc hook stop: preferences: ")
}

// TestCheckpointTimeoutCapped: hooks.checkpoint_timeout above the limit is
// capped below the plugin's 30s Stop timeout, and the caller is told.
func TestCheckpointTimeoutCapped(t *testing.T) {
	for _, v := range []string{"30s", "2m", "45"} {
		t.Run(v, func(t *testing.T) {
			root := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(root, PrefsFile), []byte("hooks:\n  checkpoint_timeout: "+v+"\n  effort_env: true\n"), 0o644))
			got, err := Env{}.Prefs(root)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "hooks.checkpoint_timeout")
			assert.Contains(t, err.Error(), "using 25s")
			want := config.Default().HookPrefs
			want.Hooks.CheckpointTimeout = config.Duration(MaxCheckpointTimeout)
			assert.Equal(t, want, got, "the other keys still apply")
		})
	}
	t.Run("the stop hook's checkpoint", func(t *testing.T) {
		p := newProj(t)
		p.write(PrefsFile, []byte("hooks:\n  checkpoint_timeout: 60s\n"))
		p.write(".ccc-state.json", stateJSON(t, nil))
		d := p.stop(input(t, "stop.json", nil))
		require.Equal(t, RuleNext, d.Rule)
		require.Equal(t, 1, p.cp.count())
		assert.Equal(t, MaxCheckpointTimeout, p.cp.calls[0].Deadline)
		assert.Equal(t, "ccc hook stop: preferences: hooks.checkpoint_timeout 1m0s is over the hooks' limit of 25s (the plugin's Stop hook is killed at 30s); using 25s\n",
			p.errs.String())
	})
}

// TestStopBrokenPrefsOneLine: broken preferences and a failed gate-boundary
// checkpoint share the stop hook's one stderr line; without a checkpoint the
// preferences' problem is still said, once.
func TestStopBrokenPrefsOneLine(t *testing.T) {
	for _, fail := range []bool{true, false} {
		p := newProj(t)
		p.write(PrefsFile, []byte("hooks: [\n"))
		p.write(".ccc-state.json", stateJSON(t, nil))
		if fail {
			p.cp.err = errors.New("tracker unreachable")
		}
		d := p.stop(input(t, "stop.json", map[string]any{"last_assistant_message": outComplete}))
		require.True(t, d.Gate, "TASK_COMPLETE moves the loop: a gate boundary")
		lines := strings.Split(strings.TrimSuffix(p.errs.String(), "\n"), "\n")
		require.Len(t, lines, 1, p.errs.String())
		assert.Contains(t, lines[0], "ccc hook stop: preferences: ")
		if fail {
			assert.True(t, strings.HasSuffix(lines[0], "; checkpoint: tracker unreachable"), lines[0])
		}
	}
}
