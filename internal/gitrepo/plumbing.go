package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// The plumbing below writes and reads ccc's own refs (the handoff branch)
// without touching the user's working tree, index, HEAD or stash, and
// without running any of the repository's programs: every command gets
// NoHooks' configuration, and the variables git exports to a hook
// (GIT_DIR, GIT_INDEX_FILE, …, `git rev-parse --local-env-vars`) are
// cleared, so a ccc started from inside a hook of another repository
// still works on its own.

// localEnvVars are the variables `git rev-parse --local-env-vars` names
// (git 2.39): what git itself clears before working in another repository.
var localEnvVars = []string{
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE",
	"GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX",
	"GIT_SHALLOW_FILE", "GIT_COMMON_DIR",
}

// cleanEnv is the process's environment without localEnvVars.
func cleanEnv() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, v := range localEnvVars {
			if name == v {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return append(out, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
}

// plumb runs git in dir with a clean environment and the repository's
// programs off, stdin from in (nil: none).
func plumb(ctx context.Context, dir string, in io.Reader, args ...string) (string, error) {
	args = append(append([]string(nil), noHooks...), args...)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Stdin = in
	cmd.Env = cleanEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Cancel = func() error {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = waitDelay
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return stdout.String(), &GitError{Args: args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	return stdout.String(), nil
}

// ErrRefMoved reports that a compare-and-swap update of a ref found it no
// longer where the writer started from: another writer moved it first.
var ErrRefMoved = errors.New("the ref moved meanwhile")

// FastImport runs `git fast-import --quiet` in dir on stream: one process
// that writes the blobs, trees and commits the stream holds and moves its
// refs. fast-import refuses to move a ref to a commit that does not
// contain the ref's current value (no --force), checked under the ref's
// lock, so a stream whose commit says `from <old tip>` is a
// compare-and-swap: when another writer moved the ref first, the error is
// ErrRefMoved and the ref keeps the other writer's commit.
func FastImport(ctx context.Context, dir string, stream []byte) error {
	_, err := plumb(ctx, dir, bytes.NewReader(stream), "fast-import", "--quiet")
	var gerr *GitError
	// "Not updating": the ref is no longer an ancestor of the new commit;
	// "cannot lock ref": another writer holds the ref's lock, or created
	// or moved it between fast-import's read and its update.
	if errors.As(err, &gerr) && (strings.Contains(gerr.Stderr, "Not updating") || strings.Contains(gerr.Stderr, "cannot lock ref")) {
		return fmt.Errorf("gitrepo: fast-import: %w (%s)", ErrRefMoved, gerr.Message())
	}
	if err != nil {
		return fmt.Errorf("gitrepo: fast-import: %w", err)
	}
	return nil
}

// maxPackedRefs bounds the packed-refs file ReadRef reads.
const maxPackedRefs = 64 << 20

// ReadRef is the commit a full ref name (refs/heads/…) points at in the
// repository whose common git directory is commonDir, read from the ref's
// file or packed-refs without running git; "" when the ref does not exist.
// A repository that keeps its refs in a reftable asks git.
func ReadRef(ctx context.Context, commonDir, ref string) (string, error) {
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
		return "", fmt.Errorf("gitrepo: read ref %q: not a full ref name", ref)
	}
	if _, err := os.Stat(filepath.Join(commonDir, "reftable")); err == nil {
		return resolveRef(ctx, commonDir, ref)
	}
	data, err := projectfs.ReadProjectFile(commonDir, filepath.Join(commonDir, filepath.FromSlash(ref)), 1<<10)
	if err == nil {
		sha := strings.TrimSpace(string(data))
		if strings.HasPrefix(sha, "ref: ") || !isSHA(sha) {
			return resolveRef(ctx, commonDir, ref) // a symbolic ref: git follows it
		}
		return sha, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("gitrepo: read ref %s: %w", ref, err)
	}
	packed, err := projectfs.ReadProjectFile(commonDir, filepath.Join(commonDir, "packed-refs"), maxPackedRefs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("gitrepo: read ref %s: %w", ref, err)
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if sha, name, ok := strings.Cut(line, " "); ok && name == ref && isSHA(sha) {
			return sha, nil
		}
	}
	return "", nil
}

// resolveRef asks git for ref's commit; "" when it does not exist.
func resolveRef(ctx context.Context, commonDir, ref string) (string, error) {
	out, err := plumb(ctx, commonDir, nil, "rev-parse", "-q", "--verify", ref+"^{commit}")
	var gerr *GitError
	if errors.As(err, &gerr) && gerr.ExitCode() == 1 {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("gitrepo: read ref %s: %w", ref, err)
	}
	return strings.TrimSpace(out), nil
}

func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// TreeEntry is one line of `git ls-tree -r -t`.
type TreeEntry struct {
	Mode, Type, SHA, Path string
}

// ListTree lists every blob and tree under rev (`git ls-tree -r -t -z`)
// in dir, paths limited to under (none: all).
func ListTree(ctx context.Context, dir, rev string, under ...string) ([]TreeEntry, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("gitrepo: ls-tree: bad revision %q", rev)
	}
	args := append([]string{"ls-tree", "-r", "-t", "-z", rev, "--"}, under...)
	out, err := plumb(ctx, dir, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("gitrepo: ls-tree: %w", err)
	}
	var entries []TreeEntry
	for _, rec := range strings.Split(out, "\x00") {
		head, path, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			return nil, fmt.Errorf("gitrepo: ls-tree: unexpected line %q", rec)
		}
		entries = append(entries, TreeEntry{Mode: f[0], Type: f[1], SHA: f[2], Path: path})
	}
	return entries, nil
}

// ReadBlobs reads the blobs named by shas in one `git cat-file --batch`,
// each up to limit bytes (a larger one is an error), keyed by SHA.
func ReadBlobs(ctx context.Context, dir string, shas []string, limit int64) (map[string][]byte, error) {
	out := make(map[string][]byte, len(shas))
	if len(shas) == 0 {
		return out, nil
	}
	var in bytes.Buffer
	for _, s := range shas {
		if !isSHA(s) {
			return nil, fmt.Errorf("gitrepo: cat-file: %q is not an object id", s)
		}
		in.WriteString(s + "\n")
	}
	raw, err := plumb(ctx, dir, &in, "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("gitrepo: cat-file: %w", err)
	}
	r := bufio.NewReader(strings.NewReader(raw))
	for range shas {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("gitrepo: cat-file: short output")
		}
		f := strings.Fields(header)
		if len(f) == 2 && f[1] == "missing" {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("gitrepo: cat-file: unexpected header %q", header)
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("gitrepo: cat-file: unexpected header %q", header)
		}
		body := make([]byte, size+1) // the content, then a newline
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, fmt.Errorf("gitrepo: cat-file: short output")
		}
		if size > limit {
			return nil, fmt.Errorf("gitrepo: cat-file: %s %s is %d bytes, over the limit of %d", f[1], f[0], size, limit)
		}
		out[f[0]] = body[:size]
	}
	return out, nil
}

