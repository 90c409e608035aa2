package config

import (
	"strings"
	"sync"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// Settings is what one ccc process reads from outside its command line:
// the environment (Env, read once), the user's own preferences (read at the
// first use, at most once) and each project's .ccc-preferences.yaml (read
// at the first use, at most once per root: Project). cmd/ccc builds it once
// (NewSettings) and passes it, or a part of it, down; nothing below cmd and
// config reads the environment itself (internal/archtest), and
// .ccc-preferences.yaml is read only here (Project; load is unexported). Tests may build one directly: Settings{Env: EnvOf(...)}
// reads the files at each use.
//
// Precedence: flags, then the environment, then the user's own preferences
// for what a repository may not decide for its user, then the repository's
// preferences, then the defaults. The user's own file takes the same keys
// as .ccc-preferences.yaml but counts only where a repository is not
// trusted to decide for its user (SECURITY.md), all applied in Project:
//   - git hooks (CCC_GIT_HOOKS, checkpoint.git_hooks in either file): each
//     can only turn them off; none turns back on what another turned off
//     (GitHooks).
//   - redact: false counts only in the user's own preferences (RedactOff);
//     redact.patterns of both files apply (they can only redact more).
//   - sinks.linear.client_id is read from the user's own preferences only.
//   - handoff.remote: CCC_HANDOFF_REMOTE, else the user's, else the
//     repository's (HandoffRemote).
//
// What a repository sets in paths (sinks.file.path) must stay inside the
// project; the file sink enforces it where it writes (projectfs).
type Settings struct {
	Env Env

	user     *userPrefs // nil: read at each use
	projects *projects  // nil: read at each use
}

type userPrefs struct {
	once  sync.Once
	prefs Prefs
	err   error
}

// projects holds each root's Project, read once.
type projects struct {
	mu     sync.Mutex
	byRoot map[string]*projectOnce
}

type projectOnce struct {
	once sync.Once
	p    Project
}

// NewSettings is the process's settings: env, with the user's preferences
// and each project's read at most once.
func NewSettings(env Env) Settings {
	return Settings{Env: env, user: &userPrefs{}, projects: &projects{byRoot: map[string]*projectOnce{}}}
}

// Reread is s with the projects' preferences read again at their next use
// (the user's own stay as read): for a worker that runs for hours and
// applies an edit of .ccc-preferences.yaml at its next checkpoint.
func (s Settings) Reread() Settings {
	if s.projects != nil {
		s.projects = &projects{byRoot: map[string]*projectOnce{}}
	}
	return s
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

// Project is one project's preferences as every command and hook uses
// them: the repository's .ccc-preferences.yaml over the defaults, with what
// only the user may decide applied from the user's own file.
type Project struct {
	// Prefs are the repository's preferences (a file it cannot use fails
	// closed: the defaults, without the repository's git hooks), with the
	// user's "git hooks off" over them.
	Prefs Prefs
	// Problems are the repository's file's, by its readers.
	Problems Problems
	// User is why the user's own file could not be used (it then counts
	// as the defaults): the checkpoint's warning.
	User error
	// Patterns are the repository's extra redaction patterns, then the
	// user's.
	Patterns []redact.Pattern
	// NoRedact names the sinks whose pattern redaction the user's own
	// preferences turn off; Ignored the sinks whose repository
	// preferences ask for it (ignored, and worth a warning).
	NoRedact map[string]bool
	Ignored  []string
	// HandoffRemote is the remote the checkpoint branch is published to;
	// "" when the branch is off (HandoffRemote).
	HandoffRemote string
	// HandoffKeep and HandoffKeepFor are the branch's retention rule
	// (HandoffRetention).
	HandoffKeep    int
	HandoffKeepFor time.Duration
}

// Project reads root's preferences (load) and applies the user's over them
// (the exceptions to "the repository's preferences over the defaults" that
// Settings lists), once per root for Settings built by NewSettings.
func (s Settings) Project(root string) Project {
	if s.projects == nil {
		return s.project(root)
	}
	s.projects.mu.Lock()
	p := s.projects.byRoot[root]
	if p == nil {
		p = &projectOnce{}
		s.projects.byRoot[root] = p
	}
	s.projects.mu.Unlock()
	p.once.Do(func() { p.p = s.project(root) })
	return p.p
}

func (s Settings) project(root string) Project {
	repo, problems := load(root)
	user, err := s.UserPrefs()
	p := Project{Prefs: repo, Problems: problems, User: err}
	if v := user.Checkpoint.GitHooks; v != nil && !*v {
		p.Prefs.Checkpoint.GitHooks = v // the user's "off" holds in every project
	}
	p.Patterns = append(append([]redact.Pattern{}, repo.Redact.Patterns...), user.Redact.Patterns...)
	p.NoRedact, p.Ignored = RedactOff(repo, user)
	p.HandoffRemote = HandoffRemote(repo, user, s.Env)
	p.HandoffKeep, p.HandoffKeepFor = HandoffRetention(repo, user)
	return p
}

// Retention defaults of the checkpoint branch (handoff.keep, handoff.keep_for).
const (
	DefaultHandoffKeep    = 1000
	DefaultHandoffKeepFor = 90 * 24 * time.Hour
)

// HandoffRetention is the checkpoint branch's retention rule: handoff.keep
// (commits) and handoff.keep_for of the user's own preferences, else the
// repository's, key by key, else DefaultHandoffKeep and
// DefaultHandoffKeepFor. 0 turns a limit off; a negative value counts as
// unset.
func HandoffRetention(repo, user Prefs) (keep int, keepFor time.Duration) {
	keep, keepFor = DefaultHandoffKeep, DefaultHandoffKeepFor
	for _, p := range []Prefs{repo, user} {
		if v := p.Handoff.Keep; v != nil && *v >= 0 {
			keep = *v
		}
		if v := p.Handoff.KeepFor; v != nil && *v >= 0 {
			keepFor = time.Duration(*v)
		}
	}
	return keep, keepFor
}

// HandoffRemote is the git remote the checkpoint branch is published to,
// "" when the branch is off (the default): CCC_HANDOFF_REMOTE (false, no,
// off or 0: off), else handoff.remote of the user's own preferences, else
// the repository's. Broken preferences leave it off.
func HandoffRemote(repo, user Prefs, env Env) string {
	v := strings.TrimSpace(env.Handoff)
	if v == "" {
		v = strings.TrimSpace(user.Handoff.Remote)
	}
	if v == "" {
		v = strings.TrimSpace(repo.Handoff.Remote)
	}
	switch strings.ToLower(v) {
	case "false", "no", "off", "0":
		return ""
	}
	if strings.HasPrefix(v, "-") {
		return "" // a remote name git would read as an option
	}
	return v
}
