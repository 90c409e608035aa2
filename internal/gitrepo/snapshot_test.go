package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const msg = "wip(CIA-1): checkpoint"

// committed is what HEAD changed, one "X\tpath" line per file, renames
// split so the expectation does not depend on rename detection.
func committed(t *testing.T, dir string) string {
	t.Helper()
	return git(t, dir, "-c", "core.quotepath=off", "show", "--no-renames", "--name-status", "--format=", "HEAD")
}

func TestSnapshot(t *testing.T) {
	tests := []struct {
		name   string
		unborn bool
		setup  func(t *testing.T, dir string)
		paths  func(dir string) []string
		// skips
		wantSkipped string
		// commits
		wantFiles     []string
		wantCommitted string
		wantStatus    string
		check         func(t *testing.T, dir string)

		wantRefused []Refusal
	}{
		{
			name:        "clean tree",
			paths:       rel("a.txt"),
			wantSkipped: "working tree clean",
		},
		{
			name:        "no activeTaskFiles",
			setup:       func(t *testing.T, dir string) { write(t, dir, "a.txt", "edit\n") },
			paths:       rel(),
			wantSkipped: "no activeTaskFiles in .ccc-state.json",
		},
		{
			name:        "nothing in scope changed",
			setup:       func(t *testing.T, dir string) { write(t, dir, "b.txt", "edit\n") },
			paths:       rel("a.txt", "dir/with space.txt", "never/existed.go"),
			wantSkipped: "no in-scope changes (unchanged: a.txt, dir/with space.txt, never/existed.go)",
		},
		{
			name:        "many unchanged in-scope files are counted",
			setup:       func(t *testing.T, dir string) { write(t, dir, "b.txt", "edit\n") },
			paths:       rel("a.txt", "c.txt", "x", "y"),
			wantSkipped: "no in-scope changes (4 in-scope files unchanged)",
		},
		{
			name: "every entry refused",
			setup: func(t *testing.T, dir string) {
				write(t, dir, "a.txt", "edit\n")
			},
			paths:       rel("../a.txt", ".ccc-state.json"),
			wantSkipped: "all 2 activeTaskFiles refused",
			wantRefused: []Refusal{
				{Path: "../a.txt", Reason: "outside the repository"},
				{Path: ".ccc-state.json", Reason: "ccc's state file"},
			},
		},
		{
			name: "file edited back to its committed content",
			setup: func(t *testing.T, dir string) {
				write(t, dir, "a.txt", "staged edit\n")
				git(t, dir, "add", "a.txt")
				write(t, dir, "a.txt", "base a.txt\n")
			},
			paths:       rel("a.txt"),
			wantSkipped: "no in-scope changes (unchanged: a.txt)",
		},
		{
			name: "only the in-scope file, others untouched",
			setup: func(t *testing.T, dir string) {
				write(t, dir, "a.txt", "in scope\n")
				write(t, dir, "b.txt", "unstaged, out of scope\n")
				write(t, dir, "c.txt", "staged, out of scope\n")
				git(t, dir, "add", "c.txt")
			},
			paths:         rel("a.txt"),
			wantFiles:     []string{"a.txt"},
			wantCommitted: "M\ta.txt\n",
			wantStatus:    " M b.txt\nM  c.txt\n",
			check: func(t *testing.T, dir string) {
				assert.Equal(t, "staged, out of scope\n", git(t, dir, "show", ":c.txt"), "c.txt's staged content")
				assert.Equal(t, "base b.txt\n", git(t, dir, "show", ":b.txt"), "b.txt stays unstaged")
				assert.Equal(t, "in scope\n", git(t, dir, "show", "HEAD:a.txt"))
			},
		},
		{
			name: "spaces and unicode",
			setup: func(t *testing.T, dir string) {
				write(t, dir, "dir/with space.txt", "edit\n")
				write(t, dir, "ünï 日本.txt", "edit\n")
			},
			paths:         rel("dir/with space.txt", "ünï 日本.txt"),
			wantFiles:     []string{"dir/with space.txt", "ünï 日本.txt"},
			wantCommitted: "M\tdir/with space.txt\nM\tünï 日本.txt\n",
			wantStatus:    "",
		},
		{
			name: "untracked in-scope files are new work",
			setup: func(t *testing.T, dir string) {
				write(t, dir, "new file.txt", "new\n")
				write(t, dir, "nested/deep/new.go", "package deep\n")
				write(t, dir, "other.txt", "not in scope\n")
			},
			paths:         rel("new file.txt", "nested/deep/new.go"),
			wantFiles:     []string{"nested/deep/new.go", "new file.txt"},
			wantCommitted: "A\tnested/deep/new.go\nA\tnew file.txt\n",
			wantStatus:    "?? other.txt\n",
		},
		{
			name:          "deleted in the work tree",
			setup:         func(t *testing.T, dir string) { require.NoError(t, os.Remove(filepath.Join(dir, "b.txt"))) },
			paths:         rel("b.txt"),
			wantFiles:     []string{"b.txt"},
			wantCommitted: "D\tb.txt\n",
			wantStatus:    "",
		},
		{
			name: "deletion already staged",
			setup: func(t *testing.T, dir string) {
				git(t, dir, "rm", "-q", "c.txt")
				write(t, dir, "a.txt", "out of scope\n")
			},
			paths:         rel("c.txt"),
			wantFiles:     []string{"c.txt"},
			wantCommitted: "D\tc.txt\n",
			wantStatus:    " M a.txt\n",
		},
		{
			name:          "staged rename commits both sides",
			setup:         func(t *testing.T, dir string) { git(t, dir, "mv", "a.txt", "moved.txt") },
			paths:         rel("moved.txt"),
			wantFiles:     []string{"a.txt", "moved.txt"},
			wantCommitted: "D\ta.txt\nA\tmoved.txt\n",
			wantStatus:    "",
		},
		{
			name:  "absolute path inside the repository",
			setup: func(t *testing.T, dir string) { write(t, dir, "b.txt", "edit\n") },
			paths: func(dir string) []string {
				return []string{filepath.Join(dir, "b.txt"), filepath.Join(dir, "dir", "..", "b.txt")}
			},
			wantFiles:     []string{"b.txt"},
			wantCommitted: "M\tb.txt\n",
			wantStatus:    "",
		},
		{
			name: "glob characters are literal",
			setup: func(t *testing.T, dir string) {
				write(t, dir, "[ab].txt", "literal\n")
				write(t, dir, "a.txt", "would match the glob\n")
			},
			paths:         rel("[ab].txt"),
			wantFiles:     []string{"[ab].txt"},
			wantCommitted: "A\t[ab].txt\n",
			wantStatus:    " M a.txt\n",
		},
		{
			name: "unsafe paths refused, the rest committed",
			setup: func(t *testing.T, dir string) {
				outside := t.TempDir()
				write(t, outside, "secret.txt", "secret\n")
				require.NoError(t, os.Symlink(outside, filepath.Join(dir, "out")))
				require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt")))
				write(t, dir, "a.txt", "edit\n")
				write(t, dir, ".ccc/lock", "")
				write(t, dir, ".ccc-state.json", "{}\n")
				write(t, dir, "sub/.ccc-progress.md", "# Session Progress\n")
				write(t, dir, "somedir/f.txt", "x\n")
			},
			paths: rel("../x", "/etc/passwd", "out/secret.txt", "link.txt", "-rf", ".ccc/lock", ".ccc-state.json",
				"sub/.ccc-progress.md", "", ".git/config", ".", "somedir", "a.txt", "dir/../a.txt"),
			wantRefused: []Refusal{
				{Path: "../x", Reason: "outside the repository"},
				{Path: "/etc/passwd", Reason: "outside the repository"},
				{Path: "out/secret.txt", Reason: "goes through symlink out to outside the repository"},
				{Path: "link.txt", Reason: "is a symlink to outside the repository"},
				{Path: "-rf", Reason: "starts with '-'"},
				{Path: ".ccc/lock", Reason: "under .ccc/ (ccc's own files)"},
				{Path: ".ccc-state.json", Reason: "ccc's state file"},
				{Path: "sub/.ccc-progress.md", Reason: "ccc's progress file"},
				{Path: "", Reason: "empty path"},
				{Path: ".git/config", Reason: "inside .git"},
				{Path: ".", Reason: "is the repository top level"},
				{Path: "somedir", Reason: "is a directory (list its files instead)"},
			},
			wantFiles:     []string{"a.txt"},
			wantCommitted: "M\ta.txt\n",
			wantStatus:    "?? .ccc-state.json\n?? .ccc/lock\n?? link.txt\n?? out\n?? somedir/f.txt\n?? sub/.ccc-progress.md\n",
		},
		{
			name: "symlinked directory inside the repository",
			setup: func(t *testing.T, dir string) {
				write(t, dir, "real/f.txt", "x\n")
				require.NoError(t, os.Symlink("real", filepath.Join(dir, "alias")))
			},
			paths: rel("alias/f.txt", "real/f.txt"),
			wantRefused: []Refusal{
				{Path: "alias/f.txt", Reason: "goes through symlinked directory alias (git cannot stage beyond a symlink)"},
			},
			wantFiles:     []string{"real/f.txt"},
			wantCommitted: "A\treal/f.txt\n",
			wantStatus:    "?? alias\n",
		},
		{
			name: "symlink to a file inside the repository is committed as a link",
			setup: func(t *testing.T, dir string) {
				require.NoError(t, os.Symlink("a.txt", filepath.Join(dir, "to-a")))
			},
			paths:         rel("to-a"),
			wantFiles:     []string{"to-a"},
			wantCommitted: "A\tto-a\n",
			wantStatus:    "",
		},
		{
			name:   "first commit on an unborn branch",
			unborn: true,
			setup: func(t *testing.T, dir string) {
				write(t, dir, "a.txt", "first\n")
				write(t, dir, "b.txt", "staged, out of scope\n")
				write(t, dir, "c.txt", "untracked, out of scope\n")
				git(t, dir, "add", "b.txt")
			},
			paths:         rel("a.txt"),
			wantFiles:     []string{"a.txt"},
			wantCommitted: "A\ta.txt\n",
			wantStatus:    "A  b.txt\n?? c.txt\n",
		},
		{
			name: "a passing hook runs and the commit is made",
			setup: func(t *testing.T, dir string) {
				writeHook(t, dir, ".git/hooks/pre-commit", "touch hook-ran\n")
				write(t, dir, "a.txt", "edit\n")
			},
			paths:         rel("a.txt"),
			wantFiles:     []string{"a.txt"},
			wantCommitted: "M\ta.txt\n",
			wantStatus:    "?? hook-ran\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dir string
			if tt.unborn {
				dir = newRepo(t)
			} else {
				dir = seededRepo(t)
			}
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			beforeHead, beforeStatus, beforeIndex := head(t, dir), status(t, dir), indexBytes(t, dir)

			res, err := (&Repo{Dir: dir}).Snapshot(context.Background(), tt.paths(dir), msg)
			require.NoError(t, err)
			assert.Equal(t, tt.wantRefused, res.Refused)

			if tt.wantSkipped != "" {
				assert.Equal(t, tt.wantSkipped, res.Skipped)
				assert.Empty(t, res.Commit)
				assert.Empty(t, res.Files)
				assert.Equal(t, beforeHead, head(t, dir), "HEAD moved")
				assert.Equal(t, beforeStatus, status(t, dir))
				assert.Equal(t, beforeIndex, indexBytes(t, dir), "index changed")
				return
			}
			assert.Empty(t, res.Skipped)
			assert.Equal(t, tt.wantFiles, res.Files)
			assert.Equal(t, head(t, dir), res.Commit)
			assert.Equal(t, tt.wantCommitted, committed(t, dir))
			assert.Equal(t, tt.wantStatus, status(t, dir))
			assert.Equal(t, msg, strings.TrimSpace(git(t, dir, "log", "-1", "--format=%B")))
			parents := strings.Fields(git(t, dir, "log", "-1", "--format=%P"))
			if beforeHead == "" {
				assert.Empty(t, parents)
			} else {
				assert.Equal(t, []string{beforeHead}, parents)
			}
			if tt.check != nil {
				tt.check(t, dir)
			}
		})
	}
}

