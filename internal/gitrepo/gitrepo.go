// Package gitrepo runs the few git commands ccc needs: finding the work tree,
// reading the branch and HEAD for drift detection, listing changed files, and
// committing exactly the files a session declared in scope. It execs the git
// CLI rather than reimplementing git, so hooks, config and locks behave as
// they do for the user. The one exception is finding the repository: in the
// plain shapes (walk.go) it reads .git's few files itself, since that git
// process was an eighth of a quiet automated checkpoint, and asks git for
// everything else.
package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// ErrNotRepo reports that a directory is not inside a git work tree.
var ErrNotRepo = errors.New("not a git repository")

// ErrUnknownRevision reports a revision git cannot resolve to a commit, such
// as a recorded HEAD that a rebase and gc have since removed.
var ErrUnknownRevision = errors.New("unknown revision")

// Repo is a git work tree.
type Repo struct {
	// Dir is the top level of the work tree, as git reports it (symlinks
	// resolved).
	Dir string
	// NoHooks runs git with the repository's programs turned off: no
	// hooks (core.hooksPath=/dev/null, and commit --no-verify), no
	// fsmonitor, no commit signing. Without it Snapshot's commit runs
	// them exactly as `git commit` would.
	NoHooks bool
	// CommonDir is the repository's git common directory (absolute), as
	// Open found it; "" for a Repo made by hand.
	CommonDir string

	head  *headInfo // HEAD as Open read it; nil: ask git
	cache *Cache    // the ctx's cache Open used, told of ccc's commits
}

// noHooks is the configuration NoHooks puts before every git command.
var noHooks = []string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "commit.gpgsign=false"}

// withConfig puts NoHooks' configuration before args when it is set.
func (r *Repo) withConfig(args []string) []string {
	if !r.NoHooks {
		return args
	}
	return append(append([]string(nil), noHooks...), args...)
}

// GitError is a git command that failed. It keeps git's own words, which
// are usually the only useful explanation.
type GitError struct {
	Args   []string // arguments after "git"
	Stderr string   // git's stderr, trimmed
	Err    error    // *exec.ExitError, the context's error, or a start failure
}

func (e *GitError) Error() string {
	if msg := e.Message(); msg != "" {
		return fmt.Sprintf("git %s: %s (%v)", subcommand(e.Args), msg, e.Err)
	}
	return fmt.Sprintf("git %s: %v", subcommand(e.Args), e.Err)
}

func (e *GitError) Unwrap() error { return e.Err }

// Message condenses Stderr to one line for a report: git's "fatal:" and
// "error:" lines when it printed any (identity errors come after a long
// how-to), otherwise all of it.
func (e *GitError) Message() string {
	var picked, all []string
	for _, l := range strings.Split(e.Stderr, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		all = append(all, l)
		if strings.HasPrefix(l, "fatal: ") || strings.HasPrefix(l, "error: ") {
			picked = append(picked, l)
		}
	}
	if len(picked) == 0 {
		picked = all
	}
	return truncate(strings.Join(picked, "; "), 400)
}

