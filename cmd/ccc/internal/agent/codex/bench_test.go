package codex

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture/capturetest"
)

const logSize = 50 << 20

// BenchmarkReadRollout50MB: the plan at a Stop from a 50 MB rollout.
func BenchmarkReadRollout50MB(b *testing.B) {
	text := strings.Repeat("output ", 280)
	p := capturetest.BigLog(b, "rollout-big.jsonl", logSize, func(i int) string {
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
