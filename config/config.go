// Package config resolves where a project is and how ccc should behave there:
// flags, then the environment (Variables, read once into Env), then the
// user's own preferences, then .ccc-preferences.yaml, then the defaults,
// with the exceptions Settings lists.
package config

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// PrefsFile is the user's preferences file, shared with the CCC plugin.
const PrefsFile = ".ccc-preferences.yaml"

// DefaultAgent names the writer when neither --agent nor CCC_AGENT does.
const DefaultAgent = "main"

// DefaultCIAgent names the writer of `ccc post` when neither --agent nor
// CCC_AGENT does and no GitHub Actions job does either.
const DefaultCIAgent = "ci"

// DefaultCommitMessage is CCC's `type(ISSUE):` Conventional Commits form.
const DefaultCommitMessage = "chore({issue}): checkpoint — task {n}/{m}: {task}"

// Prefs is every key of .ccc-preferences.yaml that ccc reads, in its
// sections. A key it does not know is a problem (with the nearest known
// key), never rewritten: ccc does not write this file. The commands' sections (checkpoint, sync, redact, sinks)
// are decoded strictly: a bad value is an error. The hooks' keys are read as
// CCC's own hooks read them, and agents: by its rule (see load), so they are
// not decoded by their tags.
type Prefs struct {
	Checkpoint struct {
		// CommitMessage is the git snapshot's message template with
		// {issue}, {n}, {m} and {task}.
		CommitMessage string `yaml:"commit_message"`
		// Timeout bounds a manual checkpoint's network work.
		Timeout Duration `yaml:"timeout"`
		// AutomatedTimeout bounds the automated profile (hooks, CI).
		AutomatedTimeout Duration `yaml:"automated_timeout"`
		// StaleAfter is the age past which `ccc go` flags a checkpoint.
		StaleAfter Duration `yaml:"stale_after"`
		// GitHooks: false makes the git snapshot run none of the
		// repository's hooks, fsmonitor or commit signing (see GitHooks).
		GitHooks *bool `yaml:"git_hooks"`
	} `yaml:"checkpoint"`
	Sync struct {
		// Debounce gathers a burst of writes to the progress file into one
		// checkpoint (ccc sync --watch).
		Debounce Duration `yaml:"debounce"`
	} `yaml:"sync"`
	// Handoff turns on the checkpoint branch (state/handoff): remote is
	// the git remote it is published to. Off without it (HandoffRemote).
	// Keep and KeepFor are its retention rule (HandoffRetention): ccc sync
	// begins a new epoch when the history since the last one holds more
	// than Keep commits or is older than KeepFor (nil: the default; 0: no
	// such limit).
	Handoff struct {
		Remote  string    `yaml:"remote"`
		Keep    *int      `yaml:"keep"`
		KeepFor *Duration `yaml:"keep_for"`
	} `yaml:"handoff"`
	Redact struct {
		// Patterns are extra credentials to redact (Go regexps).
		Patterns []redact.Pattern `yaml:"patterns"`
	} `yaml:"redact"`
	// Sinks lists the trackers to update and their settings; nil when the
	// file has no sinks: section (then the environment decides).
	Sinks map[string]SinkPrefs `yaml:"sinks"`

	// HookPrefs are CCC's keys and the hooks: section, which the hooks read.
	HookPrefs `yaml:"-"`
	// Agents is the agents: section, a supervisor's thresholds.
	Agents AgentPrefs `yaml:"-"`
}

