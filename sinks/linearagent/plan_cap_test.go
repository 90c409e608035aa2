package linearagent_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
	"github.com/ccc-checkpoint/ccc/sinks/linearagent"
)

// A long task list is cut to linearagent.MaxPlanItems items, the last one
// saying how many more; each item to MaxPlanItem runes, redacted first.
func TestPlanIsCappedInItemsAndLength(t *testing.T) {
	srv := newFake(t)
	s, root := newSink(t, srv, linearfake.OAuthToken)
	ghp := "ghp_" + strings.Repeat("a1B2c3D4e5", 3) + "F6g7H8"
	var b strings.Builder
	b.WriteString("# Session Progress\n\n**Issue:** CIA-9 — x\n\n## Current Task\n- " +
		strings.Repeat("w", linearagent.MaxPlanItem-10) + " " + ghp + " after\n\n## Remaining Tasks\n")
	for i := range 70 {
		fmt.Fprintf(&b, "- task %d\n", i)
	}
	write(t, root, b.String())
	d := &deliverer{s: s}
	_, err := d.deliver(t, "one")
	require.NoError(t, err)
	plan := srv.Sessions("CIA-9")[0].Plan.([]any)
	require.Len(t, plan, linearagent.MaxPlanItems)
	first := plan[0].(map[string]any)["content"].(string)
	assert.LessOrEqual(t, utf8.RuneCountInString(first), linearagent.MaxPlanItem)
	assert.NotContains(t, first, ghp[:8])
	assert.Equal(t, map[string]any{"content": "+22 more", "status": "pending"}, plan[len(plan)-1])
}

// A dropped task stays in the plan as canceled, not only the next time.
func TestDroppedTaskStaysCanceled(t *testing.T) {
	srv := newFake(t)
	s, root := newSink(t, srv, linearfake.OAuthToken)
	d := &deliverer{s: s}
	_, err := d.deliver(t, "one")
	require.NoError(t, err)
	write(t, root, strings.Replace(progressFile, "- hooks\n", "", 1))
	_, err = d.deliver(t, "two")
	require.NoError(t, err)
	canceled := map[string]any{"content": "hooks", "status": "canceled"}
	assert.Contains(t, srv.Sessions("CIA-9")[0].Plan, canceled)
	// The current task done: a new plan, which still cancels "hooks".
	write(t, root, strings.NewReplacer("- hooks\n", "", "- the sink — in progress\n", "", "- fake ✓\n", "- fake ✓\n- the sink ✓\n").Replace(progressFile))
	_, err = d.deliver(t, "three")
	require.NoError(t, err)
	assert.Equal(t, 3, count(srv, "agentSessionUpdate"))
	assert.Contains(t, srv.Sessions("CIA-9")[0].Plan, canceled)
	// Back in the list: live again, once.
	write(t, root, progressFile)
	_, err = d.deliver(t, "four")
	require.NoError(t, err)
	plan := srv.Sessions("CIA-9")[0].Plan
	assert.NotContains(t, plan, canceled)
	assert.Contains(t, plan, map[string]any{"content": "hooks", "status": "pending"})
}

// An action's result is cut to linearagent.MaxResult runes.
func TestActionResultIsCapped(t *testing.T) {
	srv := newFake(t)
	s := linearagent.New(linearagent.Config{Linear: linear.Config{URL: srv.URL, OAuthToken: linearfake.OAuthToken,
		Tuning: sinks.Tuning{InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond}}})
	d := &deliverer{s: s}
	_, err := d.deliver(t, strings.Repeat("status ", 1000))
	require.NoError(t, err)
	acts := srv.Sessions("CIA-9")[0].Activities
	require.Len(t, acts, 1)
	assert.LessOrEqual(t, utf8.RuneCountInString(acts[0].Content["result"].(string)), linearagent.MaxResult)
}
