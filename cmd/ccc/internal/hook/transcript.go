package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// scanChunk is how much of the transcript is read at a time, from the end.
const scanChunk = 64 << 10

// maxTranscriptLine bounds the one transcript record held in memory: a
// longer line is tool output (Claude Code writes each content block of a
// message as its own record, and the assistant's last text is a few KB),
// skipped without being kept.
const maxTranscriptLine = 4 << 20

// headSize is how much of a skipped line's start is kept to tell whether it
// was an assistant record.
const headSize = 4 << 10

// assistantKey is in every line that can be an assistant record ("role":
// "assistant", spaced or not); a tool output that mentions the word holds
// it escaped (\"assistant\"), so lines without it are skipped undecoded.
var assistantKey = []byte(`"assistant"`)

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

// lastAssistantText reads a JSONL transcript backwards, in scanChunk
// pieces, and returns the text of the last record that is an assistant's.
// Only the tail up to that record is read (transcripts grow to many
// megabytes); a line without assistantKey is neither kept nor decoded, and
// a line with it is read whole only when it is at most maxTranscriptLine
// long. A longer one is skipped, unless it starts like an assistant
// record: that is an error rather than a silent fall back to an older
// message.
func lastAssistantText(path string) (string, error) {
	// Claude Code's file, outside the project: no confinement, but never
	// a FIFO (it would block the open) or a device.
	f, err := projectfs.OpenProjectFile("", path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	var (
		pos     = fi.Size()
		buf     = make([]byte, scanChunk)
		lineEnd = pos  // where the line being scanned ends (its '\n' or EOF)
		found   bool   // the part of that line scanned so far holds assistantKey
		seam    []byte // the first bytes of the chunk read before this one
		chunk   []byte // the chunk being scanned, read at pos
	)
	// line looks at the line [start, lineEnd) once assistantKey is found in
	// it; it reports whether the search is over.
	line := func(start int64) (string, bool, error) {
		n := lineEnd - start
		if n > maxTranscriptLine {
			head := make([]byte, headSize)
			k, err := f.ReadAt(head, start)
			if err != nil && !errors.Is(err, io.EOF) {
				return "", true, err
			}
			if startsAssistant(head[:k]) {
				return "", true, fmt.Errorf("%s: an assistant record over %d MB", path, maxTranscriptLine>>20)
			}
			return "", false, nil
		}
		var l []byte
		if start >= pos && lineEnd <= pos+int64(len(chunk)) {
			l = chunk[start-pos : lineEnd-pos]
		} else {
			l = make([]byte, n)
			if _, err := f.ReadAt(l, start); err != nil && !errors.Is(err, io.EOF) {
				return "", true, err
			}
		}
		text, ok := assistantText(l)
		return text, ok, nil
	}
	for pos > 0 {
		n := min(int64(scanChunk), pos)
		pos -= n
		chunk = buf[:n]
		if _, err := f.ReadAt(chunk, pos); err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		end := len(chunk)
		for {
			i := bytes.LastIndexByte(chunk[:end], '\n')
			if !found {
				piece := chunk[i+1 : end]
				found = bytes.Contains(piece, assistantKey)
				if !found && end == len(chunk) && len(seam) > 0 {
					// assistantKey across the chunks' boundary.
					k := len(assistantKey) - 1
					joined := append(append([]byte(nil), piece[max(0, len(piece)-k):]...), seam...)
					found = bytes.Contains(joined, assistantKey)
				}
			}
			if i < 0 {
				break
			}
			if found {
				if text, ok, err := line(pos + int64(i) + 1); ok || err != nil {
					return text, err
				}
			}
			found, lineEnd, end = false, pos+int64(i), i
		}
		seam = append(seam[:0], chunk[:min(len(chunk), len(assistantKey)-1)]...)
	}
	if !found {
		return "", nil
	}
	text, _, err := line(0)
	return text, err
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