// ErrRejected reports a push the remote refused because its ref is not an
// ancestor of what was pushed: another machine pushed first.
var ErrRejected = errors.New("rejected: the remote has commits this clone does not")

// Push pushes src to dst on remote (`git push --porcelain --no-verify`,
// never forced). A non-fast-forward refusal is ErrRejected.
func Push(ctx context.Context, dir, remote, src, dst string) error {
	if err := validRemote(remote); err != nil {
		return err
	}
	out, err := plumb(ctx, dir, nil, "push", "--porcelain", "--no-verify", remote, src+":"+dst)
	if err == nil {
		return nil
	}
	var gerr *GitError
	if errors.As(err, &gerr) {
		text := out + "\n" + gerr.Stderr
		if strings.Contains(text, "[rejected]") || strings.Contains(text, "non-fast-forward") ||
			strings.Contains(text, "fetch first") || strings.Contains(text, "cannot lock ref") {
			return fmt.Errorf("gitrepo: push to %s: %w", remote, ErrRejected)
		}
	}
	return fmt.Errorf("gitrepo: push to %s: %w", remote, err)
}

// ErrNoRemoteRef reports a fetch of a ref the remote does not have.
var ErrNoRemoteRef = errors.New("the remote has no such ref")

// Fetch fetches src from remote into dst, forced (`+src:dst`): dst is a
// ref that only mirrors the remote's. A ref the remote lacks is
// ErrNoRemoteRef.
func Fetch(ctx context.Context, dir, remote, src, dst string) error {
	if err := validRemote(remote); err != nil {
		return err
	}
	_, err := plumb(ctx, dir, nil, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, "+"+src+":"+dst)
	var gerr *GitError
	if errors.As(err, &gerr) && strings.Contains(gerr.Stderr, "couldn't find remote ref") {
		return fmt.Errorf("gitrepo: fetch from %s: %w", remote, ErrNoRemoteRef)
	}
	if err != nil {
		return fmt.Errorf("gitrepo: fetch from %s: %w", remote, err)
	}
	return nil
}

