package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

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

var unsafeID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_-]`) })

// sanitize is Claude Code's own file-name sanitizer for list and task ids.
func sanitize(s string) string { return unsafeID().ReplaceAllString(s, "-") }

// ClaudeConfigDir is $CLAUDE_CONFIG_DIR, else ~/.claude ("" when neither
// is known).
func ClaudeConfigDir(env config.ClaudeEnv) string {
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
	return id != "" && len(id) <= 128 && !unsafeID().MatchString(id)
}

// ClaudeListID is $CLAUDE_CODE_TASK_LIST_ID, else the session id.
func ClaudeListID(env config.ClaudeEnv, sessionID string) string {
	if id := env.TaskListID; id != "" {
		return id
	}
	return sessionID
}

// ClaudeTaskDir is the folder of a session's task files; "" when there is
// no list id or no config folder.
func ClaudeTaskDir(env config.ClaudeEnv, sessionID string) string {
	id, cfg := ClaudeListID(env, sessionID), ClaudeConfigDir(env)
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
}

// ReadClaudeTasks reads the task files of one list folder, ordered by id
// (numerically where the ids are numbers). Dot files (.highwatermark, the
// lock) and anything but *.json are skipped, and so is a file that is not
// a task (a half-written one is the next write's to fix). No folder or no
// task: ErrNoList.
func ReadClaudeTasks(dir string) (List, error) {
	list := List{Agent: "claude", Source: dir}
	if dir == "" {
		return list, ErrNoList
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return list, ErrNoList
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
		if json.Unmarshal(data, &t) != nil || t.ID == "" || t.Subject == "" {
			continue
		}
		text := Clean(t.Subject)
		if text == "" {
			continue
		}
		blockedBy := t.BlockedBy
		for i, id := range blockedBy {
			blockedBy[i] = sanitize(id)
		}
		// The id ends up in the task's mark, an HTML comment: Claude Code's
		// own file-name sanitizer keeps it one word.
		list.Tasks = append(list.Tasks, Task{ID: sanitize(t.ID), Text: text, Status: Status(t.Status),
			ActiveForm: Clean(t.ActiveForm), BlockedBy: blockedBy})
	}
	if len(list.Tasks) == 0 {
		return list, ErrNoList
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
		Content    string `json:"content"`
		Status     string `json:"status"`
		ActiveForm string `json:"activeForm"`
	} `json:"todos"`
}

// ClaudeTodoWrite reads a TodoWrite tool input, which holds the whole list.
// The list has no ids: a task's id is its position, "todo-1" first.
func ClaudeTodoWrite(input []byte, source string) (List, error) {
	var in todoWriteInput
	if err := json.Unmarshal(input, &in); err != nil {
		return List{}, fmt.Errorf("TodoWrite input: %w", err)
	}
	list := List{Agent: "claude", Source: source, Tasks: make([]Task, 0, len(in.Todos))}
	for i, t := range in.Todos {
		list.Tasks = append(list.Tasks, Task{ID: "todo-" + strconv.Itoa(i+1), Text: Clean(t.Content),
			Status: Status(t.Status), ActiveForm: Clean(t.ActiveForm)})
	}
	return list, nil
}

// Transcript is what ccc reads from a Claude Code transcript, newest first.
type Transcript struct {
	// Todos is the newest TodoWrite call's list; nil when there is none.
	Todos *List
	// Files are the paths of the newest Edit, Write, MultiEdit and
	// NotebookEdit calls, newest first, each once, at most MaxFiles.
	Files []string
	// LastLine is the last line of the newest assistant text.
	LastLine string
	// LastText is the text of the newest assistant record, whole, wherever
	// it is: what the stop hook looks for TASK_COMPLETE in.
	LastText string
	// lastDone says the newest assistant record was seen.
	lastDone bool
}

const (
	// MaxFiles bounds Transcript.Files.
	MaxFiles = 10
	// MaxScan bounds how much of a transcript is read looking for files and
	// the last line; the newest TodoWrite and the newest assistant record
	// are looked for in the whole file.
	MaxScan = 2 << 20
)

// toolUse is one content item of an assistant record.
type toolUse struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Text  string          `json:"text"`
	Input json.RawMessage `json:"input"`
}

var (
	todoWriteKey = []byte(`"TodoWrite"`)
	assistantKey = []byte(`"assistant"`)
	textKey      = []byte(`"text"`)
	editKeys     = [][]byte{[]byte(`"Edit"`), []byte(`"Write"`), []byte(`"MultiEdit"`), []byte(`"NotebookEdit"`)}
)

// worth reports whether a line may hold what the scan still looks for; only
// such lines are parsed.
func (tr *Transcript) worth(line []byte, near, wantTodos bool) bool {
	if !bytes.Contains(line, assistantKey) {
		return false
	}
	if wantTodos && tr.Todos == nil && bytes.Contains(line, todoWriteKey) {
		return true
	}
	if !near {
		return false
	}
	if tr.LastLine == "" && bytes.Contains(line, textKey) {
		return true
	}
	if len(tr.Files) < MaxFiles {
		for _, k := range editKeys {
			if bytes.Contains(line, k) {
				return true
			}
		}
	}
	return false
}

// ReadClaudeTranscript reads a transcript backwards, once, with
// ScanBackward: the newest assistant record's text anywhere, the last
// assistant line and the files touched within its last MaxScan bytes,
// and, when wantTodos, the newest TodoWrite list anywhere. Only lines
// holding "assistant" are looked at, and only those a cheap byte test
// says may matter are parsed. An assistant record over MaxLine where the
// newest one is looked for is an error, never a silent fall back to the
// message before it.
func ReadClaudeTranscript(path string, wantTodos bool) (Transcript, error) {
	var tr Transcript
	seen := map[string]bool{}
	err := ScanBackward(path, assistantKey, func(l Line) (bool, error) {
		near := l.FromEnd <= MaxScan
		if !near && tr.lastDone && (tr.Todos != nil || !wantTodos) {
			return true, nil
		}
		if l.Cut {
			if !tr.lastDone && startsAssistant(l.Text) {
				return true, fmt.Errorf("%s: an assistant record over %d MB", path, MaxLine>>20)
			}
			return false, nil
		}
		line := l.Text
		if !tr.lastDone {
			tr.LastText, tr.lastDone = assistantText(line)
		}
		if !tr.worth(line, near, wantTodos) {
			return false, nil
		}
		var rec struct {
			Message struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &rec) != nil || rec.Message.Role != "assistant" {
			return false, nil
		}
		var items []toolUse
		if len(rec.Message.Content) == 0 || rec.Message.Content[0] != '[' || json.Unmarshal(rec.Message.Content, &items) != nil {
			return false, nil
		}
		for i := len(items) - 1; i >= 0; i-- {
			it := items[i]
			switch {
			case it.Type == "text" && tr.LastLine == "" && near:
				tr.LastLine = lastLine(it.Text)
			case it.Type == "tool_use" && it.Name == "TodoWrite" && tr.Todos == nil && wantTodos:
				if l, err := ClaudeTodoWrite(it.Input, path); err == nil {
					tr.Todos = &l
				}
			case it.Type == "tool_use" && near && len(tr.Files) < MaxFiles:
				if p := editedPath(it); p != "" && !seen[p] {
					seen[p] = true
					tr.Files = append(tr.Files, p)
				}
			}
		}
		return false, nil
	})
	return tr, err
}

// startsAssistant reports whether the start of a record says it is an
// assistant's: Claude Code puts "type" and message.role near the start.
func startsAssistant(head []byte) bool {
	for _, k := range [][]byte{[]byte(`"type":"assistant"`), []byte(`"role":"assistant"`)} {
		if bytes.Contains(head, k) {
			return true
		}
	}
	return false
}

// assistantText reports whether a transcript line is an assistant record
// (role or message.role "assistant") and returns its text: the text items
// of message.content joined with newlines, or a string content itself.
// Lines that are not JSON objects are skipped.
func assistantText(line []byte) (string, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return "", false
	}
	var rec struct {
		Role    json.RawMessage `json:"role"`
		Message json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return "", false
	}
	var msg struct {
		Role    json.RawMessage `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if len(rec.Message) > 0 && rec.Message[0] == '{' {
		_ = json.Unmarshal(rec.Message, &msg) // valid: the line parsed
	}
	if jsonString(rec.Role) != "assistant" && jsonString(msg.Role) != "assistant" {
		return "", false
	}
	if len(msg.Content) > 0 && msg.Content[0] == '"' {
		return jsonString(msg.Content), true
	}
	var items []json.RawMessage
	if len(msg.Content) == 0 || msg.Content[0] != '[' || json.Unmarshal(msg.Content, &items) != nil {
		return "", true
	}
	var texts []string
	for _, raw := range items {
		var item struct {
			Type json.RawMessage `json:"type"`
			Text json.RawMessage `json:"text"`
		}
		if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &item) != nil {
			continue
		}
		if jsonString(item.Type) == "text" {
			texts = append(texts, jsonString(item.Text))
		}
	}
	return strings.Join(texts, "\n"), true
}

// jsonString is raw's value when it is a JSON string, else "".
func jsonString(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return ""
	}
	return s
}

// editedPath is the file an Edit, Write, MultiEdit or NotebookEdit call
// changed (file_path; NotebookEdit's notebook_path).
func editedPath(it toolUse) string {
	switch it.Name {
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
	default:
		return ""
	}
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	if json.Unmarshal(it.Input, &in) != nil {
		return ""
	}
	if in.FilePath != "" {
		return in.FilePath
	}
	return in.NotebookPath
}

// lastLine is the last non-blank line of s, cleaned.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return Clean(lines[len(lines)-1])
}
