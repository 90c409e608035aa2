package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWalkAgreesWithGit: over every shape of repository ccc meets, walk
// (no process) answers what the one `git rev-parse` answers, or leaves the
// shape to git; the plain shapes (the ones a checkpoint meets) never ask
// git, which is the point (issue 26).
func TestWalkAgreesWithGit(t *testing.T) {
	ctx := context.Background()
	repo := seededRepo(t)
	parent := filepath.Dir(repo)
	mk := func(name string) string {
		d := filepath.Join(parent, name)
		require.NoError(t, os.MkdirAll(d, 0o755))
		return d
	}

	wt := filepath.Join(parent, "linked-wt")
	git(t, repo, "worktree", "add", "-q", "-b", "feature/x", wt)
	wtDetached := filepath.Join(parent, "wt-detached")
	git(t, repo, "worktree", "add", "-q", "--detach", wtDetached)

	detached := seededRepo(t)
	git(t, detached, "checkout", "-q", "--detach")

	packed := seededRepo(t)
	git(t, packed, "pack-refs", "--all")
	require.NoFileExists(t, filepath.Join(packed, ".git", "refs", "heads", "main"))

	unborn := newRepo(t)

	nested := filepath.Join(repo, "dir", "inner")
	require.NoError(t, os.MkdirAll(nested, 0o755))
	git(t, nested, "init", "-q", "-b", "trunk")
	git(t, nested, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "inner")

	link := filepath.Join(mk("links"), "to-repo")
	require.NoError(t, os.Symlink(repo, link))

	separate := mk("separate-wt")
	git(t, separate, "init", "-q", "-b", "main", "--separate-git-dir", filepath.Join(parent, "separate.git"))
	git(t, separate, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "one")

	ambiguous := seededRepo(t)
	git(t, ambiguous, "tag", "main") // --abbrev-ref HEAD is heads/main now

	sub := seededRepo(t)
	git(t, sub, "-c", "protocol.file.allow=always", "submodule", "add", "-q", repo, "mod")
	git(t, sub, "commit", "-q", "-m", "submodule")

	worktreeSet := seededRepo(t)
	git(t, worktreeSet, "config", "core.worktree", worktreeSet)

	extension := seededRepo(t)
	git(t, extension, "config", "extensions.worktreeConfig", "true")

	bare := filepath.Join(parent, "bare.git")
	git(t, repo, "init", "-q", "--bare", bare)

	bareish := seededRepo(t)
	git(t, bareish, "config", "core.bare", "true")

	lostGitdir := mk("lost-gitdir")
	require.NoError(t, os.WriteFile(filepath.Join(lostGitdir, ".git"), []byte("gitdir: "+filepath.Join(parent, "nowhere")+"\n"), 0o644))

	packedWt := filepath.Join(parent, "packed-wt")
	git(t, packed, "worktree", "add", "-q", "-b", "side", packedWt)
	git(t, packed, "pack-refs", "--all")

	notMine := seededRepo(t)
	if os.Geteuid() == 0 { // only root can give it away
		require.NoError(t, os.Chown(filepath.Join(notMine, ".git"), 4242, 4242))
	}

	tests := []struct {
		name string
		dir  string
		want walked
	}{
		{"plain, top level", repo, walkedFound},
		{"plain, subdirectory", filepath.Join(repo, "dir"), walkedFound},
		{"symlinked path", link, walkedFound},
		{"symlinked path, subdirectory", filepath.Join(link, "dir"), walkedFound},
		{"linked worktree, branch with a slash", wt, walkedFound},
		{"linked worktree, detached", wtDetached, walkedFound},
		{"detached HEAD", detached, walkedFound},
		{"packed ref", packed, walkedFound},
		{"unborn branch", unborn, walkedFound},
		{"nested repository", nested, walkedFound},
		{"separate git directory", separate, walkedFound},
		{"submodule", filepath.Join(sub, "mod"), askGit},
		{"superproject", sub, walkedFound},
		{"branch name also a tag", ambiguous, askGit},
		{"core.worktree", worktreeSet, askGit},
		{"an extension", extension, askGit},
		{"inside .git", filepath.Join(repo, ".git"), askGit},
		{"inside .git/refs", filepath.Join(repo, ".git", "refs"), askGit},
		{"bare repository", bare, askGit},
		{"core.bare in a work tree", bareish, askGit},
		{"gitdir file that leads nowhere", lostGitdir, askGit},
		{"linked worktree, packed refs", packedWt, walkedFound},
		{"not a repository", mk("plain-dir"), walkedNone},
	}
	if os.Geteuid() == 0 {
		tests = append(tests, struct {
			name string
			dir  string
			want walked
		}{"another user's .git", notMine, askGit})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			abs, err := filepath.Abs(tt.dir)
			require.NoError(t, err)
			fast, w := walk(abs, stat(t, abs), readDiscoveryEnv())
			assert.Equal(t, tt.want, w, "walked")
			slow, err := discoverByGit(ctx, abs)
			switch w {
			case walkedNone:
				require.ErrorIs(t, err, ErrNotRepo)
			case walkedFound:
				require.NoError(t, err)
				agree(t, slow, fast)
			}
		})
	}
}

