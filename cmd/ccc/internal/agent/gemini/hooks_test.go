package gemini

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/install/installtest"
)

func TestInstallGolden(t *testing.T) {
	installtest.Golden(t, SettingsFile, Install,
		installtest.Case{Name: "gemini-new"},
		installtest.Case{Name: "gemini-user-settings", In: "gemini-user-settings"},
		installtest.Case{Name: "gemini-ccc-elsewhere", In: "gemini-ccc-elsewhere"},
	)
}

func TestGeminiWithComments(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ".gemini", "settings.json")
	orig, err := os.ReadFile("testdata/gemini-comments.in.json")
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, orig, 0o644))
	_, err = Install(root, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	now, _ := os.ReadFile(path)
	assert.Equal(t, orig, now, "left as it was")
}
