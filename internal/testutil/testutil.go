// Package testutil is what the tests of every package share: golden files
// with the one -update flag, and temporary git repositories. Only tests
// import it.
package testutil

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Golden compares got with the file at path, or writes got there (making
// its directory) when the tests run with -update.
func Golden[T ~string | ~[]byte](t testing.TB, path string, got T) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update writes it)", err, t.Name())
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from what the test made (go test -run '%s' -update rewrites it):\n%s",
			path, t.Name(), diff(string(want), string(got)))
	}
}

// IsolateGit keeps the developer's git configuration and identity, and the
// GIT_* variables of an enclosing hook (go test run from a pre-commit
// hook), out of the test's repositories. Commits then need an identity:
// Identity, or the repository's own user.name and user.email. It sets the
// environment, so a test that calls it cannot run in parallel.
func IsolateGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	// Every t.TempDir of this test shares this parent; discovery must not
	// climb above it into a repository that happens to enclose /tmp.
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(home))
	for _, k := range []string{
		"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
		"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_PREFIX",
		"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
		"GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS",
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL",
	} {
		t.Setenv(k, "") // registers the restore
		if err := os.Unsetenv(k); err != nil {
			t.Fatal(err)
		}
	}
}

// Identity makes every commit of the test's repositories by Test
// <test@example.com>.
func Identity(t testing.TB) {
	t.Helper()
	t.Setenv("GIT_AUTHOR_NAME", "Test")
	t.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Test")
	t.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
}

// Git runs a setup or inspection command in dir and returns its stdout;
// it fails the test, with git's stderr, when git fails.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("git %q: %v\n%s", args, err, ee.Stderr)
	}
	if err != nil {
		t.Fatalf("git %q: %v", args, err)
	}
	return string(out)
}

// Repo makes a repository in a fresh temporary directory (symlinks
// resolved, as git reports paths) on branch main, with one commit
// ("base") holding files (name → content; none: an empty commit). Call
// IsolateGit and Identity first.
func Repo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q", "-b", "main")
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", "base")
	return dir
}

// Worktree adds a linked worktree of repo on a new branch, beside repo,
// and returns its path.
func Worktree(t testing.TB, repo, branch string) string {
	t.Helper()
	wt := filepath.Join(filepath.Dir(repo), "wt-"+branch)
	Git(t, repo, "worktree", "add", "-q", "-b", branch, wt)
	return wt
}
