package gitrepo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// What walk found: the answer, no repository, or a shape only git can judge.
type walked int

const (
	askGit walked = iota
	walkedFound
	walkedNone
)

// Bounds of the files walk reads: a HEAD or a gitfile is one line, a
// repository's config a few hundred bytes.
const (
	maxLineFile = 4 << 10
	maxConfig   = 1 << 20
)

// walk answers what `git rev-parse --show-toplevel --git-common-dir HEAD
// --abbrev-ref HEAD` answers in abs without starting git (issue 26: the
// process was 2 of a quiet automated checkpoint's 15.7 ms), for the
// shapes it knows exactly: a work tree whose .git is a directory, or a
// `gitdir:` file of a linked worktree, owned by this user, whose config
// sets nothing discovery reads (core.worktree, core.bare, extensions,
// includes), with HEAD a branch (loose or packed, unambiguous as a short
// name) or a detached SHA. Everything else, and any environment variable
// that steers git's discovery, is askGit: git itself decides.
//
// start is abs's Stat, which discover has made already.
func walk(abs string, start fs.FileInfo, env discoveryEnv) (Found, walked) {
	if !env.plain {
		return Found{}, askGit
	}
	ceilings, ok := ceilingDirs(env.ceilings)
	if !ok {
		return Found{}, askGit
	}
	dir, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Found{}, askGit
	}
	dev, _, ok := owner(start)
	if !ok {
		return Found{}, askGit
	}
	// Only a ceiling above the start counts, as in git.
	var above []string
	for _, c := range ceilings {
		if c != dir && projectfs.Within(c, dir) {
			above = append(above, c)
		}
	}
	fi := start // dir's, followed: dir has no symlink left in it
	from := dir
	for {
		f, w, here := walkOne(dir, from, abs, fi)
		if here {
			return f, w
		}
		parent := filepath.Dir(dir)
		if parent == dir || underCeiling(parent, above) {
			return Found{}, walkedNone
		}
		fi, err = os.Stat(parent)
		if err != nil {
			return Found{}, askGit
		}
		if d, _, ok := owner(fi); !ok || d != dev {
			// git stops at a file system's edge, with its own message
			// and GIT_DISCOVERY_ACROSS_FILESYSTEM to lift it.
			return Found{}, askGit
		}
		dir = parent
	}
}

// walkOne looks at one directory of the walk: here false means nothing
// of git's is in it, go up.
//
// from is where the walk started (abs, resolved).
func walkOne(dir, from, abs string, dirInfo fs.FileInfo) (f Found, w walked, here bool) {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotGit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A directory that holds a HEAD may be a git directory itself (a
		// bare repository, inside .git): git's to judge.
		if _, err := os.Lstat(filepath.Join(dir, "HEAD")); !errors.Is(err, fs.ErrNotExist) {
			return Found{}, askGit, true
		}
		return Found{}, askGit, false
	case err != nil:
		return Found{}, askGit, true
	}
	gitDir := dotGit
	switch {
	case fi.IsDir():
	case fi.Mode().IsRegular():
		line, err := readLine(dotGit)
		target, ok := strings.CutPrefix(line, "gitdir: ")
		if err != nil || !ok || target == "" {
			return Found{}, askGit, true
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		gitDir = target
	default:
		return Found{}, askGit, true
	}
	f, ok := readGitDir(dir, gitDir, dirInfo, fi)
	if !ok {
		return Found{}, askGit, true
	}
	if gitDir == dotGit && f.CommonDir == dotGit {
		// git prints a .git directory relative to where it was asked
		// (".git", "../.git"), which finish joins to the directory as
		// asked, symlinks and all; records.Dir compares that with the root
		// as given, so the walk answers the same.
		if rel, err := filepath.Rel(from, dotGit); err == nil {
			f.CommonDir = filepath.Join(abs, rel)
		}
	}
	f.dir = abs
	return f, walkedFound, true
}

// readGitDir reads the repository of the work tree top whose git
// directory is gitDir (dotGit is top's .git entry): ok false when
// anything in it is a shape walk leaves to git.
func readGitDir(top, gitDir string, topInfo, dotGit fs.FileInfo) (Found, bool) {
	common := gitDir
	if line, err := readLine(filepath.Join(gitDir, "commondir")); err == nil {
		if !filepath.IsAbs(line) {
			line = filepath.Join(gitDir, line)
		}
		common = line
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Found{}, false
	}
	common, err := filepath.EvalSymlinks(common)
	if err != nil {
		return Found{}, false
	}
	// git refuses a repository another user owns unless safe.directory
	// names it: only git reads that setting.
	if !ownedByMe(topInfo) || !ownedByMe(dotGit) {
		return Found{}, false
	}
	if gitDir != filepath.Join(top, ".git") {
		fi, err := os.Lstat(gitDir)
		if err != nil || !ownedByMe(fi) {
			return Found{}, false
		}
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(common, sub)); err != nil || !fi.IsDir() {
			return Found{}, false
		}
	}
	if !plainConfig(filepath.Join(common, "config")) {
		return Found{}, false
	}
	if common != gitDir {
		// extensions.worktreeConfig's per-worktree file may set core.worktree.
		if _, err := os.Lstat(filepath.Join(gitDir, "config.worktree")); !errors.Is(err, fs.ErrNotExist) {
			return Found{}, false
		}
	}
	head, err := readLine(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return Found{}, false
	}
	f := Found{Top: top, CommonDir: common}
	if isSHA(head) {
		f.Head, f.headKnown = head, true
		return f, true
	}
	ref, ok := strings.CutPrefix(head, "ref: ")
	branch, isBranch := strings.CutPrefix(ref, "refs/heads/")
	if !ok || !isBranch || !plainRefName(branch) {
		return Found{}, false
	}
	refs := readRefs{gitDir: gitDir, common: common}
	sha, ok := refs.read(ref)
	if !ok {
		return Found{}, false
	}
	if sha == "" {
		// An unborn branch: Branch and Head ask git, as they did.
		return f, true
	}
	// --abbrev-ref prints heads/x, not x, when x also names another ref.
	for _, other := range []string{branch, "refs/" + branch, "refs/tags/" + branch, "refs/remotes/" + branch, "refs/remotes/" + branch + "/HEAD"} {
		if refs.exists(other) {
			return Found{}, false
		}
	}
	f.Branch, f.Head, f.headKnown = branch, sha, true
	return f, true
}

