package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// Refusal is a path from the scope that Snapshot would not touch.
type Refusal struct {
	Path   string // as given
	Reason string
}

// SnapshotResult says what Snapshot committed, or why it committed nothing.
type SnapshotResult struct {
	// Commit is the full SHA of the new commit; "" when nothing was committed.
	Commit string
	// Files are the committed paths, relative to the top level with forward
	// slashes, sorted. A rename counts as both its old and new path.
	Files []string
	// Skipped is the one-line reason nothing was committed; "" after a commit.
	Skipped string
	// Refused lists scope entries that were ignored, whatever the outcome.
	Refused []Refusal
	// HookOutput is everything a rejecting commit hook printed, for a caller
	// that logs it in full; Skipped carries only its first lines.
	HookOutput string
}

// hooksThatRejectCommits are the hooks whose failure makes `git commit`
// exit 1 without a message of its own.
var hooksThatRejectCommits = []string{"pre-commit", "prepare-commit-msg", "commit-msg"}

// Snapshot commits exactly the files of paths (the session's activeTaskFiles:
// relative to the top level, or absolute) that have changed — modified,
// added, deleted, renamed or untracked — and nothing else. Changes the user
// staged or made outside the scope stay as they were.
//
// Unsafe entries are refused and reported, never staged: empty, starting
// with "-", outside the top level (directly or through a symlink), through a
// symlinked directory, a directory, the top level itself, anything inside
// .git/ or .ccc/, and ccc's own .ccc-state.json and .ccc-progress.md in any
// directory.
//
// Nothing to do is not an error: the result says why in Skipped. A commit
// rejected by a pre-commit (or commit-msg) hook is a skip too, as the
// checkpoint protocol asks. Any other git failure is a *GitError. Whenever
// no commit is made, the index is left byte-for-byte as it was.
func (r *Repo) Snapshot(ctx context.Context, paths []string, message string) (SnapshotResult, error) {
	var res SnapshotResult
	if strings.TrimSpace(message) == "" {
		return res, errors.New("gitrepo: snapshot: empty commit message")
	}
	scope, refused := r.resolveScope(paths)
	res.Refused = refused

	all, err := r.Changed(ctx)
	if err != nil {
		return res, fmt.Errorf("gitrepo: snapshot: %w", err)
	}
	// ccc's own files change on every checkpoint (step 1 just wrote them)
	// and are never committed: they do not make the tree dirty.
	var changes []Change
	for _, c := range all {
		if reservedReason(c.Path) == "" || c.From != "" && reservedReason(c.From) == "" {
			changes = append(changes, c)
		}
	}
	changed := make(map[string]bool)
	for _, c := range changes {
		changed[c.Path] = true
		if c.From != "" {
			changed[c.From] = true
		}
	}
	inScope := make(map[string]bool)
	var scopeList []string
	for _, s := range scope {
		// Staging a directory would take in every file under it. A changed
		// submodule is the exception: git lists it as one path.
		if s.dir && !changed[s.rel] {
			res.Refused = append(res.Refused, Refusal{Path: s.given, Reason: "is a directory (list its files instead)"})
			continue
		}
		if !inScope[s.rel] {
			inScope[s.rel] = true
			scopeList = append(scopeList, s.rel)
		}
	}

	switch {
	case len(changes) == 0:
		res.Skipped = "working tree clean"
		return res, nil
	case len(paths) == 0:
		res.Skipped = "no activeTaskFiles in .ccc-state.json"
		return res, nil
	case len(scopeList) == 0:
		res.Skipped = fmt.Sprintf("all %d activeTaskFiles refused", len(paths))
		return res, nil
	}

	var picked []Change
	var conflicted []string
	for _, c := range changes {
		if !inScope[c.Path] && !(c.From != "" && inScope[c.From]) {
			continue
		}
		if c.Unmerged() {
			conflicted = append(conflicted, c.Path)
			continue
		}
		picked = append(picked, c)
	}
	if len(conflicted) > 0 {
		// git add would mark the conflicts resolved, markers and all.
		return res, fmt.Errorf("gitrepo: snapshot: in-scope files have unresolved merge conflicts: %s", strings.Join(conflicted, ", "))
	}
	if len(picked) == 0 {
		res.Skipped = unchangedReason(scopeList)
		return res, nil
	}
	return r.commit(ctx, picked, scopeList, message, res)
}

