package main

import (
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeShowsRealOutput: README's first screen shows what ccc really
// prints. testdata/journeys/readme_demo.txtar runs the demo through the
// binary on a fresh machine and compares each output with its files; this
// test checks that README's first three code blocks after the /plugin
// commands are those files: the checkpoint's report and prompt, an excerpt
// of .ccc-progress.md, and what ccc go gives the next session.
func TestReadmeShowsRealOutput(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/journeys/readme_demo.txtar")
	require.NoError(t, err)
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	lines := strings.Split(string(readme), "\n")
	require.Greater(t, len(lines), 60)
	blocks := codeBlocks(strings.Join(lines[:60], "\n"))
	require.Len(t, blocks, 4, "README's first 60 lines: the /plugin commands, then three outputs")
	assert.Equal(t, files["checkpoint.err"]+files["checkpoint.out"], blocks[1], "the checkpoint's report and prompt")
	assert.Contains(t, files["progress.md"], blocks[2], "an excerpt of .ccc-progress.md")
	assert.GreaterOrEqual(t, strings.Count(blocks[2], "\n"), 5, "the excerpt shows the tasks")
	assert.Equal(t, files["go.out"]+files["go.err"], blocks[3], "what ccc go gives the next session")
}

// codeBlocks returns the contents of the fenced code blocks in md.
func codeBlocks(md string) []string {
	var out []string
	var cur *strings.Builder
	for _, l := range strings.SplitAfter(md, "\n") {
		if strings.HasPrefix(l, "```") {
			if cur == nil {
				cur = &strings.Builder{}
			} else {
				out = append(out, cur.String())
				cur = nil
			}
			continue
		}
		if cur != nil {
			cur.WriteString(l)
		}
	}
	return out
}
