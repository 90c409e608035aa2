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
// (the same ccc hook under the same event, whatever path to ccc) as a
// group of its own; the user's hooks and every other key are kept, in
// their order. A file that is not a JSON object is an error and is left
// alone.
func ClaudeWith(root string, dryRun bool, o ClaudeOptions) (Result, error) {
	path := filepath.Join(root, ClaudeSettings)
	res := Result{Path: path}
	orig, err := projectfs.ReadProjectFile(root, path, maxConfig)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, err
	}
	top := object{}
	if len(bytes.TrimSpace(orig)) > 0 {
		if top, err = parseObject(orig); err != nil {
			return res, fmt.Errorf("%s: not a JSON object; fix it or move it away, then run ccc init claude again", path)
		}
	}
	if raw, ok := top.get("hooks"); ok && !isObject(raw) {
		return res, fmt.Errorf("%s: \"hooks\" is not an object; left alone", path)
	}
	out, _, err := addHooks(orig, claudeHookList(), groupOf)
	if err != nil {
		var list *notListError
		if errors.As(err, &list) {
			return res, fmt.Errorf("%s: hooks.%s is not a list; left alone", path, list.event)
		}
		return res, fmt.Errorf("%s: %w", path, err)
	}
	if top, err = parseObject(out); err != nil {
		return res, err
	}
	envRaw, _ := top.get("env")
	env := object{}
	if isObject(envRaw) {
		env, _ = parseObject(envRaw)
	}
	if cur, set := env.get(TodoToolsEnv); o.TodoTools && string(cur) != `"1"` {
		env.set(TodoToolsEnv, json.RawMessage(`"1"`))
		v, err := marshal(env)
		if err != nil {
			return res, err
		}
		top.set("env", v)
		if out, err = render(top); err != nil {
			return res, err
		}
	} else if !set {
		res.Notes = append(res.Notes, "Claude Code gives newer models no checklist tool by default; ccc init claude --enable-todo-tools sets "+TodoToolsEnv+"=1 in the settings' env so ccc has a list to capture.")
	}
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

// claudeHookList is claudeHooks as the shared editor takes them.
func claudeHookList() []hook {
	out := make([]hook, len(claudeHooks))
	for i, h := range claudeHooks {
		out[i] = hook{Event: h.event, Matcher: h.matcher, Command: h.command, Timeout: h.timeout}
	}
	return out
}

// CheckClaude compares the project's .claude/settings.json with the hooks
// ccc init claude writes.
func CheckClaude(root string) (Check, error) {
	return checkHooks(root, filepath.Join(root, ClaudeSettings), claudeHookList())
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
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