// SinkPrefs is one entry of the sinks: section. A listed sink is on unless
// it says enabled: false.
type SinkPrefs struct {
	Enabled *bool `yaml:"enabled"`
	// Repo is GitHub's owner/repo; Issue the issue or pull request number
	// (inside GitHub Actions the event gives it).
	Repo  string `yaml:"repo"`
	Issue int    `yaml:"issue"`
	// Project is the Jira project whose issues the jira sink comments on
	// (PROJ): a key of another project is skipped.
	Project string `yaml:"project"`
	// Path is the file sink's output file, relative to the project root.
	Path string `yaml:"path"`
	// BotLogin is who a GitHub App installation token writes as
	// ("my-app[bot]"); $CCC_GITHUB_BOT_LOGIN overrides it.
	BotLogin string `yaml:"bot_login"`
	// MaxBody is the longest status body the sink sends, in characters
	// (Linear's default 65,000; GitHub's 65,536 is also its ceiling).
	MaxBody int `yaml:"max_body"`
	// Redact: false turns pattern redaction off for this sink, honoured
	// only in the user's own preferences (UserPrefsPath): a repository
	// cannot switch it off for whoever runs ccc there. The credentials ccc
	// holds are redacted whatever it says.
	Redact *bool `yaml:"redact"`
	// ClientID is the user's own Linear OAuth application (ccc linear
	// login), read from the user's preferences only.
	ClientID string `yaml:"client_id"`
	// StartIssue and Delegate (linear-agent, on by default): when the
	// session starts, move an issue not started yet to its team's first
	// "started" state, and make the agent the issue's delegate when it has
	// none (Linear's "Interaction best practices").
	StartIssue *bool `yaml:"start_issue"`
	Delegate   *bool `yaml:"delegate"`
	// RepliesFrom (linear-agent) is whose replies in the session reach the
	// agent: assignee, starter, anyone. The user's own preferences decide;
	// a repository's can only narrow them (linearagent.RepliesFrom).
	RepliesFrom []string `yaml:"replies_from"`
}

// Starts says whether the agent sink moves the issue to started.
func (s SinkPrefs) Starts() bool { return s.StartIssue == nil || *s.StartIssue }

// Delegates says whether the agent sink sets itself as the delegate.
func (s SinkPrefs) Delegates() bool { return s.Delegate == nil || *s.Delegate }

// On reports whether a listed sink is enabled.
func (s SinkPrefs) On() bool { return s.Enabled == nil || *s.Enabled }

// Duration is a duration key of the file, in ParseDuration's syntax.
type Duration time.Duration

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := ParseDuration(s)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = Duration(v)
	return nil
}

// Set parses a command-line flag's value in ParseDuration's syntax, so that
// *Duration is a pflag.Value: every duration flag takes what the file takes.
func (d *Duration) Set(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// Type names the flag's value in --help.
func (d *Duration) Type() string { return "duration" }

// String shows a flag's default in --help: whole days as days, else as Go
// prints durations; zero is "0", which --help leaves out.
func (d *Duration) String() string {
	switch v := time.Duration(*d); {
	case v == 0:
		return "0"
	case v%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(v/(24*time.Hour)), 10) + "d"
	default:
		return v.String()
	}
}

// ParseDuration reads every duration of the file: a number of seconds
// ("45", "0.5"), a Go duration ("90s", "1h30m"), or a whole number of days
// that a Go duration may follow ("2d", "1d12h"). A negative one is refused.
func ParseDuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("%q is not a duration (write e.g. 45 for seconds, 90s, 30m, 12h or 7d)", s)
	t := strings.TrimSpace(s)
	if secs, err := strconv.ParseFloat(t, 64); err == nil && secs >= 0 && secs*1e9 < math.MaxInt64 {
		return time.Duration(math.Round(secs * 1e9)), nil // NaN, -1 and 1e30 fall through and fail
	}
	var days time.Duration
	if n, rest, ok := strings.Cut(t, "d"); ok {
		d, err := strconv.Atoi(n)
		if err != nil || d < 0 || d > 100000 {
			return 0, bad
		}
		if days, t = time.Duration(d)*24*time.Hour, rest; t == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(t)
	if err != nil || d < 0 || days+d < days {
		return 0, bad
	}
	return days + d, nil
}

// Defaults.
const (
	DefaultManualTimeout    = 30 * time.Second
	DefaultAutomatedTimeout = 10 * time.Second
	DefaultStaleAfter       = 24 * time.Hour
	DefaultDebounce         = 2 * time.Second
)

// Default returns the preferences with every default filled in.
func Default() Prefs {
	var p Prefs
	p.Checkpoint.CommitMessage = DefaultCommitMessage
	p.Checkpoint.Timeout = Duration(DefaultManualTimeout)
	p.Checkpoint.AutomatedTimeout = Duration(DefaultAutomatedTimeout)
	p.Checkpoint.StaleAfter = Duration(DefaultStaleAfter)
	p.Sync.Debounce = Duration(DefaultDebounce)
	p.HookPrefs = defaultHookPrefs()
	p.Agents = defaultAgentPrefs()
	return p
}

