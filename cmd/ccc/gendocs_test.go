package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/gendocs"
)

// regenerate is the command that brings docs/ up to date, named in every
// failure of TestDocsAreCurrent.
const regenerate = gendocs.Command

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
	require.NoError(t, gendocs.Generate(NewCmdRoot(f), gendocs.Options{MarkdownDir: tmp}))

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

// TestGenDocsWritesManPages: the man pages have a page per command, with
// its EXIT STATUS.
func TestGenDocsWritesManPages(t *testing.T) {
	t.Parallel()
	f, _, _ := helpFactory()
	md, man := t.TempDir(), t.TempDir()
	require.NoError(t, gendocs.Generate(NewCmdRoot(f), gendocs.Options{MarkdownDir: md, ManDir: man}))
	page, err := os.ReadFile(filepath.Join(man, "ccc-checkpoint.1"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "EXIT STATUS")
	assert.NoFileExists(t, filepath.Join(man, "ccc-gen-docs.1"))
	assert.FileExists(t, filepath.Join(md, "ccc_hook_stop.md"))
}

// TestShippedBinaryHasNoGenDocs: without -tags gendocs, gen-docs is an
// unknown command (its generator is not linked; internal/archtest checks
// the dependency list).
func TestShippedBinaryHasNoGenDocs(t *testing.T) {
	if len(devCommands()) > 0 {
		t.Skip("built with -tags gendocs")
	}
	t.Parallel()
	f, _, errOut := helpFactory()
	assert.Equal(t, 2, run([]string{"gen-docs", "--markdown", t.TempDir()}, f))
	assert.Contains(t, errOut.String(), "unknown command")
}
