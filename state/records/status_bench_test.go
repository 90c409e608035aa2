package records

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
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
			manyRecords(b, root, n)
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

// manyRecords writes n agents' records as ccc writes them, each with 20
// completed steps and 20 subtasks, into root's records directory.
func manyRecords(t testing.TB, root string, n int) {
	t.Helper()
	dir, err := Dir(context.Background(), root)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for i := range n {
		s := Snapshot{Agent: fmt.Sprintf("agent-%04d", i), Issue: fmt.Sprintf("CIA-%d", i), Current: "the current task"}
		for k := range 20 {
			s.Completed = append(s.Completed, fmt.Sprintf("task %d", k))
		}
		data, err := Encode(build(nil, s, t0))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, s.Agent+".json"), data, 0o644))
	}
}

// TestCollectAllocationsPerRecord: Collect (ccc status) builds a row from a
// handful of each record's fields, so what it allocates per record does not
// grow with the record's task list: 210 records against 10, the difference
// per record. Decoding every record whole cost 92 allocations a record of
// 20 tasks (issue 26), and the bytes it allocates per record.
func TestCollectAllocationsPerRecord(t *testing.T) {
	settings := config.Settings{Env: config.Env{ConfigDir: t.TempDir()}}
	// costs are Collect's allocations and bytes allocated, the least of 3.
	costs := func(n int) (allocs, bytes float64) {
		root := seededRepo(t)
		manyRecords(t, root, n)
		collect := func() {
			st, err := Collect(context.Background(), root, t0, settings)
			if err != nil || len(st.Agents) != n {
				t.Fatal(err, len(st.Agents))
			}
		}
		allocs = testing.AllocsPerRun(3, collect)
		for range 3 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			collect()
			runtime.ReadMemStats(&after)
			if b := float64(after.TotalAlloc - before.TotalAlloc); bytes == 0 || b < bytes {
				bytes = b
			}
		}
		return allocs, bytes
	}
	smallAllocs, smallBytes := costs(10)
	largeAllocs, largeBytes := costs(210)
	perRecord, bytesPerRecord := (largeAllocs-smallAllocs)/200, (largeBytes-smallBytes)/200
	t.Logf("allocations: %.0f for 10 records, %.0f for 210: %.1f per record; bytes: %.0f, %.0f: %.0f per record",
		smallAllocs, largeAllocs, perRecord, smallBytes, largeBytes, bytesPerRecord)
	assert.LessOrEqual(t, perRecord, 16.0, "allocations per record of 20 tasks")
	// 2,208 while the rows, the agents' map and list and the records' list
	// grew by doubling; 1,755 sized once.
	if !raceOn {
		assert.LessOrEqual(t, bytesPerRecord, 1900.0, "bytes allocated per record")
	}
}
