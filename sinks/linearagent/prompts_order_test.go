package linearagent_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
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
