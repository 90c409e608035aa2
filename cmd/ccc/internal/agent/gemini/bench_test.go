package gemini

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigLog writes a log of about size bytes: filler lines of ~2 KiB with a
// checklist call every 500 lines and at the end.
func bigLog(b *testing.B, name string, size int, filler, call func(i int) string) string {
	b.Helper()
	var buf bytes.Buffer
	for i := 0; buf.Len() < size; i++ {
		if i%500 == 0 {
			buf.WriteString(call(i) + "\n")
		}
		buf.WriteString(filler(i) + "\n")
	}
	buf.WriteString(call(-1) + "\n")
	p := filepath.Join(b.TempDir(), name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

const logSize = 50 << 20

// BenchmarkReadChat50MB: the list at an AfterAgent from a 50 MB chat log.
func BenchmarkReadChat50MB(b *testing.B) {
	text := strings.Repeat("words ", 330)
	p := bigLog(b, "session-big.jsonl", logSize, func(i int) string {
		return fmt.Sprintf(`{"id":"m%d","timestamp":"2026-11-25T16:00:00.000Z","type":"gemini","content":"%s","thoughts":[],"model":"gemini-3-pro-preview"}`, i, text)
	}, func(i int) string {
		return fmt.Sprintf(`{"id":"t%d","timestamp":"2026-11-25T16:00:00.000Z","type":"gemini","content":"","toolCalls":[{"id":"w","name":"write_todos","args":{"todos":[{"description":"Lex","status":"completed"},{"description":"Parse","status":"in_progress"}]},"status":"success"}]}`, i)
	})
	b.SetBytes(logSize)
	b.ResetTimer()
	for range b.N {
		if _, err := ReadChat(p); err != nil {
			b.Fatal(err)
		}
	}
}