// ReadPrefsFile parses root/.ccc-preferences.yaml for load, its one reader.
// A missing file is a nil document and no error; an unreadable or
// unparsable one an error naming the file (and the line, for bad YAML).
func ReadPrefsFile(root string) (doc *yaml.Node, path string, err error) {
	path = filepath.Join(root, PrefsFile)
	doc, err = readYAML(root, path)
	return doc, path, err
}

// readYAML reads a preferences file: a regular file under the size limit,
// confined to root ("" for the user's own file, outside every project,
// which may be a symlink into a dotfiles checkout).
func readYAML(root, path string) (*yaml.Node, error) {
	data, err := projectfs.ReadProjectFile(root, path, projectfs.MaxPrefsSize)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("preferences: %w", err)
	}
	doc := new(yaml.Node)
	if err := yaml.Unmarshal(data, doc); err != nil {
		return nil, fmt.Errorf("preferences: %s: %w", path, err)
	}
	return doc, nil
}

// Problems says what is wrong with a preferences file, by its readers: each
// says its own, and the sections it reads keep their defaults. A file that
// cannot be read or parsed is every reader's problem.
type Problems struct {
	// Commands: a key of checkpoint, sync, redact or sinks does not decode
	// (or the document is not a mapping).
	Commands error
	// Hooks: the document is not a mapping. A bad value of a hooks' key is
	// its default and no problem, as CCC reads it.
	Hooks error
	// Agents: agents.warn_after or agents.stale_after is bad, or the
	// section does not decode.
	Agents error
}

// load reads root/.ccc-preferences.yaml, every key over its default: the
// one reader of the file, through Settings.Project. A missing file gives
// the defaults and no problems.
func load(root string) (Prefs, Problems) {
	doc, path, err := ReadPrefsFile(root)
	return decodePrefs(doc, path, err)
}

// UserPrefsName is the user's own preferences file, in UserConfigDir.
const UserPrefsName = "preferences.yaml"

// UserConfigDir is where the user's own ccc settings live:
// $CCC_CONFIG_DIR, else os.UserConfigDir()/ccc.
func UserConfigDir(env Env) (string, error) {
	if d := env.ConfigDir; d != "" {
		return d, nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("preferences: %w", err)
	}
	return filepath.Join(d, "ccc"), nil
}

// UserPrefsPath is the user's own preferences file.
func UserPrefsPath(env Env) (string, error) {
	d, err := UserConfigDir(env)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, UserPrefsName), nil
}

// LoadUserPrefs reads the user's own preferences (UserPrefsPath), the
// same keys as .ccc-preferences.yaml, over the defaults; like the
// repository's file (Project), a
// missing file gives the defaults and a bad one the defaults and an error.
// Settings a repository must not make for its user (redact: false) are
// honoured only here.
func LoadUserPrefs(env Env) (Prefs, error) {
	path, err := UserPrefsPath(env)
	if err != nil {
		return Default(), err
	}
	doc, err := readYAML("", path)
	p, pr := decodePrefs(doc, path, err)
	return p, pr.Commands
}

// RedactOff names the sinks whose pattern redaction the user's own
// preferences turn off, and lists the sinks whose repository preferences
// ask for it (ignored: an untrusted repository must not be able to make
// ccc publish its user's secrets).
func RedactOff(repo, user Prefs) (off map[string]bool, ignored []string) {
	for name, sp := range user.Sinks {
		if sp.Redact != nil && !*sp.Redact {
			if off == nil {
				off = map[string]bool{}
			}
			off[name] = true
		}
	}
	for name, sp := range repo.Sinks {
		if sp.Redact != nil && !*sp.Redact {
			ignored = append(ignored, name)
		}
	}
	sort.Strings(ignored)
	return off, ignored
}

// decodePrefs reads doc over the defaults. A file that does not parse, a
// commands' key that does not decode, or a key ccc does not know fails
// closed: the git snapshot runs no repository hooks, since the file may
// have been turning them off (checkpoint.git_hooks: false, the safeguard
// for a repository you did not write). Redaction needs nothing: it is on
// unless a readable user file turns it off.
func decodePrefs(doc *yaml.Node, path string, err error) (Prefs, Problems) {
	p := Default()
	if doc == nil {
		if err != nil {
			p.Checkpoint.GitHooks = new(bool)
		}
		return p, Problems{Commands: err, Hooks: err, Agents: err}
	}
	var pr Problems
	p.HookPrefs, pr.Hooks = readHookPrefs(doc, path)
	p.Agents, pr.Agents = readAgentPrefs(doc, path)
	pr.Commands = decodeCommands(doc, path, &p)
	if pr.Commands == nil {
		pr.Commands = unknownKey(doc, path)
	}
	if pr.Commands != nil {
		p.Checkpoint.GitHooks = new(bool)
	}
	return p, pr
}

