package install

import (
	"path/filepath"
)

// alreadyThere and noneThere start the note of an edit that changes nothing.
const (
	alreadyThere = "the ccc hooks are already in"
	noneThere    = "no ccc hook in"
)

// Hook is one handler ccc adds for an agent's event.
type Hook struct {
	Event   string
	Matcher string
	Command string
	Timeout int // in the agent's unit
	// Name is the handler's name, for an agent that shows one (Gemini).
	Name string
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

func groupOf(h Hook) any {
	return matcherGroup{Matcher: h.Matcher, Hooks: []handler{{Type: "command", Name: h.Name, Command: h.Command, Timeout: h.Timeout}}}
}

// AddHooks writes hooks into the settings file root/file, keeping every
// other setting and hook: each hook the file does not already run (the same
// ccc hook under the same event, whatever path to ccc) is added as a matcher
// group of its own. A file that is not a JSON object (one with comments
// too) is not rewritten: the error says so. Idempotent; with dryRun it only
// says what it would change. The agent adds its own notes.
func AddHooks(root, file string, hooks []Hook, dryRun bool) (Result, error) {
	return writeConfig(filepath.Join(root, file), dryRun, alreadyThere, func(data []byte) ([]byte, []string, error) {
		return addHooks(data, hooks, groupOf)
	})
}

// Remove takes ccc's hooks (every handler running `ccc hook …`) out of the
// settings file at root/file, leaving everything else as it is; the
// groups and events they leave empty go too. No hook of ccc's: nothing
// to do, and nothing written.
func Remove(root, file string, dryRun bool) (Result, error) {
	return writeConfig(filepath.Join(root, file), dryRun, noneThere, removeHooks)
}

// CheckHooks compares the settings file root/file with the hooks the
// agent's installer writes.
func CheckHooks(root, file string, hooks []Hook) (Check, error) {
	return checkHooks(root, filepath.Join(root, file), hooks)
}
