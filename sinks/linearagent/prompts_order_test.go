package linearagent_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
	"github.com/ccc-checkpoint/ccc/sinks/linearagent"
)

// Linear documents only that connections are "ordered by createdAt": the
// prompts are read by their time, whichever way Linear lists them, and
// none is lost or handed on twice.
func TestPromptsInEitherOrder(t *testing.T) {
	for _, newestFirst := range []bool{false, true} {
		t.Run(map[bool]string{false: "oldest-first", true: "newest-first"}[newestFirst], func(t *testing.T) {
			srv := newFake(t)
			srv.NewestFirst = newestFirst
			var mu sync.Mutex
			now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
			srv.Clock = func() time.Time { mu.Lock(); defer mu.Unlock(); now = now.Add(time.Second); return now }
			s, _ := newSink(t, srv, linearfake.OAuthToken)
			d := &deliverer{s: s}
			res, err := d.deliver(t, "one")
			require.NoError(t, err)
			ctx := context.Background()
			bodies := func(ps []linearagent.Prompt) []string {
				var out []string
				for _, p := range ps {
					out = append(out, p.Body)
				}
				return out
			}

			srv.AddPrompt(res.Ref.ID, "Ada", "first", false)
			ps, err := s.Prompts(ctx, "CIA-9", "main")
			require.NoError(t, err)
			assert.Equal(t, []string{"first"}, bodies(ps))

			srv.AddPrompt(res.Ref.ID, "Ada", "second", false)
			srv.AddPrompt(res.Ref.ID, "Bob", "third", false)
			ps, err = s.Prompts(ctx, "CIA-9", "main")
			require.NoError(t, err)
			assert.Equal(t, []string{"second", "third"}, bodies(ps), "oldest first, none lost")

			srv.AddPrompt(res.Ref.ID, "Ada", "", true)
			ps, err = s.Prompts(ctx, "CIA-9", "main")
			require.NoError(t, err)
			require.Len(t, ps, 1)
			assert.True(t, ps[0].Stop, "a later stop is read")
			ps, err = s.Prompts(ctx, "CIA-9", "main")
			require.NoError(t, err)
			assert.Empty(t, ps, "each prompt once")
		})
	}
}

// After a stop, or the final response, no keep-alive thought is sent: a
// thought would reopen the completed session.
func TestNoThoughtAfterAStopOrTheResponse(t *testing.T) {
	srv := newFake(t)
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	srv.Clock = func() time.Time { return now }
	_, root := newSink(t, srv, linearfake.OAuthToken)
	cfg := linear.Config{URL: srv.URL, OAuthToken: linearfake.OAuthToken}
	cfg.Now = func() time.Time { return now }
	s := linearagent.New(linearagent.Config{Linear: cfg, Root: root, Key: testKey})
	d := &deliverer{s: s}
	res, err := d.deliver(t, "one")
	require.NoError(t, err)
	ctx := context.Background()

	now = now.Add(time.Minute)
	srv.AddPrompt(res.Ref.ID, "Ada", "", true)
	_, err = s.Prompts(ctx, "CIA-9", "main")
	require.NoError(t, err)
	require.Equal(t, "complete", srv.Status(res.Ref.ID))
	now = now.Add(10 * time.Minute)
	sent, err := s.Thought(ctx, "CIA-9", "main", "still working")
	require.NoError(t, err)
	assert.False(t, sent, "stopped: no thought")
	assert.Equal(t, "complete", srv.Status(res.Ref.ID))

	// All tasks done: the response, then no thought either.
	write(t, root, strings.NewReplacer("## Current Task\n- the sink — in progress\n", "", "- hooks\n", "", "- fake ✓\n", "- fake ✓\n- the sink ✓\n- hooks ✓\n").Replace(progressFile))
	_, err = d.deliver(t, "done")
	require.NoError(t, err)
	require.Equal(t, "complete", srv.Status(res.Ref.ID))
	now = now.Add(10 * time.Minute)
	sent, err = s.Thought(ctx, "CIA-9", "main", "still working")
	require.NoError(t, err)
	assert.False(t, sent, "completed: no thought")
}

// The tool hooks' check for a stop: one query per minute at most, and it
// hands on no reply (the next SessionStart or Stop hook does).
func TestStopRequestedIsThrottled(t *testing.T) {
	srv := newFake(t)
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	srv.Clock = func() time.Time { return now }
	_, root := newSink(t, srv, linearfake.OAuthToken)
	cfg := linear.Config{URL: srv.URL, OAuthToken: linearfake.OAuthToken}
	cfg.Now = func() time.Time { return now }
	s := linearagent.New(linearagent.Config{Linear: cfg, Root: root, Key: testKey})
	res, err := (&deliverer{s: s}).deliver(t, "one")
	require.NoError(t, err)
	ctx := context.Background()

	now = now.Add(time.Second)
	srv.AddPrompt(res.Ref.ID, "Bob", "a reply", false)
	by, err := s.StopRequested(ctx, "CIA-9", "main")
	require.NoError(t, err)
	assert.Empty(t, by)
	srv.AddPrompt(res.Ref.ID, "Ada", "", true)
	before := operations(srv, "AgentSessionPrompts")
	by, err = s.StopRequested(ctx, "CIA-9", "main")
	require.NoError(t, err)
	assert.Empty(t, by, "asked a second ago: no query")
	assert.Equal(t, before, operations(srv, "AgentSessionPrompts"))

	now = now.Add(time.Minute)
	by, err = s.StopRequested(ctx, "CIA-9", "main")
	require.NoError(t, err)
	assert.Equal(t, "Ada", by)

	ps, err := s.Prompts(ctx, "CIA-9", "main")
	require.NoError(t, err)
	assert.Len(t, ps, 2, "the reply and the stop are still handed on")
}