// readRefs reads refs the files backend's way: the loose file, then
// packed-refs (read once).
type readRefs struct {
	gitDir, common string
	packed         map[string]string
	packedRead     bool
	packedOK       bool
}

// read is ref's SHA, "" when it does not exist; ok false when git must
// say (a symbolic or unreadable ref).
func (r *readRefs) read(ref string) (sha string, ok bool) {
	line, err := readLine(filepath.Join(r.common, filepath.FromSlash(ref)))
	switch {
	case err == nil && isSHA(line):
		return line, true
	case err == nil:
		return "", false
	case !errors.Is(err, fs.ErrNotExist):
		return "", false
	}
	packed, ok := r.packedRefs()
	if !ok {
		return "", false
	}
	return packed[ref], true
}

// exists reports whether name is a ref git would find, or anything walk
// cannot rule out as one.
func (r *readRefs) exists(name string) bool {
	dirs := []string{r.common}
	if !strings.HasPrefix(name, "refs/") {
		dirs = append(dirs, r.gitDir) // a pseudo-ref lives in the worktree's own directory
	}
	for _, d := range dirs {
		fi, err := os.Lstat(filepath.Join(d, filepath.FromSlash(name)))
		if err == nil && !fi.IsDir() || err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscallNotDir) {
			return true
		}
	}
	packed, ok := r.packedRefs()
	if !ok {
		return true
	}
	_, found := packed[name]
	return found
}

func (r *readRefs) packedRefs() (map[string]string, bool) {
	if r.packedRead {
		return r.packed, r.packedOK
	}
	r.packedRead = true
	data, err := projectfs.ReadProjectFile("", filepath.Join(r.common, "packed-refs"), maxPackedRefs)
	if errors.Is(err, fs.ErrNotExist) {
		r.packedOK = true
		return nil, true
	}
	if err != nil {
		return nil, false
	}
	r.packed = map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		sha, name, ok := strings.Cut(strings.TrimSuffix(line, "\r"), " ")
		if !ok || !isSHA(sha) {
			return nil, false
		}
		r.packed[name] = sha
	}
	r.packedOK = true
	return r.packed, true
}

// readLine is a small file's first line; an error when it has another.
func readLine(path string) (string, error) {
	data, err := projectfs.ReadProjectFile("", path, maxLineFile)
	if err != nil {
		return "", err
	}
	line := strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
	if strings.ContainsAny(line, "\n\r") {
		return "", errors.New("more than one line")
	}
	return line, nil
}

// plainConfig reports whether a repository's config sets nothing that
// changes discovery: core.worktree, core.bare = true, any extension (a
// reftable, another hash), an include. It over-refuses by design (a remote
// named "worktree" asks git too): git's config syntax is wider than a
// scan, and a refusal only costs one process.
func plainConfig(path string) bool {
	data, err := projectfs.ReadProjectFile("", path, maxConfig)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(strings.ToLower(string(data)), "\n") {
		line = strings.Join(strings.Fields(line), "")
		switch {
		case strings.Contains(line, "worktree"), strings.Contains(line, "include"),
			strings.Contains(line, "extensions"), strings.Contains(line, "refstorage"),
			strings.Contains(line, "bare") && line != "bare=false":
			return false
		}
	}
	return true
}

// plainRefName is a branch name walk reads as a path: no component that
// git's ref rules would refuse or a path would read otherwise.
func plainRefName(name string) bool {
	if name == "" || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".lock") ||
		strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") {
		return false
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f || strings.ContainsRune(" ~^:?*[\\", c) {
			return false
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	return true
}

// ownedByMe is git's ownership check (safe.directory aside).
func ownedByMe(fi fs.FileInfo) bool {
	_, uid, ok := owner(fi)
	return ok && uid == euid()
}

// ceilingDirs is GIT_CEILING_DIRECTORIES as git reads it: absolute
// entries, symlinks resolved. ok false for an empty entry (git then leaves
// the later ones unresolved): git decides.
func ceilingDirs(v string) ([]string, bool) {
	if v == "" {
		return nil, true
	}
	var dirs []string
	for _, d := range filepath.SplitList(v) {
		if d == "" {
			return nil, false
		}
		if !filepath.IsAbs(d) {
			continue
		}
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		}
		dirs = append(dirs, filepath.Clean(d))
	}
	return dirs, true
}

// underCeiling: git does not go up into a ceiling directory or above one.
func underCeiling(dir string, ceilings []string) bool {
	for _, c := range ceilings {
		if projectfs.Within(dir, c) {
			return true
		}
	}
	return false
}