// validRemote refuses a remote name git would read as an option.
func validRemote(remote string) error {
	// A remote's name, not a URL: it also names the tracking ref.
	if remote == "" || strings.HasPrefix(remote, "-") || strings.ContainsAny(remote, "\x00\n\t :\\") || strings.Contains(remote, "..") {
		return fmt.Errorf("gitrepo: %q is not a remote's name (for a URL: git remote add NAME URL)", remote)
	}
	return nil
}

// HasCommit says whether the repository in dir holds commit sha.
func HasCommit(ctx context.Context, dir, sha string) (bool, error) {
	if !isSHA(sha) {
		return false, nil
	}
	_, err := plumb(ctx, dir, nil, "cat-file", "-e", sha+"^{commit}")
	var gerr *GitError
	if errors.As(err, &gerr) && gerr.ExitCode() > 0 {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("gitrepo: cat-file: %w", err)
	}
	return true, nil
}

// RemoteURL is remote's URL in dir's configuration, "" when there is no
// such remote.
func RemoteURL(ctx context.Context, dir, remote string) (string, error) {
	if err := validRemote(remote); err != nil {
		return "", err
	}
	out, err := plumb(ctx, dir, nil, "config", "--get", "remote."+remote+".url")
	var gerr *GitError
	if errors.As(err, &gerr) && gerr.ExitCode() == 1 {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("gitrepo: remote %s: %w", remote, err)
	}
	return strings.TrimSpace(out), nil
}

// ReadNamed reads the blobs named by names (`<rev>:<path>` or ids) in one
// `git cat-file --batch`, in order: nil for a name git does not find, an
// error for one over limit bytes.
func ReadNamed(ctx context.Context, dir string, names []string, limit int64) ([][]byte, error) {
	out := make([][]byte, len(names))
	if len(names) == 0 {
		return out, nil
	}
	var in bytes.Buffer
	for _, n := range names {
		if n == "" || strings.HasPrefix(n, "-") || strings.ContainsAny(n, "\n\x00") {
			return nil, fmt.Errorf("gitrepo: cat-file: bad object name %q", n)
		}
		in.WriteString(n + "\n")
	}
	raw, err := plumb(ctx, dir, &in, "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("gitrepo: cat-file: %w", err)
	}
	r := bufio.NewReader(strings.NewReader(raw))
	for i := range names {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("gitrepo: cat-file: short output")
		}
		f := strings.Fields(header)
		if len(f) >= 2 && (f[len(f)-1] == "missing" || f[len(f)-1] == "ambiguous") {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("gitrepo: cat-file: unexpected header %q", header)
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("gitrepo: cat-file: unexpected header %q", header)
		}
		body := make([]byte, size+1)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, fmt.Errorf("gitrepo: cat-file: short output")
		}
		if size > limit {
			return nil, fmt.Errorf("gitrepo: cat-file: %s is %d bytes, over the limit of %d", names[i], size, limit)
		}
		out[i] = body[:size]
	}
	return out, nil
}

// LogLine is one commit of Log.
type LogLine struct {
	Commit  string
	Time    time.Time
	Subject string
}

// Log lists the non-merge commits reachable from revs, newest first (`git
// log --no-merges`), at most max (0: all).
func Log(ctx context.Context, dir string, max int, revs ...string) ([]LogLine, error) {
	args := []string{"log", "--no-merges", "--format=%H%x1f%ct%x1f%s"}
	if max > 0 {
		args = append(args, "-n", strconv.Itoa(max))
	}
	for _, r := range revs {
		if r == "" || strings.HasPrefix(r, "-") {
			return nil, fmt.Errorf("gitrepo: log: bad revision %q", r)
		}
	}
	out, err := plumb(ctx, dir, nil, append(append(args, revs...), "--")...)
	if err != nil {
		return nil, fmt.Errorf("gitrepo: log: %w", err)
	}
	var lines []LogLine
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.SplitN(l, "\x1f", 3)
		if len(f) != 3 {
			continue
		}
		sec, _ := strconv.ParseInt(f[1], 10, 64)
		lines = append(lines, LogLine{Commit: f[0], Time: time.Unix(sec, 0).UTC(), Subject: f[2]})
	}
	return lines, nil
}

// RemoteRef is the commit ref points at on remote (`git ls-remote`), ""
// when the remote has no such ref.
func RemoteRef(ctx context.Context, dir, remote, ref string) (string, error) {
	if err := validRemote(remote); err != nil {
		return "", err
	}
	out, err := plumb(ctx, dir, nil, "ls-remote", "--", remote, ref)
	if err != nil {
		return "", fmt.Errorf("gitrepo: ls-remote %s: %w", remote, err)
	}
	for _, l := range strings.Split(out, "\n") {
		if sha, name, ok := strings.Cut(l, "\t"); ok && name == ref {
			return sha, nil
		}
	}
	return "", nil
}

