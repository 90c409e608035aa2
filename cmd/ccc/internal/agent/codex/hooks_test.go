package codex

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	assert.Equal(t, string(want), string(got))
}

func TestInstallGolden(t *testing.T) {
	tests := []struct {
		name string
		in   string // testdata/<in>.in.json, "" for none
	}{
		{"codex-new", ""},
		{"codex-user-hooks", "codex-user-hooks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, HooksFile)
			var orig []byte
			if tt.in != "" {
				var err error
				orig, err = os.ReadFile(filepath.Join("testdata", tt.in+".in.json"))
				require.NoError(t, err)
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, orig, 0o644))
			}

			// A dry run shows the diff and writes nothing.
			dry, err := Install(root, true)
			require.NoError(t, err)
			assert.True(t, dry.Changed)
			now, _ := os.ReadFile(path)
			assert.Equal(t, orig, now)

			res, err := Install(root, false)
			require.NoError(t, err)
			assert.True(t, res.Changed)
			assert.Equal(t, dry.Diff, res.Diff)
			assert.Equal(t, path, res.Path)
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			golden(t, tt.name+".golden.json", got)
			golden(t, tt.name+".diff", []byte(strings.ReplaceAll(res.Diff, root+"/", "")))
			var v map[string]any
			require.NoError(t, json.Unmarshal(got, &v), "valid JSON")

			// Again: nothing to do.
			again, err := Install(root, false)
			require.NoError(t, err)
			assert.False(t, again.Changed)
			assert.Empty(t, again.Diff)
			after, _ := os.ReadFile(path)
			assert.Equal(t, got, after)
		})
	}
}

func TestCodexNotes(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".codex"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".codex", "config.toml"),
		[]byte("model = \"gpt-5.1-codex\"\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"true\"\n"), 0o644))
	res, err := Install(root, false)
	require.NoError(t, err)
	notes := strings.Join(res.Notes, "\n")
	assert.Contains(t, notes, "/hooks")
	assert.Contains(t, notes, "ccc never writes it")
	assert.Contains(t, notes, "[hooks] table too")
	toml, err := os.ReadFile(filepath.Join(root, ".codex", "config.toml"))
	require.NoError(t, err)
	assert.NotContains(t, string(toml), "trusted_hash", "trust is the user's to give")
}
