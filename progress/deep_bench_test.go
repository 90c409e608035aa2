package progress

import (
	"strings"
	"testing"
)

// BenchmarkParseAtLimits parses the costliest shapes markdown.Limit still lets through (each just under
// MaxWork or MaxLines), to show that no accepted file takes a hook's budget. Before the limit, 20 KB nested 10,000
// levels deep took seconds and 8 MB of it minutes and gigabytes.
func BenchmarkParseAtLimits(b *testing.B) {
	head := "# P\n\n## Current Task\n- t\n\n## Completed Tasks\n"
	deep := strings.Repeat("- ", 100) + "x\n"
	shapes := []struct{ name, body string }{
		{"flat-list", strings.Repeat("- x\n", 149_000)},
		{"tasks", string(benchDoc(149_000))},
		{"paragraph-lines", strings.Repeat("some text of a paragraph line that is long enough\n", 149_000)},
		{"deep-every-line", strings.Repeat(deep, 950)},
		{"deep-then-blank", deep + strings.Repeat("\n", 950)},
		{"deep-then-lazy", deep + strings.Repeat("y\n", 950)},
		{"deep-then-indented", deep + strings.Repeat(strings.Repeat("  ", 100)+"y\n", 950)},
		{"quotes-every-line", strings.Repeat(strings.Repeat("> ", 100)+"x\n", 950)},
	}
	for _, sh := range shapes {
		src := []byte(head + sh.body)
		if err := Check("p.md", src); err != nil {
			b.Fatal(sh.name, err)
		}
		b.Run(sh.name, func(b *testing.B) {
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
