package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
)

// TestDiscover: the one rev-parse answers the top level, the common
// directory, the branch and HEAD in every shape of repository ccc meets.
func TestDiscover(t *testing.T) {
	ctx := context.Background()
	repo := seededRepo(t)
	sha := head(t, repo)
	unborn := newRepo(t)
	detached := seededRepo(t)
	git(t, detached, "checkout", "-q", "--detach")
	wt := filepath.Join(filepath.Dir(repo), "linked-wt")
	git(t, repo, "worktree", "add", "-q", "-b", "feature", wt)
	bare := filepath.Join(filepath.Dir(repo), "bare.git")
	git(t, repo, "init", "-q", "--bare", bare)
	common := filepath.Join(repo, ".git")

	tests := []struct {
		name            string
		dir             string
		top, common     string
		branch, head    string
		wantHeadKnown   bool
		wantNotRepo     bool
		wantOpenNotRepo bool
	}{
		{name: "top level", dir: repo, top: repo, common: common, branch: "main", head: sha, wantHeadKnown: true},
		{name: "subdirectory", dir: filepath.Join(repo, "dir"), top: repo, common: common, branch: "main", head: sha, wantHeadKnown: true},
		{name: "linked worktree", dir: wt, top: wt, common: common, branch: "feature", head: sha, wantHeadKnown: true},
		{name: "detached HEAD", dir: detached, top: detached, common: filepath.Join(detached, ".git"), branch: "", head: head(t, detached), wantHeadKnown: true},
		{name: "no commits yet", dir: unborn, top: unborn, common: filepath.Join(unborn, ".git"), branch: "main", head: ""},
		{name: "inside .git", dir: common, common: common, wantOpenNotRepo: true},
		{name: "bare repository", dir: bare, common: bare, wantOpenNotRepo: true},
		{name: "not a repository", dir: filepath.Dir(repo), wantNotRepo: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Discover(ctx, tt.dir)
			if tt.wantNotRepo {
				require.ErrorIs(t, err, ErrNotRepo)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.top, f.Top)
			assert.Equal(t, filepath.Clean(tt.common), filepath.Clean(f.CommonDir))
			assert.Equal(t, tt.wantHeadKnown, f.headKnown)

			r, err := Open(ctx, tt.dir)
			if tt.wantOpenNotRepo {
				require.ErrorIs(t, err, ErrNotRepo)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.top, r.Dir)
			branch, err := r.Branch(ctx)
			require.NoError(t, err)
			assert.Equal(t, tt.branch, branch)
			h, err := r.Head(ctx)
			require.NoError(t, err)
			assert.Equal(t, tt.head, h)
			// What Open read in one call agrees with the separate commands.
			bare := &Repo{Dir: r.Dir}
			wantBranch, err := bare.Branch(ctx)
			require.NoError(t, err)
			wantHead, err := bare.Head(ctx)
			require.NoError(t, err)
			assert.Equal(t, wantBranch, branch)
			assert.Equal(t, wantHead, h)
		})
	}
}

// TestOpenCached: under WithCache, a second Open of the directory or of its
// top level runs no git (none is left on PATH to run), and ccc's own commit
// moves the HEAD it remembers.
func TestOpenCached(t *testing.T) {
	dir := seededRepo(t)
	// A variable that steers discovery: every Open would ask git, were it
	// not for the cache (a plain repository is read without git: walk).
	t.Setenv("GIT_DISCOVERY_ACROSS_FILESYSTEM", "1")
	ctx := WithCache(context.Background())
	first, err := Open(ctx, filepath.Join(dir, "dir"))
	require.NoError(t, err)
	before, err := first.Head(ctx)
	require.NoError(t, err)

	write(t, dir, "a.txt", "changed\n")
	res, err := first.Snapshot(ctx, []string{"a.txt"}, "snap")
	require.NoError(t, err)
	require.NotEqual(t, before, res.Commit)

	t.Setenv("PATH", t.TempDir()) // no git from here on
	for _, d := range []string{dir, filepath.Join(dir, "dir")} {
		r, err := Open(ctx, d)
		require.NoError(t, err, "cached: no git needed")
		assert.Equal(t, dir, r.Dir)
		h, err := r.Head(ctx)
		require.NoError(t, err)
		assert.Equal(t, res.Commit, h, "the commit ccc made is HEAD now")
		b, err := r.Branch(ctx)
		require.NoError(t, err)
		assert.Equal(t, "main", b)
	}
	// Without the cache every Open asks git.
	_, err = Open(context.Background(), dir)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrNotRepo)
}

// TestNotRepoCached: under WithCache, a directory no repository encloses is
// asked about once; later Opens answer ErrNotRepo without git (none is left
// on PATH), where every step of a checkpoint outside git used to run
// git rev-parse again (issue 26).
func TestNotRepoCached(t *testing.T) {
	testutil.IsolateGit(t)
	t.Setenv("GIT_DISCOVERY_ACROSS_FILESYSTEM", "1") // walk asks git: the cache is what answers below
	dir := t.TempDir()
	ctx := WithCache(context.Background())
	_, err := Open(ctx, dir)
	require.ErrorIs(t, err, ErrNotRepo)

	t.Setenv("PATH", t.TempDir()) // no git from here on
	for range 2 {
		_, err = Open(ctx, dir)
		require.ErrorIs(t, err, ErrNotRepo, "cached: no git needed")
		_, err = Discover(ctx, dir)
		require.ErrorIs(t, err, ErrNotRepo)
	}
}

// TestDiscoverNewlineInPath: a top level whose name holds a newline cannot
// be split into lines; Discover asks one question at a time instead.
func TestDiscoverNewlineInPath(t *testing.T) {
	testutil.IsolateGit(t)
	parent, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	dir := filepath.Join(parent, "two\nlines")
	require.NoError(t, os.Mkdir(dir, 0o755))
	git(t, dir, "init", "-q", "-b", "main")
	f, err := Discover(context.Background(), dir)
	require.NoError(t, err)
	assert.Equal(t, dir, f.Top)
	assert.True(t, strings.HasSuffix(f.CommonDir, ".git"), f.CommonDir)
}
