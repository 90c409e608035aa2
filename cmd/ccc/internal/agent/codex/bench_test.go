package codex

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

// BenchmarkReadRollout50MB: the plan at a Stop from a 50 MB rollout.
func BenchmarkReadRollout50MB(b *testing.B) {
	text := strings.Repeat("output ", 280)
	p := bigLog(b, "rollout-big.jsonl", logSize, func(i int) string {
		return fmt.Sprintf(`{"timestamp":"2026-11-25T16:00:00.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c%d","output":"%s"}}`, i, text)
	}, func(i int) string {
		return `{"timestamp":"2026-11-25T16:00:00.000Z","type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"Lex\",\"status\":\"completed\"},{\"step\":\"Parse\",\"status\":\"in_progress\"}]}","call_id":"p"}}`
	})
	b.SetBytes(logSize)
	b.ResetTimer()
	for range b.N {
		if _, err := ReadRollout(p); err != nil {
			b.Fatal(err)
		}
	}
}