func indexMtime(t *testing.T, dir string) time.Time {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, ".git", "index"))
	require.NoError(t, err)
	return fi.ModTime()
}

func rel(paths ...string) func(string) []string {
	return func(string) []string { return paths }
}

func TestSnapshotHookFailureIsASkip(t *testing.T) {
	const hook = "echo 'lint: trailing whitespace in a.txt' >&2\necho 'lint: 1 problem' >&2\necho 'details' >&2\nexit 1\n"
	tests := []struct {
		name        string
		setup       func(t *testing.T, dir string)
		wantSkipped string
	}{
		{
			name:        "pre-commit in .git/hooks",
			setup:       func(t *testing.T, dir string) { writeHook(t, dir, ".git/hooks/pre-commit", hook) },
			wantSkipped: "pre-commit hook failed: lint: trailing whitespace in a.txt / lint: 1 problem",
		},
		{
			name: "pre-commit in core.hooksPath",
			setup: func(t *testing.T, dir string) {
				writeHook(t, dir, "tools/hooks/pre-commit", hook)
				git(t, dir, "config", "core.hooksPath", "tools/hooks")
			},
			wantSkipped: "pre-commit hook failed: lint: trailing whitespace in a.txt / lint: 1 problem",
		},
		{
			name: "commit-msg hook",
			setup: func(t *testing.T, dir string) {
				writeHook(t, dir, ".git/hooks/commit-msg", "echo 'subject must mention an issue'\nexit 1\n")
			},
			wantSkipped: "commit-msg hook failed: subject must mention an issue",
		},
		{
			name: "silent hook",
			setup: func(t *testing.T, dir string) {
				writeHook(t, dir, ".git/hooks/pre-commit", "exit 1\n")
			},
			wantSkipped: "pre-commit hook failed (no output)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := seededRepo(t)
			tt.setup(t, dir)
			write(t, dir, "a.txt", "in scope\n")
			write(t, dir, "new.txt", "untracked, in scope\n")
			write(t, dir, "c.txt", "staged, out of scope\n")
			git(t, dir, "add", "c.txt")
			beforeHead, beforeStatus, beforeIndex := head(t, dir), status(t, dir), indexBytes(t, dir)
			beforeCached := git(t, dir, "diff", "--cached")
			beforeMtime := indexMtime(t, dir)

			res, err := (&Repo{Dir: dir}).Snapshot(context.Background(), []string{"a.txt", "new.txt"}, msg)
			require.NoError(t, err)
			assert.Equal(t, tt.wantSkipped, res.Skipped)
			assert.Empty(t, res.Commit)
			assert.Empty(t, res.Files)
			assert.Equal(t, beforeHead, head(t, dir))
			assert.Equal(t, beforeIndex, indexBytes(t, dir), "index not restored byte for byte")
			assert.Equal(t, beforeMtime, indexMtime(t, dir), "a newer index would vouch for racily-clean entries")
			assert.Equal(t, beforeCached, git(t, dir, "diff", "--cached"))
			assert.Equal(t, beforeStatus, status(t, dir))
		})
	}

	t.Run("full output kept for the log", func(t *testing.T) {
		dir := seededRepo(t)
		writeHook(t, dir, ".git/hooks/pre-commit", hook)
		write(t, dir, "a.txt", "in scope\n")
		res, err := (&Repo{Dir: dir}).Snapshot(context.Background(), []string{"a.txt"}, msg)
		require.NoError(t, err)
		assert.Equal(t, "lint: trailing whitespace in a.txt\nlint: 1 problem\ndetails", res.HookOutput)
	})
}