func unchangedReason(scope []string) string {
	if len(scope) <= 3 {
		return "no in-scope changes (unchanged: " + strings.Join(scope, ", ") + ")"
	}
	return fmt.Sprintf("no in-scope changes (%d in-scope files unchanged)", len(scope))
}

// commit stages and commits the picked changes, restoring the index on any
// path that ends without a commit.
func (r *Repo) commit(ctx context.Context, picked []Change, scope []string, message string, res SnapshotResult) (SnapshotResult, error) {
	var add, candidates []string
	seenAdd, seenCand := make(map[string]bool), make(map[string]bool)
	for _, c := range picked {
		// A path already deleted from the index has nothing left to add, and
		// git add would fail on it as matching no file.
		if c.Status[0] != 'D' && reservedReason(c.Path) == "" && !seenAdd[c.Path] {
			seenAdd[c.Path] = true
			add = append(add, c.Path)
		}
		// Both sides of a rename go in, so the commit records a move rather
		// than a copy while the deletion stays behind in the index.
		for _, p := range []string{c.Path, c.From} {
			if p != "" && reservedReason(p) == "" && !seenCand[p] {
				seenCand[p] = true
				candidates = append(candidates, p)
			}
		}
	}

	indexPath, hooksDir, err := r.gitPaths(ctx)
	if err != nil {
		return res, fmt.Errorf("gitrepo: snapshot: %w", err)
	}
	saved, err := saveIndex(indexPath)
	if err != nil {
		return res, fmt.Errorf("gitrepo: snapshot: save index: %w", err)
	}
	restore := func(cause error) error {
		if rerr := saved.restore(); rerr != nil {
			return errors.Join(cause, fmt.Errorf("gitrepo: snapshot: restore index: %w", rerr))
		}
		return cause
	}

	if len(add) > 0 {
		if _, err := r.git(ctx, append([]string{"--literal-pathspecs", "add", "--"}, add...)...); err != nil {
			return res, restore(fmt.Errorf("gitrepo: snapshot: %w", err))
		}
	}
	// What differs from HEAD once staged is exactly what the commit will
	// hold. Asking first keeps "nothing to commit" (a file edited back to
	// its committed content) from reaching git commit, whose exit status 1
	// for it would look like a rejecting hook.
	out, err := r.git(ctx, append([]string{"--literal-pathspecs", "diff", "--cached", "--name-only", "-z", "--no-renames", "--"}, candidates...)...)
	if err != nil {
		return res, restore(fmt.Errorf("gitrepo: snapshot: %w", err))
	}
	files := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	if out == "" {
		files = nil
	}
	if len(files) == 0 {
		if err := restore(nil); err != nil {
			return res, err
		}
		res.Skipped = unchangedReason(scope)
		return res, nil
	}
	sort.Strings(files)

	before, err := r.Head(ctx)
	if err != nil {
		return res, restore(fmt.Errorf("gitrepo: snapshot: %w", err))
	}
	// --only commits these paths from the work tree and leaves whatever else
	// the user staged staged; --literal-pathspecs keeps a file named "*.go"
	// from matching every Go file.
	// The message goes on stdin (-F -): as an argument, one over the OS's
	// 128 KB limit for a single argument made git fail to start at all.
	args := []string{"-c", "core.quotepath=off", "--literal-pathspecs", "commit", "--only", "-F", "-"}
	if r.NoHooks {
		args = append(args, "--no-verify")
	}
	args = append(append(args, "--"), files...)
	stdout, err := runInput(ctx, r.Dir, nil, strings.NewReader(message), r.withConfig(args)...)
	if err != nil {
		var gerr *GitError
		if ctx.Err() == nil && errors.As(err, &gerr) && gerr.ExitCode() == 1 {
			if hooks := installedHooks(hooksDir); len(hooks) > 0 {
				if err := restore(nil); err != nil {
					return res, err
				}
				output := gerr.Stderr
				if output == "" {
					output = strings.TrimSpace(stdout)
				}
				res.Skipped = hookReason(hooks, output)
				res.HookOutput = truncate(output, 8000)
				return res, nil
			}
		}
		// A git stopped between moving HEAD and writing the index has made
		// the commit; putting the old index back would show it reverted.
		if after, herr := r.headAfter(ctx); herr == nil && after != before {
			res.Commit, res.Files = after, files
			return res, fmt.Errorf("gitrepo: snapshot: commit %s was made but git failed: %w", after, err)
		}
		return res, restore(fmt.Errorf("gitrepo: snapshot: %w", err))
	}
	sha, err := r.headAfter(ctx)
	if err != nil {
		return res, fmt.Errorf("gitrepo: snapshot: committed but cannot read HEAD: %w", err)
	}
	res.Commit, res.Files = sha, files
	return res, nil
}

