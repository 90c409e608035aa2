package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// Claude Code 2.1.332 keeps the Task tools' list as one JSON file per task
// in <config>/tasks/<list-id>/<id>.json (cli.js: x0 = join(configDir,
// "tasks", sanitize(listId)); the folder also holds ".highwatermark" and a
// lock); the list id is $CLAUDE_CODE_TASK_LIST_ID, else the session's id
// (for a lone session). Ids and list ids are sanitized with
// /[^a-zA-Z0-9_-]/g → "-".

const (
	// MaxTasks bounds how many task files are read from one list.
	MaxTasks = 1000
	// maxTaskFile bounds one task file.
	maxTaskFile = 256 << 10
)

// sanitize is Claude Code's own file-name sanitizer for list and task ids.
func sanitize(s string) string { return capture.SafeID(s) }

// ConfigDir is $CLAUDE_CONFIG_DIR, else ~/.claude ("" when neither
// is known).
func ConfigDir(env config.ClaudeEnv) string {
	if d := env.ConfigDir; d != "" {
		return d
	}
	if h := env.Home; h != "" {
		return filepath.Join(h, ".claude")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".claude")
	}
	return ""
}

// ValidSessionID reports whether id can be a Claude Code session or list
// id as it names a folder: 1 to 128 of Claude Code's own id characters
// (letters, digits, '-', '_'), so never a path out of tasks/.
func ValidSessionID(id string) bool {
	return id != "" && len(id) <= 128 && sanitize(id) == id
}

// ListID is $CLAUDE_CODE_TASK_LIST_ID, else the session id.
func ListID(env config.ClaudeEnv, sessionID string) string {
	if id := env.TaskListID; id != "" {
		return id
	}
	return sessionID
}

// TaskDir is the folder of a session's task files; "" when there is
// no list id or no config folder.
func TaskDir(env config.ClaudeEnv, sessionID string) string {
	id, cfg := ListID(env, sessionID), ConfigDir(env)
	if id == "" || cfg == "" {
		return ""
	}
	return filepath.Join(cfg, "tasks", sanitize(id))
}

// claudeTask is a task file: {id, subject, description, activeForm?,
// owner?, status, blocks[], blockedBy[], metadata?}.
type claudeTask struct {
	ID          string   `json:"id"`
	Subject     string   `json:"subject"`
	Description string   `json:"description"`
	ActiveForm  string   `json:"activeForm"`
	Status      string   `json:"status"`
	BlockedBy   []string `json:"blockedBy"`
	Metadata    struct {
		// Internal marks Claude Code's own bookkeeping, which it hides
		// from the user's list: so does ccc.
		Internal json.RawMessage `json:"_internal"`
	} `json:"metadata"`
}

// internal reports whether metadata._internal is set (truthy, as Claude
// Code tests it).
func (t claudeTask) internal() bool {
	switch v := string(t.Metadata.Internal); v {
	case "", "null", "false", "0", `""`:
		return false
	}
	return true
}

// ReadTasks reads the task files of one list folder, ordered by id
// (numerically where the ids are numbers). Dot files (.highwatermark, the
// lock) and anything but *.json are skipped, and so is a file that is not
// a task (a half-written one is the next write's to fix). No folder or no
// task: ErrNoList.
func ReadTasks(dir string) (capture.List, error) {
	list := capture.List{Agent: name, Source: dir}
	if dir == "" {
		return list, capture.ErrNoList
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return list, capture.ErrNoList
	}
	if err != nil {
		return list, err
	}
	n := 0
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") || e.IsDir() {
			continue
		}
		if n++; n > MaxTasks {
			return list, fmt.Errorf("%s: more than %d tasks", dir, MaxTasks)
		}
		data, err := projectfs.ReadProjectFile("", filepath.Join(dir, name), maxTaskFile)
		if errors.Is(err, projectfs.ErrNotRegular) {
			// Claude Code writes regular files: a FIFO or a link to a
			// device was planted, and the list cannot be trusted whole.
			return list, err
		}
		if err != nil {
			continue // deleted since the listing, or too big to be a task
		}
		var t claudeTask
		if json.Unmarshal(data, &t) != nil || t.ID == "" || t.Subject == "" || t.internal() {
			continue
		}
		text := capture.Clean(t.Subject)
		if text == "" {
			continue
		}
		blockedBy := t.BlockedBy
		for i, id := range blockedBy {
			blockedBy[i] = sanitize(id)
		}
		// The id ends up in the task's mark, an HTML comment: Claude Code's
		// own file-name sanitizer keeps it one word.
		list.Tasks = append(list.Tasks, capture.Task{ID: sanitize(t.ID), Text: text, Status: capture.Status(t.Status),
			ActiveForm: capture.Clean(t.ActiveForm), BlockedBy: blockedBy})
	}
	if len(list.Tasks) == 0 {
		return list, capture.ErrNoList
	}
	sort.SliceStable(list.Tasks, func(i, j int) bool { return idLess(list.Tasks[i].ID, list.Tasks[j].ID) })
	return list, nil
}

// idLess orders "2" before "10", and numbers before other ids.
func idLess(a, b string) bool {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	switch {
	case errA == nil && errB == nil:
		return x < y
	case errA == nil || errB == nil:
		return errA == nil
	}
	return a < b
}

// todoWriteInput is TodoWriteInput of sdk-tools.d.ts: the whole list.
type todoWriteInput struct {
	Todos []struct {
		ID         string `json:"id"` // older Claude Code versions
		Content    string `json:"content"`
		Status     string `json:"status"`
		ActiveForm string `json:"activeForm"`
	} `json:"todos"`
}

// TodoWrite reads a TodoWrite tool input, which holds the whole list.
// Its items have no id (older versions gave one, kept when present): Fold
// knows such an item by its text.
func TodoWrite(input []byte, source string) (capture.List, error) {
	var in todoWriteInput
	if err := json.Unmarshal(input, &in); err != nil {
		return capture.List{}, fmt.Errorf("TodoWrite input: %w", err)
	}
	list := capture.List{Agent: name, Source: source, Tasks: make([]capture.Task, 0, len(in.Todos))}
	for _, t := range in.Todos {
		list.Tasks = append(list.Tasks, capture.Task{ID: t.ID, Text: capture.Clean(t.Content),
			Status: capture.Status(t.Status), ActiveForm: capture.Clean(t.ActiveForm)})
	}
	return list, nil
}
