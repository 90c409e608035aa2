package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/install/installtest"
)

func TestInstallGolden(t *testing.T) {
	installtest.Golden(t, HooksFile, Install,
		installtest.Case{Name: "codex-new"},
		installtest.Case{Name: "codex-user-hooks", In: "codex-user-hooks"},
	)
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
