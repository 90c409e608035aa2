package records

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// SubDir is where the records live, under the main worktree's root.
const SubDir = ".ccc/checkpoints"

// Dir is the shared records directory: <main worktree root>/.ccc/checkpoints,
// found through the git common directory (gitrepo.Discover: what
// `git rev-parse --git-common-dir` prints) from root, so that every
// worktree of a repository shares it; outside git, root/.ccc/checkpoints.
// It does not create the directory.
func Dir(ctx context.Context, root string) (string, error) {
	// The same discovery as every other question about the repository, so
	// a checkpoint finds it once (without git in a plain work tree).
	found, err := gitrepo.Discover(ctx, root)
	if errors.Is(err, gitrepo.ErrNotRepo) || errors.Is(err, exec.ErrNotFound) {
		return confined(root, filepath.Join(root, filepath.FromSlash(SubDir)))
	}
	if err != nil {
		return "", fmt.Errorf("records: find the shared directory: %w", err)
	}
	common := found.CommonDir
	main := filepath.Dir(common)
	if filepath.Base(common) != ".git" {
		// A repository whose git directory lives elsewhere
		// (--separate-git-dir) or a bare one with linked worktrees: the
		// first worktree git lists is the main one, unless it is bare.
		main = common
		if wts, err := Worktrees(ctx, root); err == nil && len(wts) > 0 && !wts[0].Bare {
			main = wts[0].Path
		}
	}
	if projectfs.Inside(main, root) != nil && !listed(ctx, root) {
		// A .git/commondir (or gitdir file) naming another repository
		// must not make ccc write its records into that one.
		return "", fmt.Errorf("records: %s is not a worktree of the repository at %s (its git common directory points elsewhere); refusing to keep records there", root, main)
	}
	return confined(main, filepath.Join(main, filepath.FromSlash(SubDir)))
}

// confined returns dir when it resolves inside main: a .ccc or
// .ccc/checkpoints committed as a symlink out of the project is refused.
func confined(main, dir string) (string, error) {
	if err := projectfs.Inside(main, dir); err != nil {
		return "", fmt.Errorf("records: %w; refusing to keep records there", err)
	}
	return dir, nil
}

// listed reports whether root is in one of the worktrees git lists for its
// repository.
func listed(ctx context.Context, root string) bool {
	wts, err := Worktrees(ctx, root)
	if err != nil {
		return false
	}
	for _, wt := range wts {
		if projectfs.Inside(wt.Path, root) == nil {
			return true
		}
	}
	return false
}

// Root is the directory that holds dir's .ccc (the main worktree's root for a
// directory Dir returned): where the records' backups go.
func Root(dir string) string {
	return filepath.Dir(filepath.Dir(dir))
}

// Worktree is one working tree of a repository as git lists it.
type Worktree struct {
	Path   string `json:"path"`
	Head   string `json:"head"`   // "" on an unborn branch
	Branch string `json:"branch"` // short name; "" when detached
	Bare   bool   `json:"bare,omitempty"`
}

// Worktrees lists the working trees of root's repository, main first
// (`git worktree list --porcelain`, one command however many agents there
// are). Outside git it returns nil and no error.
func Worktrees(ctx context.Context, root string) ([]Worktree, error) {
	out, err := runGit(ctx, root, "worktree", "list", "--porcelain")
	if errors.Is(err, errNotRepo) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("records: list worktrees: %w", err)
	}
	var wts []Worktree
	for _, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
		var wt Worktree
		for _, line := range strings.Split(block, "\n") {
			key, val, _ := strings.Cut(line, " ")
			switch key {
			case "worktree":
				wt.Path = filepath.FromSlash(val)
			case "HEAD":
				if strings.Trim(val, "0") != "" {
					wt.Head = val
				}
			case "branch":
				wt.Branch = strings.TrimPrefix(val, "refs/heads/")
			case "bare":
				wt.Bare = true
			}
		}
		if wt.Path != "" {
			wts = append(wts, wt)
		}
	}
	return wts, nil
}

var errNotRepo = errors.New("not a git repository")

// runGit runs git in dir. Not being in a repository, or git not being
// installed, is errNotRepo: both mean "no shared repository", so the records
// stay beside the project.
func runGit(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if errors.Is(err, exec.ErrNotFound) {
		return "", errNotRepo
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "not a git repository") {
			return "", errNotRepo
		}
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return "", fmt.Errorf("git %s: %s (%w)", args[0], msg, err)
	}
	return stdout.String(), nil
}

// readFile reads a file of the records directory dir: a regular file of at
// most projectfs.MaxRecordSize, that resolves inside dir.
func readFile(dir, path string) ([]byte, error) {
	return projectfs.ReadProjectFile(dir, path, projectfs.MaxRecordSize)
}
