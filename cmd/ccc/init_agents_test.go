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
	inst := agentInstallers()
	require.Len(t, inst, len(files))
	for agent, file := range files {
		root := t.TempDir()
		res, err := inst[agent](root, false)
		require.NoError(t, err, agent)
		assert.True(t, res.Changed, agent)
		data, err := os.ReadFile(filepath.Join(root, file))
		require.NoError(t, err, agent)
		assert.Contains(t, string(data), "ccc hook --agent "+agent+" stop")
	}
}
