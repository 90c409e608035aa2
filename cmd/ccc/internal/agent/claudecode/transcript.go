package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

const (
	// MaxFiles bounds Transcript.Files.
	MaxFiles = 10
	// MaxScan bounds how much of a transcript is read looking for files and
	// the last line; the newest TodoWrite and the newest assistant record
	// are looked for in the whole file.
	MaxScan = 2 << 20
	// recordEnds is how near a record's start or end Claude Code writes
	// what says it is an assistant's: message.role early, type last. In
	// 2,288 assistant records of real transcripts (1.0.98 to 2.1.39,
	// testdata/real and the sources it names) "assistant" is within 97
	// bytes of the end; the body of a tool output is not searched.
	recordEnds = 256
	// ResultWindow bounds how far after a TodoWrite call its tool_result is
	// looked for: Claude Code writes it with the turn's other results,
	// right after the call.
	ResultWindow = 1 << 20
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
	textKey      = []byte(`"text"`)
	editKeys     = [][]byte{[]byte(`"Edit"`), []byte(`"Write"`), []byte(`"MultiEdit"`), []byte(`"NotebookEdit"`)}
)

// scan is a transcript read under way.
type scan struct {
	capture.Transcript
	// lastDone says the newest assistant record was seen.
	lastDone bool
}

// refusedAfter reports whether the tool_result of call id, in the
// ResultWindow bytes of path after end, says Claude Code refused the call
// (is_error). A refused TodoWrite never changed Claude's list; a result
// not found there is not a refusal.
func refusedAfter(path string, end int64, id string) bool {
	f, err := projectfs.OpenProjectFile("", path)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }()
	quoted := []byte(strconv.Quote(id))
	failed, found := false, false
	// A tool result line is small; a longer one is another tool's output.
	_, _ = capture.EachLine(io.NewSectionReader(f, end, ResultWindow), 256<<10, func(line []byte) {
		if !found && bytes.Contains(line, quoted) {
			failed, found = resultOf(line, id)
		}
	})
	return failed
}

// resultOf reads a user record's tool_result for call id: found, and
// whether it is an error.
func resultOf(line []byte, id string) (failed, found bool) {
	var rec struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &rec) != nil || len(rec.Message.Content) == 0 || rec.Message.Content[0] != '[' {
		return false, false
	}
	var items []struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
		IsError   bool   `json:"is_error"`
	}
	if json.Unmarshal(rec.Message.Content, &items) != nil {
		return false, false
	}
	for _, it := range items {
		if it.Type == "tool_result" && it.ToolUseID == id {
			return it.IsError, true
		}
	}
	return false, false
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
// did not refuse (its tool_result, looked for in the ResultWindow bytes
// after the call, has is_error). A subagent's lines (isSidechain) are
// skipped. Only lines holding "assistant" within recordEnds bytes of their
// start or end are looked at, and only those a cheap byte test says may
// matter are parsed. An assistant record over MaxLine where the
// newest one is looked for is an error, never a silent fall back to the
// message before it.
func ReadTranscript(path string, wantTodos bool) (capture.Transcript, error) {
	var tr scan
	seen := map[string]bool{}
	sc := capture.Scan{Keys: [][]byte{assistantKey}, Ends: recordEnds, Within: -1}
	err := sc.Backward(path, func(l capture.Line) (bool, error) {
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
		if !tr.lastDone {
			tr.LastText, tr.lastDone = assistantText(line)
		}
		if !tr.worth(line, near, wantTodos) {
			return false, nil
		}
		tr.take(line, near, wantTodos, path, l.Start+int64(len(line)), seen)
		return false, nil
	})
	return tr.Transcript, err
}

// take reads one assistant record's tool calls and text, newest first: its
// last text line, its TodoWrite list (unless refused) and the files its
// edits touched.
func (tr *scan) take(line []byte, near, wantTodos bool, path string, end int64, seen map[string]bool) {
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
		case it.Type == "tool_use" && it.Name == "TodoWrite" && tr.Todos == nil && wantTodos && !refusedAfter(path, end, it.ID):
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
	err = capture.Scan{Keys: [][]byte{todoWriteKey}, Within: MaxScan}.Backward(path, func(l capture.Line) (bool, error) {
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
