package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `ccc init codex|gemini` runs these: each writes its agent's settings.
func TestAgentInstallers(t *testing.T) {
	files := map[string]string{"codex": ".codex/hooks.json", "gemini": ".gemini/settings.json"}
	agents := initAgents()
	require.Len(t, agents, len(files))
	for _, a := range agents {
		agent, file := a.name, files[a.name]
		assert.Equal(t, file, a.file, agent)
		root := t.TempDir()
		res, err := a.install(root, false)
		require.NoError(t, err, agent)
		assert.True(t, res.Changed, agent)
		data, err := os.ReadFile(filepath.Join(root, file))
		require.NoError(t, err, agent)
		assert.Contains(t, string(data), "ccc hook --agent "+agent+" stop")
	}
}