// ExitCode is git's exit status, or -1 when git did not exit on its own.
func (e *GitError) ExitCode() int {
	var ee *exec.ExitError
	if errors.As(e.Err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// subcommand finds the git verb among the global options in front of it.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-c" || a == "-C":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return strings.Join(args, " ")
}

// waitDelay bounds how long a cancelled git may take to remove its lock
// files after SIGTERM, and how long a finished git's stray children (a hook
// that starts a daemon) may hold its output pipes open.
const waitDelay = 3 * time.Second

// run runs git in dir and returns its stdout. stdout is returned on failure
// too because some commands ("nothing to commit") explain themselves there.
func run(ctx context.Context, dir string, extraEnv []string, args ...string) (string, error) {
	return runInput(ctx, dir, extraEnv, nil, args...)
}

// runInput is run with stdin: text an argument could not carry (the OS
// limits one argument to 128 KB).
func runInput(ctx context.Context, dir string, extraEnv []string, stdin io.Reader, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	cmd.Env = append(append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0"), extraEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// SIGTERM rather than the default SIGKILL: git removes its index.lock on
	// SIGTERM, while a killed git leaves the repository locked.
	cmd.Cancel = func() error {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) && ctx.Err() == nil && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		err = nil
	}
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return stdout.String(), &GitError{Args: args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	return stdout.String(), nil
}

func (r *Repo) git(ctx context.Context, args ...string) (string, error) {
	return run(ctx, r.Dir, nil, r.withConfig(args)...)
}

// Open finds the work tree that contains dir. It returns an error wrapping
// ErrNotRepo when dir is not inside one (no .git, inside .git, a bare
// repository); other failures, such as git refusing a repository owned by
// someone else, keep git's message. The same git call reads the branch and
// HEAD, which Branch and Head then return without running git again; with
// a ctx from WithCache, a second Open of the same directory (or of the top
// level it found) runs no git at all.
func Open(ctx context.Context, dir string) (*Repo, error) {
	f, err := Discover(ctx, dir)
	if err != nil {
		return nil, err
	}
	if f.Top == "" {
		return nil, fmt.Errorf("gitrepo: open %s: %w", f.dir, ErrNotRepo)
	}
	r := &Repo{Dir: f.Top, CommonDir: f.CommonDir, cache: cacheFrom(ctx)}
	if f.headKnown {
		r.head = &headInfo{branch: f.Branch, sha: f.Head}
	}
	return r, nil
}

// Found is what one `git rev-parse` says about a directory.
type Found struct {
	// Top is the work tree's top level (symlinks resolved); "" in a bare
	// repository or inside a .git directory.
	Top string
	// CommonDir is the absolute git directory shared by every worktree of
	// the repository.
	CommonDir string
	// Branch and Head are HEAD's short branch name ("" when detached) and
	// SHA ("" on an unborn branch), when headKnown.
	Branch, Head string
	headKnown    bool
	notRepo      bool   // cached: no repository encloses dir
	dir          string // the directory asked about, absolute
}

// Discover finds, once, everything ccc needs to know about dir's
// repository: what `git rev-parse --show-toplevel --git-common-dir HEAD
// --abbrev-ref HEAD` prints. A plain work tree (walk) is read from its
// files without git; any other shape asks git that. A directory no
// repository encloses is ErrNotRepo; in a bare repository or inside a .git
// directory it returns the common directory and no Top. On a branch
// without commits Branch and Head ask git.
func Discover(ctx context.Context, dir string) (Found, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Found{}, fmt.Errorf("gitrepo: open %s: %w", dir, err)
	}
	c := cacheFrom(ctx)
	if f, ok := c.get(abs); ok {
		if f.notRepo {
			return Found{}, fmt.Errorf("gitrepo: open %s: %w", abs, ErrNotRepo)
		}
		return f, nil
	}
	f, err := discover(ctx, abs)
	if errors.Is(err, ErrNotRepo) {
		// Outside a repository every step asks again; ccc never creates
		// one, so the answer holds for the process.
		c.put(abs, Found{dir: abs, notRepo: true})
	}
	if err != nil {
		return Found{}, err
	}
	c.put(abs, f)
	if f.Top != "" {
		c.put(f.Top, f)
	}
	return f, nil
}

func discover(ctx context.Context, abs string) (Found, error) {
	fi, err := os.Stat(abs)
	if err != nil {
		return Found{}, fmt.Errorf("gitrepo: open: %w", err)
	}
	if !fi.IsDir() {
		return Found{}, fmt.Errorf("gitrepo: open %s: not a directory", abs)
	}
	switch f, w := walk(abs, fi, readDiscoveryEnv()); w {
	case walkedFound:
		return f, nil
	case walkedNone:
		return Found{}, fmt.Errorf("gitrepo: open %s: %w", abs, ErrNotRepo)
	}
	return discoverByGit(ctx, abs)
}

// discoverByGit is discover by the one rev-parse.
func discoverByGit(ctx context.Context, abs string) (Found, error) {
	f := Found{dir: abs}
	out, err := run(ctx, abs, nil, "rev-parse", "--show-toplevel", "--git-common-dir", "HEAD", "--abbrev-ref", "HEAD")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var gerr *GitError
	switch {
	case err == nil && len(lines) == 4:
		f.Top, f.CommonDir, f.Head, f.Branch, f.headKnown = lines[0], lines[1], lines[2], lines[3], true
		if f.Branch == "HEAD" { // detached
			f.Branch = ""
		}
	case errors.As(err, &gerr) && out != "" && strings.Contains(gerr.Stderr, "'HEAD'") && ctx.Err() == nil:
		// The paths printed but HEAD does not resolve: a branch without
		// commits yet. Ask again without HEAD; Branch and Head ask git.
		return discoverSlowly(ctx, abs)
	case errors.As(err, &gerr) && strings.Contains(gerr.Stderr, "not a git repository"):
		return Found{}, fmt.Errorf("gitrepo: open %s: %w", abs, ErrNotRepo)
	case errors.As(err, &gerr) && strings.Contains(gerr.Stderr, "must be run in a work tree"):
		// A bare repository, or inside .git: no top level to print.
		out, err := run(ctx, abs, nil, "rev-parse", "--git-common-dir")
		if err != nil {
			return Found{}, fmt.Errorf("gitrepo: open %s: %w", abs, err)
		}
		f.CommonDir = strings.TrimSuffix(out, "\n")
	case err != nil:
		return Found{}, fmt.Errorf("gitrepo: open %s: %w", abs, err)
	default:
		// A path with a newline in it: ask one question at a time.
		return discoverSlowly(ctx, abs)
	}
	return f.finish(abs), nil
}

// discoveryEnv is what of git's environment walk must know: the
// ceilings, and whether anything else there steers discovery.
type discoveryEnv struct {
	ceilings string
	plain    bool // no variable but the ceilings that git's discovery reads
}

// discoveryNeutral are GIT_ variables that change nothing rev-parse
// answers about a work tree: identity, transport, prompts, tracing, and
// the global and system config files (which cannot set core.worktree,
// core.bare or extensions; safe.directory matters only for a repository
// another user owns, which walk leaves to git).
var discoveryNeutral = map[string]bool{
	"GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true, "GIT_CONFIG_NOSYSTEM": true,
	"GIT_TERMINAL_PROMPT": true, "GIT_ASKPASS": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "GIT_PAGER": true,
	"GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_AUTHOR_DATE": true,
	"GIT_COMMITTER_NAME": true, "GIT_COMMITTER_EMAIL": true, "GIT_COMMITTER_DATE": true,
	"GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_SSH_VARIANT": true, "GIT_SSL_CAINFO": true, "GIT_SSL_CAPATH": true,
	"GIT_SSL_NO_VERIFY": true, "GIT_HTTP_USER_AGENT": true, "GIT_PROXY_COMMAND": true,
	"GIT_TRACE": true, "GIT_TRACE2": true, "GIT_TRACE2_EVENT": true, "GIT_TRACE2_PERF": true,
}

// readDiscoveryEnv reads git's environment as the git process would get
// it (os.Environ, the same list run passes on): any GIT_ variable not
// known neutral (GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR,
// GIT_DISCOVERY_ACROSS_FILESYSTEM, GIT_CONFIG_PARAMETERS, …), or SUDO_UID
// for root (git then checks ownership against it), leaves discovery to git.
func readDiscoveryEnv() discoveryEnv {
	e := discoveryEnv{plain: true}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "GIT_CEILING_DIRECTORIES":
			e.ceilings = v
		case k == "SUDO_UID" && euid() == 0,
			strings.HasPrefix(k, "GIT_") && !discoveryNeutral[k]:
			e.plain = false
		}
	}
	return e
}