func TestSnapshotGitFailureRestoresIndex(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		// wantStderr is part of git's own message, which the error keeps.
		wantStderr string
	}{
		{
			name: "missing identity",
			setup: func(t *testing.T, dir string) {
				git(t, dir, "config", "--unset", "user.email")
				git(t, dir, "config", "user.useConfigOnly", "true")
				// A hook that passes must not turn the failure into a hook skip.
				writeHook(t, dir, ".git/hooks/pre-commit", "exit 0\n")
			},
			wantStderr: "fatal: no email was given and auto-detection is disabled",
		},
		{
			name: "locked index",
			setup: func(t *testing.T, dir string) {
				write(t, dir, ".git/index.lock", "")
			},
			wantStderr: "index.lock': File exists.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := seededRepo(t)
			write(t, dir, "a.txt", "in scope\n")
			write(t, dir, "new.txt", "untracked, in scope\n")
			write(t, dir, "c.txt", "staged, out of scope\n")
			git(t, dir, "add", "c.txt")
			tt.setup(t, dir)
			beforeHead, beforeStatus, beforeIndex := head(t, dir), status(t, dir), indexBytes(t, dir)

			res, err := (&Repo{Dir: dir}).Snapshot(context.Background(), []string{"a.txt", "new.txt"}, msg)
			require.Error(t, err)
			var gerr *GitError
			require.ErrorAs(t, err, &gerr)
			assert.Contains(t, gerr.Stderr, tt.wantStderr)
			assert.Contains(t, err.Error(), tt.wantStderr)
			assert.Empty(t, res.Skipped)
			assert.Empty(t, res.Commit)
			assert.Equal(t, beforeHead, head(t, dir))
			assert.Equal(t, beforeIndex, indexBytes(t, dir), "index not restored byte for byte")
			assert.Equal(t, beforeStatus, status(t, dir))
		})
	}
}

