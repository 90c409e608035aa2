package progress

import (
	"fmt"
	"strings"
	"testing"
)

// benchDoc builds a canonical document with n tasks, half of them completed.
func benchDoc(n int) []byte {
	var b strings.Builder
	b.WriteString("# Session Progress\n\n**Issue:** BENCH-1 — Benchmark\n**Session:** 2026-11-21T13:45:00Z\n**Execution Mode:** exec:quick\n\n## Completed Tasks\n")
	for i := 0; i < n/2; i++ {
		fmt.Fprintf(&b, "- task %d: migrate endpoint /api/v1/resource%d ✓\n", i, i)
	}
	b.WriteString("\n## Current Task\n- the current task — in progress\n\n## Remaining Tasks\n")
	for i := n/2 + 1; i < n; i++ {
		fmt.Fprintf(&b, "- task %d: migrate endpoint /api/v1/resource%d\n", i, i)
	}
	b.WriteString("\n## Decisions Made\n- batch by controller: smaller reviews\n\n## Blockers\n- None\n\n## Continuation Prompt\nResume BENCH-1.\n")
	return []byte(b.String())
}

var benchSizes = []int{10, 1000, 10000}

func BenchmarkParse(b *testing.B) {
	for _, n := range benchSizes {
		src := benchDoc(n)
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := Parse(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRender renders a document after a checkpoint's edit, so every task section is rewritten.
func BenchmarkRender(b *testing.B) {
	for _, n := range benchSizes {
		src := benchDoc(n)
		d, err := Parse(src)
		if err != nil {
			b.Fatal(err)
		}
		if err := d.Apply(Edits{Done: []string{""}, Session: "2026-11-21T14:00:00Z"}); err != nil {
			b.Fatal(err)
		}
		d.RefreshPrompt([]string{"a.go"}, true)
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				d.Render()
			}
		})
	}
}