// HooksDir is where git looks for the repository's hooks in dir (`git
// rev-parse --git-path hooks`: core.hooksPath when set), absolute.
func HooksDir(ctx context.Context, dir string) (string, error) {
	out, err := run(ctx, dir, nil, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", fmt.Errorf("gitrepo: hooks directory: %w", err)
	}
	p := strings.TrimSuffix(out, "\n")
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p, nil
}

// PushLease pushes src to dst on remote replacing whatever is there only
// if it is still expect ("" : the remote must not have dst yet): `git push
// --force-with-lease=<dst>:<expect>`, so a push that landed since the
// caller read expect is not overwritten. A refusal (the lease is stale,
// or the ref is locked) is ErrRejected.
func PushLease(ctx context.Context, dir, remote, src, dst, expect string) error {
	if err := validRemote(remote); err != nil {
		return err
	}
	if expect != "" && !isSHA(expect) {
		return fmt.Errorf("gitrepo: push to %s: bad lease %q", remote, expect)
	}
	out, err := plumb(ctx, dir, nil, "push", "--porcelain", "--no-verify", "--force-with-lease="+dst+":"+expect, remote, src+":"+dst)
	if err == nil {
		return nil
	}
	var gerr *GitError
	if errors.As(err, &gerr) {
		text := out + "\n" + gerr.Stderr
		if strings.Contains(text, "[rejected]") || strings.Contains(text, "stale info") ||
			strings.Contains(text, "cannot lock ref") || strings.Contains(text, "fetch first") {
			return fmt.Errorf("gitrepo: push to %s: %w", remote, ErrRejected)
		}
	}
	return fmt.Errorf("gitrepo: push to %s: %w", remote, err)
}

// Commit is one commit of Walk.
type Commit struct {
	SHA, Tree string
	Parents   []string
	Time      time.Time // the committer's date
	Message   string
}

// Walk lists every commit reachable from rev, newest first, with its
// parents and whole message: one `git log`.
func Walk(ctx context.Context, dir, rev string) ([]Commit, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("gitrepo: log: bad revision %q", rev)
	}
	out, err := plumb(ctx, dir, nil, "log", "-z", "--format=%H%x1f%T%x1f%P%x1f%ct%x1f%B", rev, "--")
	if err != nil {
		return nil, fmt.Errorf("gitrepo: log: %w", err)
	}
	var cs []Commit
	for _, rec := range strings.Split(out, "\x00") {
		f := strings.SplitN(strings.TrimPrefix(rec, "\n"), "\x1f", 5)
		if len(f) != 5 {
			continue
		}
		sec, _ := strconv.ParseInt(f[3], 10, 64)
		cs = append(cs, Commit{SHA: f[0], Tree: f[1], Parents: strings.Fields(f[2]), Time: time.Unix(sec, 0).UTC(), Message: f[4]})
	}
	return cs, nil
}

// SwapRef moves ref from old to new in one transaction that also deletes
// the refs in drop (`git update-ref --stdin`): when ref is no longer old,
// nothing changes and the error is ErrRefMoved.
func SwapRef(ctx context.Context, dir, ref, new, old string, drop ...string) error {
	if !isSHA(new) || (old != "" && !isSHA(old)) {
		return fmt.Errorf("gitrepo: update-ref: bad commit %q or %q", new, old)
	}
	if old == "" {
		old = strings.Repeat("0", len(new)) // "must not exist"
	}
	in := "update " + ref + " " + new + " " + old + "\n"
	for _, d := range drop {
		in += "delete " + d + "\n"
	}
	_, err := plumb(ctx, dir, strings.NewReader(in), "update-ref", "--stdin")
	var gerr *GitError
	if errors.As(err, &gerr) && (strings.Contains(gerr.Stderr, "but expected") || strings.Contains(gerr.Stderr, "cannot lock ref") ||
		strings.Contains(gerr.Stderr, "reference already exists") || strings.Contains(gerr.Stderr, "unable to resolve")) {
		return fmt.Errorf("gitrepo: update-ref: %w (%s)", ErrRefMoved, gerr.Message())
	}
	if err != nil {
		return fmt.Errorf("gitrepo: update-ref: %w", err)
	}
	return nil
}

// DeleteRef deletes ref (`git update-ref -d`); a missing ref is no error.
func DeleteRef(ctx context.Context, dir, ref string) error {
	if _, err := plumb(ctx, dir, nil, "update-ref", "-d", ref); err != nil {
		return fmt.Errorf("gitrepo: update-ref -d: %w", err)
	}
	return nil
}