// discoverSlowly is discover without HEAD, one question at a time: for an
// unborn branch, and for output it cannot split into lines (a path with a
// newline in it).
func discoverSlowly(ctx context.Context, abs string) (Found, error) {
	f := Found{dir: abs}
	out, err := run(ctx, abs, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return Found{}, fmt.Errorf("gitrepo: open %s: %w", abs, err)
	}
	f.Top = strings.TrimSuffix(out, "\n")
	if out, err = run(ctx, abs, nil, "rev-parse", "--git-common-dir"); err != nil {
		return Found{}, fmt.Errorf("gitrepo: open %s: %w", abs, err)
	}
	f.CommonDir = strings.TrimSuffix(out, "\n")
	return f.finish(abs), nil
}

// finish makes the paths native and CommonDir absolute.
func (f Found) finish(abs string) Found {
	if f.Top != "" {
		f.Top = filepath.FromSlash(f.Top)
	}
	if f.CommonDir != "" {
		f.CommonDir = filepath.FromSlash(f.CommonDir)
		if !filepath.IsAbs(f.CommonDir) {
			f.CommonDir = filepath.Join(abs, f.CommonDir)
		}
	}
	return f
}

// headInfo is what Open learned about HEAD.
type headInfo struct{ branch, sha string }

// Cache holds what Discover found, per directory, for one process (one
// command), including that no repository encloses it: the repository's
// HEAD moves only by ccc's own commit, which updates it.
type Cache struct {
	mu sync.Mutex
	m  map[string]Found
}

