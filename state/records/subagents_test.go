package records

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSubagentsNewestFirstAndBounded(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)
	for i := range KeepSubagents + 3 {
		require.NoError(t, WriteSubagent(root, Subagent{ID: fmt.Sprintf("agent/%02d", i), Type: "Explore", Session: "s-1",
			Status: "running", UpdatedAt: t0.Add(time.Duration(i) * time.Minute)}))
	}
	subs := ReadSubagents(root)
	require.Len(t, subs, KeepSubagents, "the oldest are removed")
	assert.Equal(t, fmt.Sprintf("agent/%02d", KeepSubagents+2), subs[0].ID)
	_, err := os.Stat(filepath.Join(root, ".ccc", SubagentsDir, "agent-52.json"))
	assert.NoError(t, err, "ids are file names only after sanitising")

	long := make([]rune, 600)
	for i := range long {
		long[i] = 'x'
	}
	require.NoError(t, WriteSubagent(root, Subagent{ID: "agent/52", Status: "stopped", LastMessage: string(long), UpdatedAt: t0.Add(time.Hour)}))
	subs = ReadSubagents(root)
	assert.Equal(t, "stopped", subs[0].Status, "the same id is updated in place")
	assert.Len(t, []rune(subs[0].LastMessage), 500)
}
