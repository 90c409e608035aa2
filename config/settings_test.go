package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProjectAppliesTheUsersExceptions: Project is the repository's
// preferences, with only what a repository may not decide for its user
// taken from the user's own file.
func TestProjectAppliesTheUsersExceptions(t *testing.T) {
	userDir, root := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(userDir, UserPrefsName), []byte(
		"checkpoint:\n  git_hooks: false\n  timeout: 5s\nredact:\n  patterns:\n    - {name: mine, regexp: 'MINE-[0-9]+'}\nsinks:\n  file: {redact: false}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, PrefsFile), []byte(
		"checkpoint:\n  git_hooks: true\n  timeout: 7s\nredact:\n  patterns:\n    - {name: repo, regexp: 'REPO-[0-9]+'}\nsinks:\n  github: {redact: false}\n"), 0o644))

	p := NewSettings(Env{ConfigDir: userDir}).Project(root)
	require.NoError(t, p.User)
	require.NoError(t, p.Problems.Commands)
	assert.False(t, GitHooks(p.Prefs, Env{}), "the user's off holds over the repository's on")
	assert.Equal(t, "7s", (&p.Prefs.Checkpoint.Timeout).String(), "the rest is the repository's")
	require.Len(t, p.Patterns, 2)
	assert.Equal(t, []string{"repo", "mine"}, []string{p.Patterns[0].Name, p.Patterns[1].Name})
	assert.Equal(t, map[string]bool{"file": true}, p.NoRedact)
	assert.Equal(t, []string{"github"}, p.Ignored)

	require.NoError(t, os.WriteFile(filepath.Join(userDir, UserPrefsName), []byte("sinks: [\n"), 0o644))
	p = NewSettings(Env{ConfigDir: userDir}).Project(root)
	assert.ErrorContains(t, p.User, UserPrefsName, "a broken user file is the caller's warning")
	assert.False(t, GitHooks(p.Prefs, Env{}), "and fails closed, as a repository's does")
}
