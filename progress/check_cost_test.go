package progress

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A rewrite that keeps the tasks in their order, as a checkpoint that
// finishes a task does, is judged without a map of every task (issue 26:
// 10,000 tasks were 10,000 keys hashed per checkpoint).
func TestCountDroppedInOrderAllocatesNothing(t *testing.T) {
	before := make([]string, 10_000)
	for i := range before {
		before[i] = fmt.Sprintf("task %d: migrate endpoint /api/v1/resource%d", i, i)
	}
	after := append(append([]string(nil), before...), "one more")
	allocs := testing.AllocsPerRun(5, func() {
		if err := countDropped("p.md", nil, before, after); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

// countDropped judges every rewrite as matching the tasks by key, in the
// order of the file, does: same verdict, same first dropped task.
func TestCountDroppedAgreesWithMatchingByKey(t *testing.T) {
	ref := func(before, after []string) (dropped int, first string) {
		have := map[string]int{}
		for _, a := range after {
			have[taskKey(a)]++
		}
		kept := 0
		for _, b := range before {
			if have[taskKey(b)] > 0 {
				have[taskKey(b)]--
				kept++
				continue
			}
			if dropped == 0 {
				first = b
			}
			dropped++
		}
		if dropped <= kept {
			return 0, ""
		}
		return dropped, first
	}
	words := []string{"a", "b", "c", "A", "a  b", "d"}
	r := rand.New(rand.NewPCG(1, 2))
	list := func(n int) []string {
		l := make([]string, n)
		for i := range l {
			l[i] = words[r.IntN(len(words))]
		}
		return l
	}
	for range 5000 {
		before, after := list(r.IntN(6)), list(r.IntN(6))
		if r.IntN(2) == 0 { // a shared prefix, as most rewrites have
			after = append(append([]string(nil), before[:r.IntN(len(before)+1)]...), after...)
		}
		orig := []byte("- " + strings.Join(before, "\n- ") + "\n")
		dropped, first := ref(before, after)
		err := countDropped("p.md", orig, before, after)
		if dropped == 0 {
			assert.NoError(t, err, "%q → %q", before, after)
			continue
		}
		if assert.Error(t, err, "%q → %q", before, after) {
			assert.Contains(t, err.Error(), fmt.Sprintf("drop %d of", dropped))
			assert.Contains(t, err.Error(), fmt.Sprintf(":%d:", lineOf(orig, first)))
		}
	}
}

// A file without conflict markers, every checkpoint's, is judged without a
// copy of it (issue 26).
func TestConflictsOfACleanFileAllocateNothing(t *testing.T) {
	src := benchDoc(10_000)
	allocs := testing.AllocsPerRun(5, func() {
		if c := Conflicts("p.md", src); c != nil {
			t.Fatal(c)
		}
	})
	assert.Zero(t, allocs)
}
