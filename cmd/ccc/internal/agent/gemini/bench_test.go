package gemini

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture/capturetest"
)

const logSize = 50 << 20

// BenchmarkReadChat50MB: the list at an AfterAgent from a 50 MB chat log.
func BenchmarkReadChat50MB(b *testing.B) {
	text := strings.Repeat("words ", 330)
	p := capturetest.BigLog(b, "session-big.jsonl", logSize, func(i int) string {
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