func TestSnapshotLockLeftAlone(t *testing.T) {
	dir := seededRepo(t)
	write(t, dir, "a.txt", "in scope\n")
	write(t, dir, ".git/index.lock", "someone else's")
	_, err := (&Repo{Dir: dir}).Snapshot(context.Background(), []string{"a.txt"}, msg)
	require.Error(t, err)
	got, err := os.ReadFile(filepath.Join(dir, ".git", "index.lock"))
	require.NoError(t, err, "another process's lock was removed")
	assert.Equal(t, "someone else's", string(got))
}

func TestSnapshotCancelledDuringCommit(t *testing.T) {
	dir := seededRepo(t)
	marker := filepath.Join(t.TempDir(), "hook-started")
	// The hook hands its stdio to /dev/null before waiting, so once git is
	// gone nothing holds git's output pipes open.
	writeHook(t, dir, ".git/hooks/pre-commit", "touch '"+marker+"'\nexec sleep 5 </dev/null >/dev/null 2>&1\n")
	write(t, dir, "a.txt", "in scope\n")
	write(t, dir, "new.txt", "untracked, in scope\n")
	beforeHead, beforeStatus, beforeIndex := head(t, dir), status(t, dir), indexBytes(t, dir)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if _, err := os.Stat(marker); err == nil {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	res, err := (&Repo{Dir: dir}).Snapshot(ctx, []string{"a.txt", "new.txt"}, msg)
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, res.Commit)
	assert.Empty(t, res.Skipped, "a cancelled commit is not a hook failure")
	assert.NoFileExists(t, filepath.Join(dir, ".git", "index.lock"), "git was killed without removing its lock")
	assert.Equal(t, beforeHead, head(t, dir))
	assert.Equal(t, beforeIndex, indexBytes(t, dir))
	assert.Equal(t, beforeStatus, status(t, dir))
}

