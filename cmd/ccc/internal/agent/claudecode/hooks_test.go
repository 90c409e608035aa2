package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/install"
)

const userSettings = `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "./scripts/notify.sh"}]}],
    "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "gofmt -w ."}]}]
  }
}
`

func read(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	return m
}

func commands(settings map[string]any, event string) []string {
	var out []string
	groups, _ := settings["hooks"].(map[string]any)[event].([]any)
	for _, g := range groups {
		for _, h := range g.(map[string]any)["hooks"].([]any) {
			out = append(out, h.(map[string]any)["command"].(string))
		}
	}
	return out
}

func TestInstallKeepsTheUsersHooks(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, SettingsFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(userSettings), 0o644))

	dry, err := Install(root, true, InstallOptions{})
	require.NoError(t, err)
	assert.True(t, dry.Changed)
	assert.Contains(t, dry.Diff, `+            "command": "ccc hook post-tool-use",`)
	data, _ := os.ReadFile(path)
	assert.Equal(t, userSettings, string(data), "a dry run writes nothing")

	res, err := Install(root, false, InstallOptions{})
	require.NoError(t, err)
	assert.True(t, res.Changed)
	assert.Equal(t, dry.Diff, res.Diff)
	s := read(t, path)
	assert.Equal(t, []string{"./scripts/notify.sh", "ccc hook stop"}, commands(s, "Stop"), "the user's hook stays first")
	assert.Equal(t, []string{"gofmt -w .", "ccc hook post-tool-use"}, commands(s, "PostToolUse"))
	assert.Equal(t, []any{"Bash(go test:*)"}, s["permissions"].(map[string]any)["allow"])
	assert.Nil(t, s["env"], "the todo tools are offered, never set")
	assert.Contains(t, res.Notes[0], "--enable-todo-tools")

	again, err := Install(root, false, InstallOptions{})
	require.NoError(t, err)
	assert.False(t, again.Changed, "idempotent")
	assert.Empty(t, again.Diff)
}

func TestInstallNewFileAndTodoTools(t *testing.T) {
	root := t.TempDir()
	res, err := Install(root, false, InstallOptions{TodoTools: true})
	require.NoError(t, err)
	assert.True(t, res.Changed)
	s := read(t, filepath.Join(root, SettingsFile))
	assert.Equal(t, map[string]any{TodoToolsEnv: "1"}, s["env"])
	for _, h := range hooks {
		assert.Equal(t, []string{h.Command}, commands(s, h.Event), h.Event)
	}
	for _, n := range res.Notes {
		assert.NotContains(t, n, "--enable-todo-tools")
	}
}

func TestInstallRefusesWhatItCannotRead(t *testing.T) {
	for name, text := range map[string]string{
		"not JSON": "{", "an array": "[]", "hooks a list": `{"hooks": []}`, "an event a string": `{"hooks": {"Stop": "x"}}`,
	} {
		root := t.TempDir()
		path := filepath.Join(root, SettingsFile)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		_, err := Install(root, false, InstallOptions{})
		assert.Error(t, err, name)
		data, _ := os.ReadFile(path)
		assert.Equal(t, text, string(data), "%s: left alone", name)
	}
}

// The installer wires what the plugin wires; the plugin runs ccc through its
// launcher, a project's settings run the ccc on the PATH.
func TestHooksMatchThePlugin(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "..", "plugin", "hooks", "hooks.json"))
	require.NoError(t, err)
	var plugin struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal(data, &plugin))
	var got []install.Hook
	for event, groups := range plugin.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				command := strings.Replace(h.Command, `"${CLAUDE_PLUGIN_ROOT}/bin/ccc" `, "ccc ", 1)
				got = append(got, install.Hook{Event: event, Matcher: g.Matcher, Command: command, Timeout: h.Timeout})
			}
		}
	}
	assert.ElementsMatch(t, hooks, got)
}

// The settings keep their keys in the user's order: only ccc's hooks are
// added, at the end of their event (or as new events at the end).
func TestInstallKeepsKeyOrder(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, SettingsFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	orig := `{
  "permissions": {"allow": ["Bash(make:*)"]},
  "model": "opus",
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "./notify.sh"}]}]
  },
  "env": {"ZED": "1", "ALPHA": "2"}
}
`
	require.NoError(t, os.WriteFile(path, []byte(orig), 0o644))
	_, err := Install(root, false, InstallOptions{TodoTools: true})
	require.NoError(t, err)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	s := string(got)
	order := []string{`"permissions"`, `"model"`, `"hooks"`, `"Stop"`, `"./notify.sh"`, `"ccc hook stop"`, `"PreCompact"`, `"env"`, `"ZED"`, `"ALPHA"`, `"CLAUDE_CODE_ENABLE_TODO_TOOLS"`}
	last := -1
	for _, k := range order {
		i := strings.Index(s, k)
		require.Greater(t, i, last, "%s out of order in\n%s", k, s)
		last = i
	}
}