// headAfter reads HEAD even when ctx has just been cancelled, because a
// commit that happened must be reported.
func (r *Repo) headAfter(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	sha, err := r.readHead(ctx)
	if err == nil && r.head != nil && sha != r.head.sha {
		r.head.sha = sha
		r.cache.moved(r.Dir, sha)
	}
	return sha, err
}

// gitPaths asks git where the index and the hooks are, which honours
// GIT_INDEX_FILE, linked work trees and core.hooksPath.
func (r *Repo) gitPaths(ctx context.Context) (index, hooks string, err error) {
	out, err := r.git(ctx, "rev-parse", "--git-path", "index", "--git-path", "hooks")
	if err != nil {
		return "", "", err
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		return "", "", fmt.Errorf("unexpected rev-parse --git-path output %q", out)
	}
	abs := func(p string) string {
		p = filepath.FromSlash(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(r.Dir, p)
		}
		return p
	}
	return abs(lines[0]), abs(lines[1]), nil
}

func installedHooks(dir string) []string {
	var found []string
	for _, h := range hooksThatRejectCommits {
		fi, err := os.Stat(filepath.Join(dir, h))
		// git skips a hook that is not executable (with only a hint).
		if err == nil && fi.Mode().IsRegular() && (fi.Mode().Perm()&0o111 != 0 || runtime.GOOS == "windows") {
			found = append(found, h)
		}
	}
	return found
}

// hookReason names the hook and quotes the first lines it printed. git does
// not say which hook rejected the commit, so with several installed all are
// named.
func hookReason(hooks []string, output string) string {
	var lines []string
	for _, l := range strings.Split(output, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
			if len(lines) == 2 {
				break
			}
		}
	}
	name := strings.Join(hooks, " or ")
	if len(lines) == 0 {
		return name + " hook failed (no output)"
	}
	return truncate(name+" hook failed: "+strings.Join(lines, " / "), 300)
}

// indexCopy is the index file as it was before Snapshot touched it.
type indexCopy struct {
	path    string
	existed bool
	data    []byte
	mode    fs.FileMode
	mtime   time.Time
}

func saveIndex(path string) (*indexCopy, error) {
	c := &indexCopy{path: path}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	if c.data, err = projectfs.ReadOwnFile("", path, projectfs.MaxIndexSize); err != nil {
		return nil, err
	}
	c.existed, c.mode, c.mtime = true, fi.Mode().Perm(), fi.ModTime()
	return c, nil
}

// restore puts the saved index back through index.lock, as git itself
// writes it, so a concurrent git either waits for us or fails cleanly.
func (c *indexCopy) restore() error {
	cur, err := projectfs.ReadOwnFile("", c.path, projectfs.MaxIndexSize)
	switch {
	case c.existed && err == nil && bytes.Equal(cur, c.data):
		return nil
	case !c.existed && errors.Is(err, fs.ErrNotExist):
		return nil
	}
	lock := c.path + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	if !c.existed {
		f.Close()
		err := os.Remove(c.path)
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		return errors.Join(err, os.Remove(lock))
	}
	_, err = f.Write(c.data)
	if err == nil {
		err = f.Chmod(c.mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(lock, c.path)
	}
	if err != nil {
		os.Remove(lock)
		return err
	}
	// git trusts the cached stat data of entries older than the index file;
	// a fresh mtime would let an edit made in the same second as the
	// original index write pass for unchanged.
	if err := os.Chtimes(c.path, time.Time{}, c.mtime); err != nil {
		return err
	}
	return nil
}

// scoped is one usable scope entry.
type scoped struct {
	given string
	rel   string // relative to the top level, forward slashes
	dir   bool
}

func (r *Repo) resolveScope(paths []string) ([]scoped, []Refusal) {
	realTop, err := filepath.EvalSymlinks(r.Dir)
	if err != nil {
		realTop = r.Dir
	}
	var scope []scoped
	var refused []Refusal
	for _, p := range paths {
		s, reason := resolvePath(r.Dir, realTop, p)
		if reason != "" {
			refused = append(refused, Refusal{Path: p, Reason: reason})
			continue
		}
		scope = append(scope, s)
	}
	return scope, refused
}

// ScopeRefusal says why Snapshot would refuse path as a scope entry of a
// repository whose top level is top ("" when it would accept it), so that
// what ccc shows as the session's files matches what it would commit.
func ScopeRefusal(top, path string) string {
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		realTop = top
	}
	_, reason := resolvePath(top, realTop, path)
	return reason
}

