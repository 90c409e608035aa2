package install

import (
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// The project files the Codex and Gemini hooks go into.
const (
	CodexFile  = ".codex/hooks.json"
	GeminiFile = ".gemini/settings.json"
)

// alreadyThere and noneThere start the note of an edit that changes nothing.
const (
	alreadyThere = "the ccc hooks are already in"
	noneThere    = "no ccc hook in"
)

// codexHooks are ccc's hooks for Codex CLI (timeouts in seconds). Codex
// 0.169.0 has no event for its plan tool that ccc relies on, so the plan is
// read from the rollout log at these events.
var codexHooks = []hook{
	{Event: "SessionStart", Matcher: "startup|resume|compact", Command: "ccc hook --agent codex session-start", Timeout: 15},
	{Event: "PreCompact", Command: "ccc hook --agent codex pre-compact", Timeout: 30},
	{Event: "Stop", Command: "ccc hook --agent codex stop", Timeout: 30},
	{Event: "SessionEnd", Command: "ccc hook --agent codex session-end", Timeout: 10},
}

// geminiHooks are ccc's hooks for Gemini CLI (timeouts in milliseconds):
// AfterAgent plays Stop, PreCompress plays PreCompact, AfterTool on
// write_todos captures the list as it changes.
var geminiHooks = []hook{
	{Event: "SessionStart", Command: "ccc hook --agent gemini session-start", Timeout: 15000, Name: "ccc-session-start"},
	{Event: "AfterTool", Matcher: "^write_todos$", Command: "ccc hook --agent gemini capture", Timeout: 10000, Name: "ccc-capture"},
	{Event: "PreCompress", Command: "ccc hook --agent gemini pre-compact", Timeout: 30000, Name: "ccc-pre-compact"},
	{Event: "AfterAgent", Command: "ccc hook --agent gemini stop", Timeout: 30000, Name: "ccc-stop"},
	{Event: "SessionEnd", Command: "ccc hook --agent gemini session-end", Timeout: 10000, Name: "ccc-session-end"},
}

type handler struct {
	Type    string `json:"type"`
	Name    string `json:"name,omitempty"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

type matcherGroup struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

func groupOf(h hook) any {
	return matcherGroup{Matcher: h.Matcher, Hooks: []handler{{Type: "command", Name: h.Name, Command: h.Command, Timeout: h.Timeout}}}
}

// Codex writes ccc's hooks into root/.codex/hooks.json, the project layer
// Codex CLI reads beside .codex/config.toml. It never marks them trusted:
// Codex runs a project's hooks only in a trusted project and only hooks
// whose hash the user approved (stored in ~/.codex/config.toml under
// [hooks.state]); the notes tell the user how.
func Codex(root string, dryRun bool) (Result, error) {
	path := filepath.Join(root, CodexFile)
	res, err := writeConfig(path, dryRun, alreadyThere, func(data []byte) ([]byte, []string, error) {
		return addHooks(data, codexHooks, groupOf)
	})
	if err != nil {
		return res, err
	}
	if toml, err := projectfs.ReadProjectFile(root, filepath.Join(root, ".codex", "config.toml"), projectfs.MaxPrefsSize); err == nil && hasTOMLHooks(string(toml)) {
		res.Notes = append(res.Notes, ".codex/config.toml has a [hooks] table too: Codex reads both and warns; keep one")
	}
	res.Notes = append(res.Notes,
		"Codex runs these hooks only after you trust them: start codex in this project, trust the project if asked, then open /hooks and trust the ccc hooks (Codex keeps their hash in ~/.codex/config.toml; ccc never writes it)",
		"after a change to .codex/hooks.json Codex asks again")
	return res, nil
}

func hasTOMLHooks(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "[hooks]" || strings.HasPrefix(l, "[hooks.") || strings.HasPrefix(l, "[[hooks.") {
			return true
		}
	}
	return false
}

// Gemini writes ccc's hooks into root/.gemini/settings.json, keeping every
// other setting and hook. A settings file with comments (Gemini CLI allows
// them) is not rewritten: the error says so and the notes carry the hooks
// to add by hand.
func Gemini(root string, dryRun bool) (Result, error) {
	path := filepath.Join(root, GeminiFile)
	res, err := writeConfig(path, dryRun, alreadyThere, func(data []byte) ([]byte, []string, error) {
		return addHooks(data, geminiHooks, groupOf)
	})
	if err != nil {
		return res, err
	}
	res.Notes = append(res.Notes,
		"Gemini CLI runs project hooks only in a trusted folder (/permissions); the first session after this change warns about the new hooks once")
	return res, nil
}

// Remove takes ccc's hooks (every handler running `ccc hook …`) out of the
// settings file at root/file, leaving everything else as it is; the
// groups and events they leave empty go too. No hook of ccc's: nothing
// to do, and nothing written.
func Remove(root, file string, dryRun bool) (Result, error) {
	return writeConfig(filepath.Join(root, file), dryRun, noneThere, removeHooks)
}

// CheckCodex, CheckGemini and CheckClaude compare a project's settings
// with the hooks ccc init writes.
func CheckCodex(root string) (Check, error) {
	return checkHooks(root, filepath.Join(root, CodexFile), codexHooks)
}

func CheckGemini(root string) (Check, error) {
	return checkHooks(root, filepath.Join(root, GeminiFile), geminiHooks)
}