type cacheKey struct{}

// WithCache returns a ctx under which Discover and Open ask git about a
// directory once.
func WithCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, cacheKey{}, &Cache{m: map[string]Found{}})
}

func cacheFrom(ctx context.Context) *Cache {
	c, _ := ctx.Value(cacheKey{}).(*Cache)
	return c
}

func (c *Cache) get(dir string) (Found, bool) {
	if c == nil {
		return Found{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.m[dir]
	return f, ok
}

func (c *Cache) put(dir string, f Found) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[dir] = f
}

// moved records that HEAD of the work tree top is now sha (ccc committed).
func (c *Cache) moved(top, sha string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, f := range c.m {
		if f.Top == top {
			if f.headKnown {
				f.Head = sha
			}
			c.m[k] = f
		}
	}
}

// Branch is the checked-out branch's short name, or "" for a detached HEAD.
// An unborn branch (no commits yet) still has its name.
func (r *Repo) Branch(ctx context.Context) (string, error) {
	if r.head != nil {
		return r.head.branch, nil
	}
	out, err := r.git(ctx, "symbolic-ref", "-q", "--short", "HEAD")
	var gerr *GitError
	if errors.As(err, &gerr) && gerr.ExitCode() == 1 {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("gitrepo: branch: %w", err)
	}
	return strings.TrimSpace(out), nil
}

// Head is the full SHA of HEAD, or "" without an error on an unborn branch.
func (r *Repo) Head(ctx context.Context) (string, error) {
	if r.head != nil {
		return r.head.sha, nil
	}
	return r.readHead(ctx)
}

// readHead asks git for HEAD's SHA.
func (r *Repo) readHead(ctx context.Context) (string, error) {
	sha, err := r.verify(ctx, "HEAD")
	if errors.Is(err, ErrUnknownRevision) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("gitrepo: head: %w", err)
	}
	return sha, nil
}

// verify resolves rev to a commit SHA, or ErrUnknownRevision.
func (r *Repo) verify(ctx context.Context, rev string) (string, error) {
	// Refused rather than escaped: --end-of-options needs git 2.30, and an
	// older rev-parse would echo it back as if it were a SHA.
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("%q: %w", rev, ErrUnknownRevision)
	}
	out, err := r.git(ctx, "rev-parse", "-q", "--verify", rev+"^{commit}")
	var gerr *GitError
	if errors.As(err, &gerr) && gerr.ExitCode() == 1 {
		return "", fmt.Errorf("%q: %w", rev, ErrUnknownRevision)
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// CommitsBetween counts the commits reachable from to but not from from
// (`git rev-list --count from..to`); to "" means HEAD. It fails with
// ErrUnknownRevision when either side does not name a commit, so a recorded
// HEAD that no longer exists is told apart from "no new commits".
func (r *Repo) CommitsBetween(ctx context.Context, from, to string) (int, error) {
	if to == "" {
		to = "HEAD"
	}
	fromSHA, err := r.verify(ctx, from)
	if err != nil {
		return 0, fmt.Errorf("gitrepo: commits between: %w", err)
	}
	toSHA, err := r.verify(ctx, to)
	if err != nil {
		return 0, fmt.Errorf("gitrepo: commits between: %w", err)
	}
	out, err := r.git(ctx, "rev-list", "--count", fromSHA+".."+toSHA, "--")
	if err != nil {
		return 0, fmt.Errorf("gitrepo: commits between: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return 0, fmt.Errorf("gitrepo: commits between: unexpected rev-list output %q", out)
	}
	return n, nil
}

// truncate is git's or a hook's output redacted, then cut to n runes: cut
// first, a credential a hook printed across the cut would keep its first part.
func truncate(s string, n int) string { return redact.Clip(s, n) }
