package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// ClaudeSettings is the project's Claude Code settings file.
const ClaudeSettings = ".claude/settings.json"

// TodoToolsEnv turns Claude Code's checklist tool on for models that get
// none by default.
const TodoToolsEnv = "CLAUDE_CODE_ENABLE_TODO_TOOLS"

// claudeHook is one hook ccc wants in Claude Code, as plugin/hooks/hooks.json
// wires it.
type claudeHook struct {
	event, matcher, command string
	timeout                 int
}

// ClaudeHooks are the hooks `ccc init claude` writes, the plugin's set.
var claudeHooks = []claudeHook{
	{"Stop", "", "ccc hook stop", 30},
	{"PreCompact", "manual|auto", "ccc hook pre-compact", 30},
	{"SessionStart", "startup|resume|compact|clear", "ccc hook session-start", 15},
	{"SessionEnd", "", "ccc hook session-end", 10},
	{"PostToolUse", "TaskCreate|TaskUpdate|TodoWrite", "ccc hook post-tool-use", 10},
	{"TaskCompleted", "", "ccc hook task-completed", 30},
	{"PostCompact", "manual|auto", "ccc hook post-compact", 10},
	{"StopFailure", "", "ccc hook stop-failure", 30},
	{"SubagentStart", "", "ccc hook subagent-start", 5},
	{"SubagentStop", "", "ccc hook subagent-stop", 5},
}

// ClaudeOptions are what `ccc init claude` may add beyond the hooks.
type ClaudeOptions struct {
	// TodoTools sets CLAUDE_CODE_ENABLE_TODO_TOOLS=1 in the settings' env,
	// so that models that get no checklist tool by default get one.
	TodoTools bool
}

// Claude writes ccc's hooks into root's .claude/settings.json (see
// ClaudeWith).
func Claude(root string, dryRun bool) (Result, error) {
	return ClaudeWith(root, dryRun, ClaudeOptions{})
}

// ClaudeWith adds each of ccc's hooks that the settings do not already run
// (the same command under the same event) as a group of its own; the
// user's hooks and every other key are kept. A file that is not a JSON
// object is an error and is left alone. Keys are written in Go's order
// (sorted), two-space indented.
func ClaudeWith(root string, dryRun bool, o ClaudeOptions) (Result, error) {
	path := filepath.Join(root, ClaudeSettings)
	res := Result{Path: path}
	orig, err := projectfs.ReadProjectFile(root, path, 4<<20)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, err
	}
	settings := map[string]any{}
	if len(bytes.TrimSpace(orig)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(orig))
		dec.UseNumber()
		if err := dec.Decode(&settings); err != nil || settings == nil {
			return res, fmt.Errorf("%s: not a JSON object; fix it or move it away, then run ccc init claude again", path)
		}
	}
	hooks, ok := settings["hooks"].(map[string]any)
	if !ok {
		if settings["hooks"] != nil {
			return res, fmt.Errorf("%s: \"hooks\" is not an object; left alone", path)
		}
		hooks = map[string]any{}
	}
	for _, h := range claudeHooks {
		groups, _ := hooks[h.event].([]any)
		if hooks[h.event] != nil && groups == nil {
			return res, fmt.Errorf("%s: hooks.%s is not a list; left alone", path, h.event)
		}
		if runs(groups, h.command) {
			continue
		}
		g := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": h.command, "timeout": h.timeout}}}
		if h.matcher != "" {
			g["matcher"] = h.matcher
		}
		hooks[h.event] = append(groups, g)
	}
	settings["hooks"] = hooks
	env, _ := settings["env"].(map[string]any)
	if o.TodoTools {
		if env == nil {
			env = map[string]any{}
		}
		env[TodoToolsEnv] = "1"
		settings["env"] = env
	} else if env[TodoToolsEnv] == nil {
		res.Notes = append(res.Notes, "Claude Code gives newer models no checklist tool by default; ccc init claude --enable-todo-tools sets "+TodoToolsEnv+"=1 in the settings' env so ccc has a list to capture.")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(settings); err != nil {
		return res, err
	}
	out := buf.Bytes()
	if bytes.Equal(out, orig) || (len(orig) > 0 && jsonEqual(orig, out)) {
		return res, nil
	}
	res.Changed, res.Diff = true, unifiedDiff(path, orig, out)
	res.Notes = append(res.Notes, "If the ccc plugin is installed too, its hooks run the same commands: keep one of the two.")
	if dryRun {
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return res, err
	}
	var expect []byte
	if orig != nil {
		expect = orig
	}
	if err := projectfs.ReplaceFile(path, expect, out, 0o644); err != nil {
		return res, err
	}
	return res, nil
}

// runs reports whether any hook of the groups runs command.
func runs(groups []any, command string) bool {
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		hs, _ := gm["hooks"].([]any)
		for _, h := range hs {
			hm, _ := h.(map[string]any)
			if c, _ := hm["command"].(string); c == command {
				return true
			}
		}
	}
	return false
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
