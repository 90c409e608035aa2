package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestClaudeKeepsTheUsersHooks(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ClaudeSettings)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(userSettings), 0o644))

	dry, err := Claude(root, true)
	require.NoError(t, err)
	assert.True(t, dry.Changed)
	assert.Contains(t, dry.Diff, `+            "command": "ccc hook post-tool-use",`)
	data, _ := os.ReadFile(path)
	assert.Equal(t, userSettings, string(data), "a dry run writes nothing")

	res, err := Claude(root, false)
	require.NoError(t, err)
	assert.True(t, res.Changed)
	assert.Equal(t, dry.Diff, res.Diff)
	s := read(t, path)
	assert.Equal(t, []string{"./scripts/notify.sh", "ccc hook stop"}, commands(s, "Stop"), "the user's hook stays first")
	assert.Equal(t, []string{"gofmt -w .", "ccc hook post-tool-use"}, commands(s, "PostToolUse"))
	assert.Equal(t, []any{"Bash(go test:*)"}, s["permissions"].(map[string]any)["allow"])
	assert.Nil(t, s["env"], "the todo tools are offered, never set")
	assert.Contains(t, res.Notes[0], "--enable-todo-tools")

	again, err := Claude(root, false)
	require.NoError(t, err)
	assert.False(t, again.Changed, "idempotent")
	assert.Empty(t, again.Diff)
}

func TestClaudeNewFileAndTodoTools(t *testing.T) {
	root := t.TempDir()
	res, err := ClaudeWith(root, false, ClaudeOptions{TodoTools: true})
	require.NoError(t, err)
	assert.True(t, res.Changed)
	s := read(t, filepath.Join(root, ClaudeSettings))
	assert.Equal(t, map[string]any{TodoToolsEnv: "1"}, s["env"])
	for _, h := range claudeHooks {
		assert.Equal(t, []string{h.command}, commands(s, h.event), h.event)
	}
	for _, n := range res.Notes {
		assert.NotContains(t, n, "--enable-todo-tools")
	}
}

func TestClaudeRefusesWhatItCannotRead(t *testing.T) {
	for name, text := range map[string]string{
		"not JSON": "{", "an array": "[]", "hooks a list": `{"hooks": []}`, "an event a string": `{"hooks": {"Stop": "x"}}`,
	} {
		root := t.TempDir()
		path := filepath.Join(root, ClaudeSettings)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		_, err := Claude(root, false)
		assert.Error(t, err, name)
		data, _ := os.ReadFile(path)
		assert.Equal(t, text, string(data), "%s: left alone", name)
	}
}

// The installer wires what the plugin wires; the plugin runs ccc through its
// launcher, a project's settings run the ccc on the PATH.
func TestClaudeHooksMatchThePlugin(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "plugin", "hooks", "hooks.json"))
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
	var got []claudeHook
	for event, groups := range plugin.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				command := strings.Replace(h.Command, `"${CLAUDE_PLUGIN_ROOT}/bin/ccc" `, "ccc ", 1)
				got = append(got, claudeHook{event, g.Matcher, command, h.Timeout})
			}
		}
	}
	assert.ElementsMatch(t, claudeHooks, got)
}

func TestUnifiedDiff(t *testing.T) {
	assert.Empty(t, unifiedDiff("f", []byte("a\n"), []byte("a\n")))
	assert.Equal(t, "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n", unifiedDiff("f", []byte("a\nb\nd\n"), []byte("a\nc\nd\n")))
	assert.Equal(t, "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+x\n", unifiedDiff("f", nil, []byte("x\n")))
}

// The settings keep their keys in the user's order: only ccc's hooks are
// added, at the end of their event (or as new events at the end).
func TestClaudeKeepsKeyOrder(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ClaudeSettings)
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
	_, err := ClaudeWith(root, false, ClaudeOptions{TodoTools: true})
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

func TestCheckAndRemove(t *testing.T) {
	for _, a := range []struct {
		name    string
		file    string
		install installer
		check   func(string) (Check, error)
	}{
		{"claude", ClaudeSettings, Claude, CheckClaude},
		{"codex", CodexFile, Codex, CheckCodex},
		{"gemini", GeminiFile, Gemini, CheckGemini},
	} {
		t.Run(a.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, a.file)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			user := `{"ui": {"theme": "x"}, "hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]}}` + "\n"
			require.NoError(t, os.WriteFile(path, []byte(user), 0o644))

			c, err := a.check(root)
			require.NoError(t, err)
			assert.True(t, c.Exists)
			assert.Empty(t, c.Installed)
			assert.NotEmpty(t, c.Missing)
			assert.False(t, c.OK())

			_, err = a.install(root, false)
			require.NoError(t, err)
			c, err = a.check(root)
			require.NoError(t, err)
			assert.True(t, c.OK(), "%+v", c)
			assert.Empty(t, c.Missing)

			// A ccc hook ccc no longer writes there is stale.
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			stale := strings.Replace(string(data), `"./mine.sh"`, `"./mine.sh"}, {"type": "command", "command": "ccc hook retired"`, 1)
			require.NoError(t, os.WriteFile(path, []byte(stale), 0o644))
			c, err = a.check(root)
			require.NoError(t, err)
			assert.Equal(t, []string{"SessionEnd: ccc hook retired"}, c.Stale)

			// --remove takes out ccc's hooks only; --dry-run writes nothing.
			dry, err := Remove(root, a.file, true)
			require.NoError(t, err)
			assert.True(t, dry.Changed)
			assert.Contains(t, dry.Diff, "-")
			after, _ := os.ReadFile(path)
			assert.Equal(t, stale, string(after))
			res, err := Remove(root, a.file, false)
			require.NoError(t, err)
			assert.Equal(t, dry.Diff, res.Diff)
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.NotContains(t, string(got), "ccc hook")
			assert.Contains(t, string(got), `"./mine.sh"`)
			assert.Contains(t, string(got), `"theme": "x"`)
			c, err = a.check(root)
			require.NoError(t, err)
			assert.Empty(t, c.Installed)

			again, err := Remove(root, a.file, false)
			require.NoError(t, err)
			assert.False(t, again.Changed, "idempotent")
		})
	}
}
