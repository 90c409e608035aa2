//go:build gendocs

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These run in CI with -tags gendocs (.ci/run): the command that
// `go run -tags gendocs ./cmd/ccc gen-docs` and goreleaser's man pages use.

// TestGenDocsCommand: --man writes a page per command, gen-docs itself left
// out.
func TestGenDocsCommand(t *testing.T) {
	t.Parallel()
	f, _, errOut := helpFactory()
	md, man := t.TempDir(), t.TempDir()
	require.Equal(t, 0, run([]string{"gen-docs", "--markdown", md, "--man", man}, f), errOut.String())
	assert.FileExists(t, filepath.Join(man, "ccc-checkpoint.1"))
	assert.NoFileExists(t, filepath.Join(man, "ccc-gen-docs.1"))
	_, err := os.Stat(filepath.Join(md, "ccc_gen-docs.md"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestGenDocsNeedsADirectory: neither --markdown nor --man is a usage error.
func TestGenDocsNeedsADirectory(t *testing.T) {
	t.Parallel()
	f, _, errOut := helpFactory()
	assert.Equal(t, 2, run([]string{"gen-docs"}, f))
	assert.Contains(t, errOut.String(), "--markdown")
}
