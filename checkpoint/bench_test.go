package checkpoint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccc-checkpoint/ccc/progress"
)

// progressDoc is a progress file of n tasks, half of them completed, as
// progress's own benchmarks build it.
func progressDoc(n int) []byte {
	var b strings.Builder
	b.WriteString("# Session Progress\n\n**Issue:** BENCH-1\n**Session:** 2026-11-21T13:00:00Z\n**Execution Mode:** exec:quick\n\n## Completed Tasks\n")
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

// BenchmarkCheckpoint is an automated checkpoint (the stop hook's: persist,
// then the tracker step, here with no tracker) of a progress file of n
// tasks, restored before every run so each one rewrites it. The largest size
// is the 100,000 of issue 26 (markdown.Limit reads up to 150,000 lines).
// Time and bytes should grow linearly with the tasks.
func BenchmarkCheckpoint(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) {
			b.Setenv("HOME", b.TempDir())
			b.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
			b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			root := b.TempDir()
			for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-q", "--allow-empty", "-m", "initial"}} {
				cmd := exec.Command("git", args...)
				cmd.Dir = root
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatal(err, string(out))
				}
			}
			src := progressDoc(n)
			path := filepath.Join(root, progress.FileName)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				if err := os.WriteFile(path, src, 0o644); err != nil {
					b.Fatal(err)
				}
				cp := newCP(root, Automated, progress.Edits{})
				b.StartTimer()
				r := Run(context.Background(), cp, cp.Profile.Steps(cp))
				if r.Steps[0].Status != OK {
					b.Fatal(r.Steps[0])
				}
			}
		})
	}
}
