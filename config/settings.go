package config

import (
	"sync"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// Settings is what one ccc process reads from outside any project: the
// environment (Env, read once) and the user's own preferences (read at the
// first use, at most once). cmd/ccc builds it once (NewSettings) and passes
// it, or a part of it, down; nothing below cmd and config reads the
// environment itself (internal/archtest). Tests may build one directly:
// Settings{Env: EnvOf(...)} reads the user's preferences at each use.
//
// Precedence: flags, then the environment, then the preferences, then the
// defaults. The preferences are the repository's .ccc-preferences.yaml; the
// user's own file takes the same keys but counts only where a repository is
// not trusted to decide for its user (SECURITY.md), all applied in Effective:
//   - git hooks (CCC_GIT_HOOKS, checkpoint.git_hooks in either file): each
//     can only turn them off; none turns back on what another turned off
//     (GitHooks).
//   - redact: false counts only in the user's own preferences (RedactOff);
//     redact.patterns of both files apply (they can only redact more).
//   - sinks.linear.client_id is read from the user's own preferences only.
//
// What a repository sets in paths (sinks.file.path) must stay inside the
// project; the file sink enforces it where it writes (projectfs).
type Settings struct {
	Env Env

	user *userPrefs // nil: read at each use
}

type userPrefs struct {
	once  sync.Once
	prefs Prefs
	err   error
}

// NewSettings is the process's settings: env, with the user's preferences
// read at most once.
func NewSettings(env Env) Settings {
	return Settings{Env: env, user: &userPrefs{}}
}

// ConfigDir is the user's own ccc directory (UserConfigDir).
func (s Settings) ConfigDir() (string, error) { return UserConfigDir(s.Env) }

// UserPrefsPath is the user's own preferences file.
func (s Settings) UserPrefsPath() (string, error) { return UserPrefsPath(s.Env) }

// UserPrefs are the user's own preferences over the defaults
// (LoadUserPrefs), read once per Settings built by NewSettings.
func (s Settings) UserPrefs() (Prefs, error) {
	if s.user == nil {
		return LoadUserPrefs(s.Env)
	}
	s.user.once.Do(func() { s.user.prefs, s.user.err = LoadUserPrefs(s.Env) })
	return s.user.prefs, s.user.err
}

// Effective is a project's settings for one checkpoint: the repository's
// preferences with what only the user (or the environment) may decide
// applied over them.
type Effective struct {
	// Prefs are the repository's preferences, with the user's "git hooks
	// off" over them.
	Prefs Prefs
	// Patterns are the repository's extra redaction patterns, then the
	// user's.
	Patterns []redact.Pattern
	// NoRedact names the sinks whose pattern redaction the user's own
	// preferences turn off; Ignored the sinks whose repository
	// preferences ask for it (ignored, and worth a warning).
	NoRedact map[string]bool
	Ignored  []string
}

// Effective applies the user's preferences over the repository's (repo):
// the exceptions to "the user's preferences win" that Settings lists. A
// user file that cannot be read counts as the defaults (its error is the
// caller's warning).
func (s Settings) Effective(repo Prefs) (Effective, error) {
	user, err := s.UserPrefs()
	e := Effective{Prefs: repo}
	if v := user.Checkpoint.GitHooks; v != nil && !*v {
		e.Prefs.Checkpoint.GitHooks = v // the user's "off" holds in every project
	}
	e.Patterns = append(append([]redact.Pattern{}, repo.Redact.Patterns...), user.Redact.Patterns...)
	e.NoRedact, e.Ignored = RedactOff(repo, user)
	return e, err
}
