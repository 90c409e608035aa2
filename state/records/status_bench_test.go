package records

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
)

// BenchmarkCollect is `ccc status` without the printing: Collect over a
// repository whose records directory holds n agents' records, each with 20
// subtasks, as ccc writes them. Compare n=1000 with n=10: the target is at
// most 3× (process start and git dominate the small case in the binary; here
// only the reading is timed).
func BenchmarkCollect(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			root := seededRepo(b)
			ctx := context.Background()
			dir, err := Dir(ctx, root)
			require.NoError(b, err)
			require.NoError(b, os.MkdirAll(dir, 0o755))
			for i := range n {
				s := Snapshot{Agent: fmt.Sprintf("agent-%04d", i), Issue: fmt.Sprintf("CIA-%d", i), Current: "the current task"}
				for k := range 20 {
					s.Completed = append(s.Completed, fmt.Sprintf("task %d", k))
				}
				data, err := Encode(build(nil, s, t0))
				require.NoError(b, err)
				require.NoError(b, os.WriteFile(filepath.Join(dir, s.Agent+".json"), data, 0o644))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				st, err := Collect(ctx, root, t0, config.Settings{Env: config.Env{ConfigDir: b.TempDir()}})
				if err != nil || len(st.Agents) != n {
					b.Fatal(err, len(st.Agents))
				}
			}
		})
	}
}