func TestSnapshotRefusesConflicts(t *testing.T) {
	dir := seededRepo(t)
	git(t, dir, "checkout", "-q", "-b", "other")
	write(t, dir, "a.txt", "theirs\n")
	git(t, dir, "commit", "-q", "-am", "theirs")
	git(t, dir, "checkout", "-q", "main")
	write(t, dir, "a.txt", "ours\n")
	git(t, dir, "commit", "-q", "-am", "ours")
	cmd := gitCmd(dir, "merge", "-q", "other")
	require.Error(t, cmd.Run(), "the merge should conflict")
	beforeIndex := indexBytes(t, dir)

	_, err := (&Repo{Dir: dir}).Snapshot(context.Background(), []string{"a.txt"}, msg)
	require.ErrorContains(t, err, "unresolved merge conflicts: a.txt")
	assert.Equal(t, beforeIndex, indexBytes(t, dir))
	assert.Equal(t, "UU a.txt\n", status(t, dir))
}

func TestSnapshotEmptyMessage(t *testing.T) {
	dir := seededRepo(t)
	write(t, dir, "a.txt", "edit\n")
	_, err := (&Repo{Dir: dir}).Snapshot(context.Background(), []string{"a.txt"}, " \n")
	require.ErrorContains(t, err, "empty commit message")
	assert.Equal(t, " M a.txt\n", status(t, dir))
}