// decodeCommands decodes the commands' sections of doc into p, which holds
// their defaults; on an error p keeps them all.
func decodeCommands(doc *yaml.Node, path string, p *Prefs) error {
	var read Prefs
	if err := doc.Decode(&read); err != nil {
		return fmt.Errorf("preferences: %s: %w", path, err)
	}
	if v := read.Checkpoint.CommitMessage; strings.TrimSpace(v) != "" {
		p.Checkpoint.CommitMessage = v
	}
	if v := read.Checkpoint.Timeout; v > 0 {
		p.Checkpoint.Timeout = v
	}
	if v := read.Checkpoint.AutomatedTimeout; v > 0 {
		p.Checkpoint.AutomatedTimeout = v
	}
	if v := read.Checkpoint.StaleAfter; v > 0 {
		p.Checkpoint.StaleAfter = v
	}
	p.Checkpoint.GitHooks = read.Checkpoint.GitHooks
	if v := read.Sync.Debounce; v > 0 {
		p.Sync.Debounce = v
	}
	p.Redact = read.Redact
	p.Handoff = read.Handoff
	p.Sinks = read.Sinks
	if p.Sinks == nil && hasKey(doc, "sinks") {
		p.Sinks = map[string]SinkPrefs{} // "sinks:" with nothing under it: none
	}
	return nil
}

// hasKey reports whether the YAML document has a top-level key.
func hasKey(doc *yaml.Node, key string) bool {
	var top map[string]yaml.Node
	if err := doc.Decode(&top); err != nil {
		return false
	}
	_, ok := top[key]
	return ok
}

// GitHooks says whether the manual checkpoint's git snapshot runs the
// repository's hooks, fsmonitor and commit signing, as `git commit` does:
// yes, unless checkpoint.git_hooks is false in the preferences or
// CCC_GIT_HOOKS is false (0, no, off). Either can only turn them off: the
// preferences file belongs to the repository, which is not trusted to
// turn on what the user turned off, and on is already the default.
func GitHooks(p Prefs, env Env) bool {
	if v := p.Checkpoint.GitHooks; v != nil && !*v {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(env.GitHooks)) {
	case "0", "false", "no", "off":
		return false
	}
	return true
}

// FindRoot picks the project root: dir (--dir), else $CCC_PROJECT_ROOT, else
// the git top level of cwd, else cwd. The result is absolute and must be an
// existing directory.
func FindRoot(ctx context.Context, dir string, env Env, cwd string) (string, error) {
	root := dir
	if root == "" {
		root = env.ProjectRoot
	}
	if root == "" {
		if repo, err := gitrepo.Open(ctx, cwd); err == nil {
			root = repo.Dir
		} else {
			root = cwd
		}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("project root: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("project root: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("project root: %s is not a directory", abs)
	}
	return abs, nil
}

// Agent names the writer: flag, else CCC_AGENT, else "main".
func Agent(flag string, env Env) string {
	if flag != "" {
		return flag
	}
	if v := env.Agent; v != "" {
		return v
	}
	return DefaultAgent
}

// CIAgent names the writer of a CI post (`ccc post`): flag, else CCC_AGENT,
// else inside GitHub Actions the job's id (GITHUB_JOB, reduced to letters,
// digits and "-._"), else "ci". Unless named explicitly it is never "main":
// a CI report must get its own comment, not replace the session's.
func CIAgent(flag string, env Env) string {
	if flag != "" {
		return flag
	}
	if v := env.Agent; v != "" {
		return v
	}
	if !env.GitHub.Actions {
		return DefaultCIAgent
	}
	job := jobName(env.GitHub.Job)
	switch job {
	case "":
		return DefaultCIAgent
	case DefaultAgent:
		return DefaultCIAgent + "-" + job
	}
	return job
}

// jobName makes a job id a safe agent name: runs of other characters become
// one "-", leading and trailing "-" and "." go, and it is at most 64 bytes.
func jobName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		switch {
		case r < 0x80 && (r == '-' || r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-.")
	if len(out) > 64 {
		out = strings.TrimRight(out[:64], "-.")
	}
	return out
}
