package all

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
)

// TestHookInstallers is the one conformance suite of every agent's
// installer: it finds its hooks missing beside the user's, installs them,
// finds one ccc no longer writes stale, and --remove takes out ccc's hooks
// only, idempotently.
func TestHookInstallers(t *testing.T) {
	for _, ag := range Agents() {
		inst, ok := ag.(agent.HookInstaller)
		if !ok {
			continue
		}
		a := struct {
			name string
			file string
		}{ag.Name(), inst.ConfigFile()}
		t.Run(a.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, a.file)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			user := `{"ui": {"theme": "x"}, "hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]}}` + "\n"
			require.NoError(t, os.WriteFile(path, []byte(user), 0o644))

			c, err := inst.CheckHooks(root)
			require.NoError(t, err)
			assert.True(t, c.Exists)
			assert.Empty(t, c.Installed)
			assert.NotEmpty(t, c.Missing)
			assert.False(t, c.OK())

			_, err = inst.InstallHooks(root, false)
			require.NoError(t, err)
			c, err = inst.CheckHooks(root)
			require.NoError(t, err)
			assert.True(t, c.OK(), "%+v", c)
			assert.Empty(t, c.Missing)

			// A ccc hook ccc no longer writes there is stale.
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			stale := strings.Replace(string(data), `"./mine.sh"`, `"./mine.sh"}, {"type": "command", "command": "ccc hook retired"`, 1)
			require.NoError(t, os.WriteFile(path, []byte(stale), 0o644))
			c, err = inst.CheckHooks(root)
			require.NoError(t, err)
			assert.Equal(t, []string{"SessionEnd: ccc hook retired"}, c.Stale)

			// --remove takes out ccc's hooks only; --dry-run writes nothing.
			dry, err := inst.RemoveHooks(root, true)
			require.NoError(t, err)
			assert.True(t, dry.Changed)
			assert.Contains(t, dry.Diff, "-")
			after, _ := os.ReadFile(path)
			assert.Equal(t, stale, string(after))
			res, err := inst.RemoveHooks(root, false)
			require.NoError(t, err)
			assert.Equal(t, dry.Diff, res.Diff)
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.NotContains(t, string(got), "ccc hook")
			assert.Contains(t, string(got), `"./mine.sh"`)
			assert.Contains(t, string(got), `"theme": "x"`)
			c, err = inst.CheckHooks(root)
			require.NoError(t, err)
			assert.Empty(t, c.Installed)

			again, err := inst.RemoveHooks(root, false)
			require.NoError(t, err)
			assert.False(t, again.Changed, "idempotent")
		})
	}
}
