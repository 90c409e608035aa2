package hook

import (
	"errors"
	"fmt"
	"time"

	"github.com/ccc-checkpoint/ccc/config"
)

// PrefsFile is the user's preferences file, shared with the CCC plugin.
const PrefsFile = config.PrefsFile

// MaxCheckpointTimeout caps hooks.checkpoint_timeout below the plugin's
// Stop and PreCompact timeouts (30s in plugin/hooks/hooks.json): Claude
// Code kills a hook that overruns its timeout, and a killed stop hook never
// prints its block, which ends CCC's loop.
const MaxCheckpointTimeout = 25 * time.Second

// Prefs are root's preferences as the hooks use them: the process's one
// read of the file (config.Settings.Project), through PrefsOf.
func (e Env) Prefs(root string) (config.HookPrefs, error) {
	p := e.Settings.Project(root)
	return PrefsOf(p.Prefs.HookPrefs, p.Problems.Hooks)
}

// PrefsOf takes the hooks' preferences from what Settings.Project read, and its
// problem with them. A file it could not use gives the defaults and an
// error for the caller to report, and so does a checkpoint_timeout over
// MaxCheckpointTimeout, which is capped, and the retired hooks.effort_env
// turned on (it changes nothing).
func PrefsOf(p config.HookPrefs, problem error) (config.HookPrefs, error) {
	if problem != nil {
		return config.Default().HookPrefs, fmt.Errorf("%w; using the defaults", problem)
	}
	var notes []error
	// hooks.effort_env is accepted and does nothing: the env it added to a
	// block is a key Claude Code's hook output does not have. Only a file
	// that turns it on, expecting an effect, hears about it.
	if p.Hooks.EffortEnv {
		p.Hooks.EffortEnv = false
		notes = append(notes, errors.New("preferences: hooks.effort_env is no longer supported (Claude Code ignores an env key in hook output); remove it"))
	}
	if asked := time.Duration(p.Hooks.CheckpointTimeout); asked > MaxCheckpointTimeout {
		p.Hooks.CheckpointTimeout = config.Duration(MaxCheckpointTimeout)
		notes = append(notes, fmt.Errorf("preferences: hooks.checkpoint_timeout %s is over the hooks' limit of %s (the plugin's Stop hook is killed at 30s); using %s",
			asked, MaxCheckpointTimeout, MaxCheckpointTimeout))
	}
	return p, errors.Join(notes...)
}
