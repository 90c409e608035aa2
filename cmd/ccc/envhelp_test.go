package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
)

// TestHelpEnvironmentListsTheTable: `ccc help environment` and the root
// help's ENVIRONMENT come from config.Variables, the list of what ccc
// reads (config.TestReadEnvReadsTheTable).
func TestHelpEnvironmentListsTheTable(t *testing.T) {
	t.Parallel()
	f, out, errOut := helpFactory()
	require.Equal(t, 0, run([]string{"help", "environment"}, f), errOut.String())
	f2, out2, errOut2 := helpFactory()
	require.Equal(t, 0, run([]string{"--help"}, f2), errOut2.String())
	for _, v := range config.Variables {
		assert.Contains(t, out.String(), "\n  "+v.Name+"\n", "ccc help environment")
		if v.Root {
			assert.Regexp(t, `(?m)^  `+v.Name+` +\S`, out2.String(), "ccc --help")
		} else {
			assert.NotRegexp(t, `(?m)^  `+v.Name+` +\S`, out2.String(), "ccc --help lists only the Root ones")
		}
	}
}

// TestConfigurationDocListsTheTable: docs/configuration.md's table is
// generated from config.Variables (gen-docs splices it in).
func TestConfigurationDocListsTheTable(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "configuration.md"))
	require.NoError(t, err)
	want, ok := config.WithEnvTable(doc)
	require.True(t, ok, "docs/configuration.md has lost the markers of its environment table")
	assert.Equal(t, string(want), string(doc), "docs/configuration.md's environment table is stale; run: %s", regenerate)
}
