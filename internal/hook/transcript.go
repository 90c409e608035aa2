package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/capture"
)

// ErrNoTranscript is a transcript_path with no file behind it.
var ErrNoTranscript = errors.New("does not exist")

// LastOutput is the assistant's last output [c]: last_assistant_message when
// it is a non-empty string, else the text of the last assistant record of
// the transcript. A missing path or record is "". A path with no file is ""
// and an error wrapping ErrNoTranscript, for the caller to report: the stop
// then counts as a retry, and nobody would know why.
func LastOutput(in Input) (string, error) {
	if in.LastAssistantMessage != "" {
		return in.LastAssistantMessage, nil
	}
	if in.TranscriptPath == "" || (in.Agent != "" && in.Agent != Claude) {
		// Codex and Gemini logs are not Claude Code transcripts; both send
		// the reply itself (last_assistant_message, prompt_response).
		return "", nil
	}
	out, err := lastAssistantText(in.TranscriptPath)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("transcript_path %s %w", in.TranscriptPath, ErrNoTranscript)
	}
	if err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	return out, nil
}

// lastAssistantText reads a JSONL transcript backwards, line by line, and
// returns the text of the last record that is an assistant's. Only the tail
// up to that record is read: transcripts grow to many megabytes.
func lastAssistantText(path string) (string, error) {
	var text string
	err := capture.ScanBackward(path, func(line []byte) bool {
		t, ok := assistantText(line)
		if ok {
			text = t
		}
		return ok
	})
	return text, err
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
