package hook_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/hook"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// views are what the commands, the hooks and the agents' thresholds take
// from the one reader of .ccc-preferences.yaml (config.Settings.Project).
// Each returns the duration it read from durationsYAML, and its error.
var views = []struct {
	name string
	load func(s config.Settings, root string) (time.Duration, error)
	// wrap is what the view makes of ReadPrefsFile's error: the hooks
	// never fail and say they fall back; the others leave that to callers.
	wrap func(shared string) string
}{
	{"commands", func(s config.Settings, root string) (time.Duration, error) {
		p := s.Project(root)
		return time.Duration(p.Prefs.Checkpoint.StaleAfter), p.Problems.Commands
	}, func(s string) string { return s }},
	{"hooks", func(s config.Settings, root string) (time.Duration, error) {
		p, err := hook.Env{Settings: s}.Prefs(root)
		return time.Duration(p.Hooks.SessionStartMaxAge), err
	}, func(s string) string { return s + "; using the defaults" }},
	{"records", func(s config.Settings, root string) (time.Duration, error) {
		p := s.Project(root)
		return records.ThresholdsOf(p.Prefs.Agents).StaleAfter, p.Problems.Agents
	}, func(s string) string { return s }},
}

// durationsYAML sets one duration of each view with the same syntax.
const durationsYAML = "checkpoint:\n  stale_after: 1d12h\nhooks:\n  session_start_max_age: 1d12h\nagents:\n  stale_after: 1d12h\n"

// settings are a process's settings without the user's own preferences.
func settings(t *testing.T) config.Settings {
	return config.NewSettings(config.Env{ConfigDir: t.TempDir()})
}

// TestOneReaderOfTheFile: every view reads the file through
// ReadPrefsFile, so a file that cannot be used fails each of them alike,
// and one duration syntax holds for all.
func TestOneReaderOfTheFile(t *testing.T) {
	for _, tt := range []struct {
		name  string
		write func(t *testing.T, path string)
	}{
		{"unparsable", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte("agents: [\n"), 0o644))
		}},
		{"unreadable", func(t *testing.T, path string) { require.NoError(t, os.Mkdir(path, 0o755)) }},
	} {
		root := t.TempDir()
		tt.write(t, filepath.Join(root, config.PrefsFile))
		doc, _, shared := config.ReadPrefsFile(root)
		require.Error(t, shared, tt.name)
		assert.Nil(t, doc)
		s := settings(t)
		for _, v := range views {
			_, err := v.load(s, root)
			assert.EqualError(t, err, v.wrap(shared.Error()), "%s: %s", tt.name, v.name)
		}
	}

	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, config.PrefsFile), []byte(durationsYAML), 0o644))
	s := settings(t)
	for _, v := range views {
		got, err := v.load(s, root)
		require.NoError(t, err, v.name)
		assert.Equal(t, 36*time.Hour, got, v.name)
	}

	doc, path, err := config.ReadPrefsFile(t.TempDir())
	assert.NoError(t, err, "a missing file is no error")
	assert.Nil(t, doc)
	assert.Equal(t, config.PrefsFile, filepath.Base(path))
}

// TestReadOncePerRoot: a process's settings read a project's file once,
// whichever view asks first; another root is read on its own, and Reread
// (the sync worker's next checkpoint) reads it again.
func TestReadOncePerRoot(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	path := filepath.Join(root, config.PrefsFile)
	require.NoError(t, os.WriteFile(path, []byte(durationsYAML), 0o644))
	s := settings(t)
	_, err := views[1].load(s, root) // the hooks first
	require.NoError(t, err)

	require.NoError(t, os.WriteFile(path, []byte("checkpoint:\n  stale_after: 2h\nagents: [\n"), 0o644))
	for _, v := range views {
		got, err := v.load(s, root)
		require.NoError(t, err, v.name)
		assert.Equal(t, 36*time.Hour, got, "%s: the file as first read", v.name)
		got, err = v.load(s, other)
		require.NoError(t, err, v.name)
		assert.NotEqual(t, 36*time.Hour, got, "%s: another root is its own", v.name)
	}
	_, err = views[0].load(s.Reread(), root)
	assert.ErrorContains(t, err, "did not find expected node content", "read again")
}
