package jira_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/jirafake"
	"github.com/ccc-checkpoint/ccc/internal/testutil"
	"github.com/ccc-checkpoint/ccc/sinks/jira"
)

// TestToADF converts a status with everything a ccc post body may hold;
// the document must be valid against Atlassian's ADF schema and is kept as
// a golden file.
func TestToADF(t *testing.T) {
	t.Parallel()
	md, err := os.ReadFile(filepath.Join("testdata", "status.md"))
	require.NoError(t, err)
	got, err := json.MarshalIndent(jira.ToADF(string(md)), "", "  ")
	require.NoError(t, err)
	require.NoError(t, jirafake.ValidADF(got))
	testutil.Golden(t, filepath.Join("testdata", "status.adf.json"), string(got)+"\n")

	assert.NotContains(t, string(got), "javascript:", "a link to another scheme stays text")
	text := jira.PlainText(jira.ToADF(string(md)).Content)
	for _, want := range []string{"2 of 5 — write tests", "[x] a box in a mixed list", "[ ] a task in a quote",
		"func main() {}", "<details>raw html</details>", "<b>inline</b>", "an image bad"} {
		assert.Contains(t, text, strings.Join(strings.Fields(want), " "), "no text is dropped")
	}
}

// Every Markdown file of the repository converts to a valid document: the
// converter never builds a node where ADF allows none.
func TestToADFIsAlwaysValid(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../internal/comment/testdata/*.md")
	require.NoError(t, err)
	files = append(files, "../../README.md", "../../docs/other-agents.md")
	require.Greater(t, len(files), 5)
	for _, f := range files {
		md, err := os.ReadFile(f)
		require.NoError(t, err)
		doc, err := json.Marshal(jira.ToADF(string(md)))
		require.NoError(t, err)
		assert.NoError(t, jirafake.ValidADF(doc), f)
	}
	for _, md := range []string{"", "\n\n", "-", "1.", "- [ ]", "> ", "```", "|a|\n|-|", "# ", "<!-- x", "* * *", "- # h\n- > q\n- |a|\n  |-|\n  |b|"} {
		doc, err := json.Marshal(jira.ToADF(md))
		require.NoError(t, err)
		assert.NoError(t, jirafake.ValidADF(doc), "%q", md)
	}
}
