// Package installtest is the golden test every agent's hook installer
// passes: a dry run shows the diff and writes nothing, the real run writes
// the golden file and diff, and a second run has nothing to do. Only tests
// import it.
package installtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/install"
	"github.com/ccc-checkpoint/ccc/internal/testutil"
)

// Case is one golden case: testdata/<In>.in.json is the file before ("" for
// none); testdata/<Name>.golden.json and <Name>.diff are what the installer
// writes and shows.
type Case struct {
	Name, In string
}

// Golden runs each case in a new project: file is the settings file the
// installer edits, relative to the project root.
func Golden(t *testing.T, file string, run func(root string, dryRun bool) (install.Result, error), cases ...Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, file)
			var orig []byte
			if tc.In != "" {
				var err error
				orig, err = os.ReadFile(filepath.Join("testdata", tc.In+".in.json"))
				require.NoError(t, err)
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, orig, 0o644))
			}

			// A dry run shows the diff and writes nothing.
			dry, err := run(root, true)
			require.NoError(t, err)
			assert.True(t, dry.Changed)
			now, _ := os.ReadFile(path)
			assert.Equal(t, orig, now)

			res, err := run(root, false)
			require.NoError(t, err)
			assert.True(t, res.Changed)
			assert.Equal(t, dry.Diff, res.Diff)
			assert.Equal(t, path, res.Path)
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			testutil.Golden(t, filepath.Join("testdata", tc.Name+".golden.json"), got)
			testutil.Golden(t, filepath.Join("testdata", tc.Name+".diff"), strings.ReplaceAll(res.Diff, root+"/", ""))
			var v map[string]any
			require.NoError(t, json.Unmarshal(got, &v), "valid JSON")

			// Again: nothing to do.
			again, err := run(root, false)
			require.NoError(t, err)
			assert.False(t, again.Changed)
			assert.Empty(t, again.Diff)
			after, _ := os.ReadFile(path)
			assert.Equal(t, got, after)
		})
	}
}
