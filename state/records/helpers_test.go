package records

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
)

// t0 is the tests' clock at the first checkpoint.
var t0 = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

// isolate keeps the developer's git configuration and any enclosing hook's
// GIT_* variables out of the test repositories.
func isolate(t testing.TB) {
	t.Helper()
	testutil.IsolateGit(t)
	testutil.Identity(t)
}

// tempDir is a t.TempDir with symlinks resolved, as git reports paths.
func tempDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return dir
}

// seededRepo is a repository on main with one commit.
func seededRepo(t testing.TB) string {
	t.Helper()
	isolate(t)
	dir := tempDir(t)
	git(t, dir, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644))
	git(t, dir, "add", "a.txt")
	git(t, dir, "commit", "-q", "-m", "base")
	return dir
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return testutil.Git(t, dir, args...)
}

func commit(t testing.TB, dir, msg string) string {
	t.Helper()
	git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return trim(git(t, dir, "rev-parse", "HEAD"))
}

func trim(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

// readJSON is a file as a generic JSON object.
func readJSON(t testing.TB, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m), string(data))
	return m
}

func writeFile(t testing.TB, path, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// names lists a directory's entries, for asserting on what a step left.
func names(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// snap is a typical mid-task snapshot for agent.
func snap(agent, issue string) Snapshot {
	return Snapshot{
		Agent: agent, Issue: issue, Phase: "implementation",
		Current:   "write parser",
		Completed: []string{"read the spec"},
		Remaining: []string{"write tests", "docs"},
		Files:     []string{"parser.go"},
		Prompt:    "Resume " + issue + ". Current task: write parser.",
		Branch:    "main", Head: "1111111111111111111111111111111111111111",
	}
}