func TestResolvePathThroughAnotherRouteToTop(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	alias := filepath.Join(t.TempDir(), "alias")
	require.NoError(t, os.Symlink(top, alias))

	s, reason := resolvePath(top, top, filepath.Join(alias, "sub", "x.txt"))
	assert.Empty(t, reason)
	assert.Equal(t, "sub/x.txt", s.rel)

	_, reason = resolvePath(top, top, alias)
	assert.Equal(t, "is the repository top level", reason)

	_, reason = resolvePath(top, top, filepath.Join(filepath.Dir(alias), "x.txt"))
	assert.Equal(t, "outside the repository", reason)
}

func TestReservedReason(t *testing.T) {
	for path, want := range map[string]string{
		"a.go":                      "",
		".github/workflows/ci.yml":  "",
		".cccx":                     "",
		"docs/.ccc-progress.md.bak": "",
		".GIT/config":               "inside .git",
		"vendor/x/.git":             "inside .git",
		".ccc":                      "under .ccc/ (ccc's own files)",
		"pkg/.ccc/outbox/1.json":    "under .ccc/ (ccc's own files)",
		"pkg/.ccc-state.json":       "ccc's state file",
		".ccc-progress.md":          "ccc's progress file",
	} {
		assert.Equal(t, want, reservedReason(path), path)
	}
}

// A message of megabytes is committed whole: it goes to git on stdin, where
// as an argument (over the OS's 128 KB per argument) git never started.
func TestSnapshotHugeMessage(t *testing.T) {
	dir := seededRepo(t)
	write(t, dir, "a.txt", "changed\n")
	msg := "wip: a long task\n\n" + strings.Repeat("word ", 2<<20)
	res, err := (&Repo{Dir: dir}).Snapshot(context.Background(), []string{"a.txt"}, msg)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.txt"}, res.Files)
	assert.Equal(t, "wip: a long task", strings.TrimSpace(git(t, dir, "log", "-1", "--format=%s")))
	body := git(t, dir, "log", "-1", "--format=%b")
	assert.Equal(t, len(strings.TrimSpace(msg[len("wip: a long task\n\n"):])), len(strings.TrimSpace(body)))
}
