package progress

import (
	"fmt"
	"testing"
)

// BenchmarkAlignTo aligns a document to a plan far ahead of it (every task
// but the last finished) and far behind it (every task back in the queue):
// the work the stop hook does when CCC's loop and the file disagree. Time and
// bytes grow linearly with the tasks.
func BenchmarkAlignTo(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		for _, c := range []struct {
			name     string
			from, to int
		}{{"ahead", 0, n - 1}, {"behind", n - 1, 0}} {
			b.Run(fmt.Sprintf("%s/tasks=%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					b.StopTimer()
					d := longDoc(n, c.from, false)
					b.StartTimer()
					d.AlignTo(c.to, n)
				}
			})
		}
	}
}
