package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// regenerate is the command that brings docs/ up to date, named in every
// failure of TestDocsAreCurrent.
const regenerate = "go run ./cmd/ccc gen-docs --markdown docs"

// markdownPages lists the pages gen-docs writes in dir (ccc.md and
// ccc_*.md), as base names; docs/ also holds hand-written guides.
func markdownPages(t *testing.T, dir string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "ccc*.md"))
	require.NoError(t, err)
	names := make([]string, 0, len(matches))
	for _, m := range matches {
		names = append(names, filepath.Base(m))
	}
	return names
}

// TestDocsAreCurrent regenerates the command reference and compares it with
// docs/: a help text, flag or command changed without regenerating fails
// here, with the command that fixes it.
func TestDocsAreCurrent(t *testing.T) {
	t.Parallel()
	f, _, _ := helpFactory()
	tmp := t.TempDir()
	require.NoError(t, genDocs(NewCmdRoot(f), &GenDocsOptions{MarkdownDir: tmp}))

	docs := filepath.Join("..", "..", "docs")
	want := markdownPages(t, tmp)
	require.Contains(t, want, "ccc_checkpoint.md")
	require.NotContains(t, want, "ccc_gen-docs.md", "gen-docs is hidden")
	assert.ElementsMatch(t, want, markdownPages(t, docs),
		"docs/ does not have one page per command; run: %s (and git rm the pages of removed commands)", regenerate)
	for _, name := range want {
		got, err := os.ReadFile(filepath.Join(docs, name))
		if err != nil {
			t.Errorf("docs/%s: %v; run: %s", name, err, regenerate)
			continue
		}
		gen, err := os.ReadFile(filepath.Join(tmp, name))
		require.NoError(t, err)
		assert.Equal(t, string(gen), string(got), "docs/%s is stale; run: %s", name, regenerate)
	}
}

// TestGenDocsWritesManPages: --man writes a page per command, gen-docs
// itself left out.
func TestGenDocsWritesManPages(t *testing.T) {
	t.Parallel()
	f, _, errOut := helpFactory()
	md, man := t.TempDir(), t.TempDir()
	require.Equal(t, 0, run([]string{"gen-docs", "--markdown", md, "--man", man}, f), errOut.String())
	page, err := os.ReadFile(filepath.Join(man, "ccc-checkpoint.1"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "EXIT STATUS")
	assert.NoFileExists(t, filepath.Join(man, "ccc-gen-docs.1"))
	assert.FileExists(t, filepath.Join(md, "ccc_hook_stop.md"))
}

// TestGenDocsNeedsADirectory: neither --markdown nor --man is a usage error.
func TestGenDocsNeedsADirectory(t *testing.T) {
	t.Parallel()
	f, _, errOut := helpFactory()
	assert.Equal(t, 2, run([]string{"gen-docs"}, f))
	assert.Contains(t, errOut.String(), "--markdown")
}
