package gitrepo

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
)

func TestOpen(t *testing.T) {
	ctx := context.Background()
	repo := seededRepo(t)
	plain, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)

	tests := []struct {
		name       string
		dir        string
		wantDir    string
		wantNoRepo bool
		wantErr    bool
	}{
		{name: "top level", dir: repo, wantDir: repo},
		{name: "subdirectory", dir: filepath.Join(repo, "dir"), wantDir: repo},
		{name: "missing .git", dir: plain, wantNoRepo: true},
		{name: "inside .git", dir: filepath.Join(repo, ".git"), wantNoRepo: true},
		{name: "missing directory", dir: filepath.Join(plain, "nope"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Open(ctx, tt.dir)
			switch {
			case tt.wantNoRepo:
				require.ErrorIs(t, err, ErrNotRepo)
			case tt.wantErr:
				require.Error(t, err)
				assert.NotErrorIs(t, err, ErrNotRepo)
			default:
				require.NoError(t, err)
				assert.Equal(t, tt.wantDir, r.Dir)
			}
		})
	}
}

func TestBranchAndHead(t *testing.T) {
	ctx := context.Background()

	t.Run("unborn branch", func(t *testing.T) {
		r := &Repo{Dir: newRepo(t)}
		branch, err := r.Branch(ctx)
		require.NoError(t, err)
		assert.Equal(t, "main", branch)
		sha, err := r.Head(ctx)
		require.NoError(t, err)
		assert.Empty(t, sha)
	})

	t.Run("on a branch", func(t *testing.T) {
		dir := seededRepo(t)
		r := &Repo{Dir: dir}
		branch, err := r.Branch(ctx)
		require.NoError(t, err)
		assert.Equal(t, "main", branch)
		sha, err := r.Head(ctx)
		require.NoError(t, err)
		assert.Equal(t, strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")), sha)
		assert.Len(t, sha, 40)
	})

	t.Run("detached HEAD", func(t *testing.T) {
		dir := seededRepo(t)
		git(t, dir, "checkout", "-q", "--detach")
		r := &Repo{Dir: dir}
		branch, err := r.Branch(ctx)
		require.NoError(t, err)
		assert.Empty(t, branch)
		sha, err := r.Head(ctx)
		require.NoError(t, err)
		assert.Len(t, sha, 40)
	})
}

func TestCommitsBetween(t *testing.T) {
	ctx := context.Background()
	dir := seededRepo(t)
	first := head(t, dir)
	for _, msg := range []string{"two", "three"} {
		git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	}
	r := &Repo{Dir: dir}

	tests := []struct {
		name     string
		from, to string
		want     int
		wantErr  error
	}{
		{name: "to HEAD", from: first, to: "HEAD", want: 2},
		{name: "empty to means HEAD", from: first, want: 2},
		{name: "no new commits", from: "HEAD", to: "HEAD", want: 0},
		{name: "backwards", from: "HEAD", to: first, want: 0},
		{name: "unknown from", from: strings.Repeat("1", 40), to: "HEAD", wantErr: ErrUnknownRevision},
		{name: "unknown to", from: first, to: "nope", wantErr: ErrUnknownRevision},
		{name: "option-like from", from: "--all", to: "HEAD", wantErr: ErrUnknownRevision},
		{name: "empty from", from: "", to: "HEAD", wantErr: ErrUnknownRevision},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := r.CommitsBetween(ctx, tt.from, tt.to)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, n)
		})
	}
}

func TestGitError(t *testing.T) {
	exit := exitError(t)
	tests := []struct {
		name        string
		err         *GitError
		wantMessage string
		wantError   string
	}{
		{
			name: "fatal line picked out of git's advice",
			err: &GitError{
				Args:   []string{"-c", "core.quotepath=off", "--literal-pathspecs", "commit", "--only", "-m", "msg"},
				Stderr: "Author identity unknown\n\n*** Please tell me who you are.\n\nRun\n\n  git config --global user.email \"you@example.com\"\n\nfatal: no email was given and auto-detection is disabled",
				Err:    exit,
			},
			wantMessage: "fatal: no email was given and auto-detection is disabled",
			wantError:   "git commit: fatal: no email was given and auto-detection is disabled (exit status 1)",
		},
		{
			name:        "plain output joined",
			err:         &GitError{Args: []string{"status"}, Stderr: "first\n\nsecond", Err: exit},
			wantMessage: "first; second",
			wantError:   "git status: first; second (exit status 1)",
		},
		{
			name:      "no output",
			err:       &GitError{Args: []string{"add", "--", "x"}, Err: context.Canceled},
			wantError: "git add: context canceled",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.wantMessage, tt.err.Message())
			assert.Equal(t, tt.wantError, tt.err.Error())
		})
	}
	assert.Equal(t, 1, (&GitError{Err: exit}).ExitCode())
	assert.Equal(t, -1, (&GitError{Err: context.Canceled}).ExitCode())
	assert.ErrorIs(t, error(&GitError{Err: context.Canceled}), context.Canceled)
}

// exitError is a real *exec.ExitError with status 1.
func exitError(t *testing.T) error {
	t.Helper()
	testutil.IsolateGit(t)
	cmd := exec.Command("git", "config", "--get", "ccc.does-not-exist")
	cmd.Dir = t.TempDir()
	err := cmd.Run()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "want an exit error, got %v", err)
	return err
}
