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

// readers are the three readers of .ccc-preferences.yaml. Each returns the
// duration it read from durationsYAML, and its error.
var readers = []struct {
	name string
	load func(root string) (time.Duration, error)
	// wrap is what the reader makes of ReadPrefsFile's error: the hooks
	// never fail and say they fall back; the others leave that to callers.
	wrap func(shared string) string
}{
	{"config", func(root string) (time.Duration, error) {
		p, err := config.LoadPrefs(root)
		return time.Duration(p.Checkpoint.StaleAfter), err
	}, func(s string) string { return s }},
	{"hook", func(root string) (time.Duration, error) {
		p, err := hook.LoadPrefs(root)
		return time.Duration(p.Hooks.SessionStartMaxAge), err
	}, func(s string) string { return s + "; using the defaults" }},
	{"records", func(root string) (time.Duration, error) {
		p, problems := config.Load(root)
		return records.ThresholdsOf(p.Agents).StaleAfter, problems.Agents
	}, func(s string) string { return s }},
}

// durationsYAML sets one duration of each reader with the same syntax.
const durationsYAML = "checkpoint:\n  stale_after: 1d12h\nhooks:\n  session_start_max_age: 1d12h\nagents:\n  stale_after: 1d12h\n"

// TestReadersShareTheFile: every reader goes through ReadPrefsFile, so a
// file it cannot use fails each of them alike, and reads one duration
// syntax for all.
func TestReadersShareTheFile(t *testing.T) {
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
		for _, r := range readers {
			_, err := r.load(root)
			assert.EqualError(t, err, r.wrap(shared.Error()), "%s: %s", tt.name, r.name)
		}
	}

	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, config.PrefsFile), []byte(durationsYAML), 0o644))
	for _, r := range readers {
		got, err := r.load(root)
		require.NoError(t, err, r.name)
		assert.Equal(t, 36*time.Hour, got, r.name)
	}

	doc, path, err := config.ReadPrefsFile(t.TempDir())
	assert.NoError(t, err, "a missing file is no error")
	assert.Nil(t, doc)
	assert.Equal(t, config.PrefsFile, filepath.Base(path))
}
