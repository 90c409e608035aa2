package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
)

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
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Text  string          `json:"text"`
	Input json.RawMessage `json:"input"`
}

var (
	todoWriteKey = []byte(`"TodoWrite"`)
	assistantKey = []byte(`"assistant"`)
	isErrorKey   = []byte(`"is_error"`)
	textKey      = []byte(`"text"`)
	editKeys     = [][]byte{[]byte(`"Edit"`), []byte(`"Write"`), []byte(`"MultiEdit"`), []byte(`"NotebookEdit"`)}
)

// scan is a transcript read under way.
type scan struct {
	capture.Transcript
	// lastDone says the newest assistant record was seen.
	lastDone bool
	// refused holds the ids of tool calls whose result was an error: read
	// backwards, a result comes before its call. A refused TodoWrite never
	// changed Claude's list.
	refused map[string]bool
}

// results notes the refused calls of a user record (tool_result items
// with is_error true).
func (tr *scan) results(line []byte) {
	var rec struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &rec) != nil || len(rec.Message.Content) == 0 || rec.Message.Content[0] != '[' {
		return
	}
	var items []struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
		IsError   bool   `json:"is_error"`
	}
	if json.Unmarshal(rec.Message.Content, &items) != nil {
		return
	}
	for _, it := range items {
		if it.Type == "tool_result" && it.IsError && it.ToolUseID != "" {
			if tr.refused == nil {
				tr.refused = map[string]bool{}
			}
			tr.refused[it.ToolUseID] = true
		}
	}
}

// worth reports whether a line may hold what the scan still looks for; only
// such lines are parsed.
func (tr *scan) worth(line []byte, near, wantTodos bool) bool {
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

// ReadTranscript reads a transcript backwards, once, with
// capture.ScanBackward: the newest assistant record's text anywhere, the last
// assistant line and the files touched within its last MaxScan bytes,
// and, when wantTodos, the newest TodoWrite list anywhere that Claude Code
// did not refuse (its tool_result is_error). A subagent's lines
// (isSidechain) are skipped. Only lines holding
// "assistant" (and "is_error", for the refusals) are looked at, and only those a cheap byte test
// says may matter are parsed. An assistant record over MaxLine where the
// newest one is looked for is an error, never a silent fall back to the
// message before it.
func ReadTranscript(path string, wantTodos bool) (capture.Transcript, error) {
	var tr scan
	seen := map[string]bool{}
	keys := [][]byte{assistantKey}
	if wantTodos {
		keys = append(keys, isErrorKey)
	}
	err := capture.ScanBackward(path, keys, func(l capture.Line) (bool, error) {
		near := l.FromEnd <= MaxScan
		if !near && tr.lastDone && (tr.Todos != nil || !wantTodos) {
			return true, nil
		}
		if sidechain(l.Text) {
			return false, nil // a subagent's: neither its list nor its messages are the session's
		}
		if l.Cut {
			if !tr.lastDone && startsAssistant(l.Text) {
				return true, fmt.Errorf("%s: an assistant record over %d MB", path, capture.MaxLine>>20)
			}
			return false, nil
		}
		line := l.Text
		if wantTodos && tr.Todos == nil && bytes.Contains(line, isErrorKey) {
			tr.results(line)
		}
		if !tr.lastDone {
			tr.LastText, tr.lastDone = assistantText(line)
		}
		if !tr.worth(line, near, wantTodos) {
			return false, nil
		}
		tr.take(line, near, wantTodos, path, seen)
		return false, nil
	})
	return tr.Transcript, err
}

// take reads one assistant record's tool calls and text, newest first: its
// last text line, its TodoWrite list (unless refused) and the files its
// edits touched.
func (tr *scan) take(line []byte, near, wantTodos bool, path string, seen map[string]bool) {
	var rec struct {
		Message struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Message.Role != "assistant" {
		return
	}
	var items []toolUse
	if len(rec.Message.Content) == 0 || rec.Message.Content[0] != '[' || json.Unmarshal(rec.Message.Content, &items) != nil {
		return
	}
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		switch {
		case it.Type == "text" && tr.LastLine == "" && near:
			tr.LastLine = lastLine(it.Text)
		case it.Type == "tool_use" && it.Name == "TodoWrite" && tr.Todos == nil && wantTodos && !tr.refused[it.ID]:
			if l, err := TodoWrite(it.Input, path); err == nil {
				tr.Todos = &l
			}
		case it.Type == "tool_use" && near && len(tr.Files) < MaxFiles:
			if p := editedPath(it); p != "" && !seen[p] {
				seen[p] = true
				tr.Files = append(tr.Files, p)
			}
		}
	}
}

// ErrSubagentCall is a TodoWrite call a subagent made that Claude Code
// reported as the session's (no agent_id): its list is the subagent's own.
// It wraps capture.ErrNoList: the session's list did not change.
var ErrSubagentCall = fmt.Errorf("a subagent's TodoWrite (isSidechain in the transcript): %w", capture.ErrNoList)

// SubagentCall reports whether the TodoWrite call whose input is input was
// a subagent's: the newest call of the transcript with that same list is on
// a subagent's line (isSidechain). Claude Code 1.0.x sends PostToolUse for
// a subagent's calls with the session's own fields and no agent_id, and
// writes the subagent's lines into the session's transcript. Only the
// transcript's last MaxScan bytes are read, where Claude Code has just
// written the call; a call not found there is the session's.
func SubagentCall(path string, input []byte) (bool, error) {
	want, err := TodoWrite(input, "")
	if err != nil {
		return false, err
	}
	side := false
	err = capture.ScanBackwardWithin(path, [][]byte{todoWriteKey}, MaxScan, func(l capture.Line) (bool, error) {
		if l.Cut {
			return false, nil
		}
		var rec struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		var items []toolUse
		if json.Unmarshal(l.Text, &rec) != nil || len(rec.Message.Content) == 0 || rec.Message.Content[0] != '[' ||
			json.Unmarshal(rec.Message.Content, &items) != nil {
			return false, nil
		}
		for i := len(items) - 1; i >= 0; i-- {
			if items[i].Type != "tool_use" || items[i].Name != "TodoWrite" {
				continue
			}
			if got, err := TodoWrite(items[i].Input, ""); err == nil && slices.EqualFunc(got.Tasks, want.Tasks, sameTask) {
				side = sidechain(l.Text)
				return true, nil
			}
		}
		return false, nil
	})
	if errors.Is(err, capture.ErrNoList) {
		err = nil
	}
	return side, err
}

func sameTask(a, b capture.Task) bool {
	return a.ID == b.ID && a.Text == b.Text && a.Status == b.Status && a.ActiveForm == b.ActiveForm
}

// sidechain reports whether a transcript line is a subagent's (Claude Code
// writes "isSidechain":true near a record's start). Inside a string the
// quotes would be escaped, so text quoting the key does not match.
func sidechain(line []byte) bool {
	return bytes.Contains(line, []byte(`"isSidechain":true`)) || bytes.Contains(line, []byte(`"isSidechain": true`))
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
	return capture.Clean(lines[len(lines)-1])
}