// agree: what walk found is what git said, path for path (through a
// symlink too: at the top level git's common directory keeps the path as
// asked, and records.Dir compares it with the root as given).
func agree(t *testing.T, git, fast Found) {
	t.Helper()
	assert.Equal(t, git.Top, fast.Top, "top level")
	assert.Equal(t, filepath.Clean(git.CommonDir), fast.CommonDir, "common directory")
	assert.Equal(t, git.headKnown, fast.headKnown, "HEAD known")
	assert.Equal(t, git.Branch, fast.Branch, "branch")
	assert.Equal(t, git.Head, fast.Head, "HEAD")
	assert.Equal(t, git.dir, fast.dir)
}

// TestWalkLeavesSteeredDiscoveryToGit: a variable that steers git's
// discovery (as a hook's GIT_DIR does) makes walk ask git; a neutral one
// does not.
func TestWalkLeavesSteeredDiscoveryToGit(t *testing.T) {
	repo := seededRepo(t)
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG_PARAMETERS"} {
		t.Run(k, func(t *testing.T) {
			t.Setenv(k, filepath.Join(repo, ".git"))
			_, w := walk(repo, stat(t, repo), readDiscoveryEnv())
			assert.Equal(t, askGit, w)
		})
	}
	t.Setenv("GIT_AUTHOR_NAME", "Someone")
	f, w := walk(repo, stat(t, repo), readDiscoveryEnv())
	assert.Equal(t, walkedFound, w)
	assert.Equal(t, "main", f.Branch)
	_, w = walk(repo, stat(t, repo), discoveryEnv{plain: true, ceilings: ":" + repo})
	assert.Equal(t, askGit, w, "an empty ceiling entry: git resolves the rest differently")
}

// TestWalkStopsAtCeiling: a repository above GIT_CEILING_DIRECTORIES is
// not found, as git does not find it.
func TestWalkStopsAtCeiling(t *testing.T) {
	repo := seededRepo(t)
	deep := filepath.Join(repo, "dir", "deeper")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	env := discoveryEnv{plain: true, ceilings: filepath.Join(repo, "dir")}
	_, w := walk(deep, stat(t, deep), env)
	assert.Equal(t, walkedNone, w)
	t.Setenv("GIT_CEILING_DIRECTORIES", env.ceilings)
	_, err := discoverByGit(context.Background(), deep)
	require.ErrorIs(t, err, ErrNotRepo)
	// A start at a ceiling is looked at; a ceiling is never gone up into.
	for _, start := range []string{repo, filepath.Join(repo, "dir")} {
		_, w := walk(start, stat(t, start), discoveryEnv{plain: true, ceilings: repo})
		t.Setenv("GIT_CEILING_DIRECTORIES", repo)
		_, err := discoverByGit(context.Background(), start)
		if start == repo {
			assert.Equal(t, walkedFound, w)
			require.NoError(t, err)
		} else {
			assert.Equal(t, walkedNone, w)
			require.ErrorIs(t, err, ErrNotRepo)
		}
	}
}

func stat(t *testing.T, dir string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	return fi
}