// resolvePath maps one scope entry to a path relative to the top level, or
// says why it must not be staged.
func resolvePath(top, realTop, p string) (scoped, string) {
	switch {
	case strings.TrimSpace(p) == "":
		return scoped{}, "empty path"
	case strings.HasPrefix(p, "-"):
		return scoped{}, "starts with '-'"
	case strings.ContainsRune(p, 0):
		return scoped{}, "contains a NUL byte"
	}
	native := filepath.FromSlash(p)
	var rel string
	var ok bool
	if filepath.IsAbs(native) {
		rel, ok = relToTop(top, native)
	} else {
		rel, ok = within(top, filepath.Join(top, native))
	}
	if !ok {
		return scoped{}, "outside the repository"
	}
	if rel == "." {
		return scoped{}, "is the repository top level"
	}
	slash := filepath.ToSlash(rel)
	if reason := reservedReason(slash); reason != "" {
		return scoped{}, reason
	}

	// Lexically inside is not enough: a symlinked component can lead out.
	comps := strings.Split(rel, string(filepath.Separator))
	cur, dir := top, false
	for i, c := range comps {
		cur = filepath.Join(cur, c)
		fi, err := os.Lstat(cur)
		if err != nil {
			break // a deleted or never-created path has nothing to follow
		}
		last := i == len(comps)-1
		if fi.Mode()&fs.ModeSymlink == 0 {
			dir = last && fi.IsDir()
			continue
		}
		through := strings.Join(comps[:i+1], "/")
		inside := pointsInside(cur, top, realTop)
		switch {
		case !inside && last:
			return scoped{}, "is a symlink to outside the repository"
		case !inside:
			return scoped{}, fmt.Sprintf("goes through symlink %s to outside the repository", through)
		case !last:
			return scoped{}, fmt.Sprintf("goes through symlinked directory %s (git cannot stage beyond a symlink)", through)
		}
	}
	return scoped{given: p, rel: slash, dir: dir}, ""
}

// reservedReason refuses git's and ccc's own files. The names are matched
// in every directory because a ccc project can sit below the git top level.
func reservedReason(rel string) string {
	comps := strings.Split(rel, "/")
	for _, c := range comps {
		switch {
		case strings.EqualFold(c, ".git"):
			return "inside .git"
		case c == ".ccc":
			return "under .ccc/ (ccc's own files)"
		}
	}
	switch comps[len(comps)-1] {
	case ".ccc-state.json":
		return "ccc's state file"
	case ".ccc-progress.md":
		return "ccc's progress file"
	}
	return ""
}

// relToTop makes an absolute path relative to the top level. The path may
// reach the top level by another route than git reported (a symlinked /tmp,
// a bind mount), so an ancestor that is the same directory counts too.
func relToTop(top, abs string) (string, bool) {
	abs = filepath.Clean(abs)
	if rel, ok := within(top, abs); ok {
		return rel, true
	}
	topInfo, err := os.Stat(top)
	if err != nil {
		return "", false
	}
	for anc := abs; ; anc = filepath.Dir(anc) {
		if fi, err := os.Stat(anc); err == nil && os.SameFile(fi, topInfo) {
			rel, err := filepath.Rel(anc, abs)
			return rel, err == nil
		}
		if filepath.Dir(anc) == anc {
			return "", false
		}
	}
}

func within(top, p string) (string, bool) {
	rel, err := filepath.Rel(top, p)
	if err != nil {
		return "", false
	}
	return rel, rel == "." || filepath.IsLocal(rel)
}

// pointsInside reports whether a symlink resolves inside the top level. A
// dangling link is judged by its text, since its target may appear later.
func pointsInside(link, top, realTop string) bool {
	target, err := filepath.EvalSymlinks(link)
	if err != nil {
		t, err := os.Readlink(link)
		if err != nil {
			return false
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(link), t)
		}
		target = filepath.Clean(t)
	}
	_, inReal := within(realTop, target)
	_, inTop := within(top, target)
	return inReal || inTop
}
