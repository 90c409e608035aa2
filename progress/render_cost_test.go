package progress

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Rendering a list writes its lines into one buffer (issue 26): a
// checkpoint's render of 10,000 tasks made 25,000 small strings, two or
// three per task; its allocations no longer grow with the tasks.
func TestRenderAllocatesPerListNotPerTask(t *testing.T) {
	d, err := Parse(benchDoc(10_000))
	require.NoError(t, err)
	require.NoError(t, d.Apply(Edits{Done: []string{""}, Session: "2026-11-21T14:00:00Z"}))
	d.RefreshPrompt([]string{"a.go"}, true)
	allocs := testing.AllocsPerRun(3, func() { d.Render() })
	assert.LessOrEqual(t, allocs, 50.0)
}
