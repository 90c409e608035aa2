package gitrepo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
)

// newRepo is an empty repository on an unborn main branch.
func newRepo(t *testing.T) string {
	t.Helper()
	testutil.IsolateGit(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "config", "user.name", "Test")
	git(t, dir, "config", "user.email", "test@example.com")
	return dir
}

// seededRepo has one commit holding the files most cases edit.
func seededRepo(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	for _, f := range []string{"a.txt", "b.txt", "c.txt", "dir/with space.txt", "ünï 日本.txt"} {
		write(t, dir, f, "base "+f+"\n")
	}
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "base")
	return dir
}

func gitCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd
}

// git runs a setup or inspection command and returns its stdout.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testutil.Git(t, dir, args...)
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func writeHook(t *testing.T, dir, name, script string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755))
}

// status is the porcelain status a person would read, unicode unquoted.
func status(t *testing.T, dir string) string {
	t.Helper()
	return git(t, dir, "-c", "core.quotepath=off", "status", "--porcelain", "--untracked-files=all")
}

// indexBytes is the index file as it is on disk; nil when there is none.
func indexBytes(t *testing.T, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	return b
}

func head(t *testing.T, dir string) string {
	t.Helper()
	sha, err := (&Repo{Dir: dir}).Head(context.Background())
	require.NoError(t, err)
	return sha
}
