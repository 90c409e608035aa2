package httpapi

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// fakeThread is a tracker's comments on one target, in memory, with the
// answers a test scripts: a stored comment gone, a create that lands but
// whose answer is lost.
type fakeThread struct {
	comments map[string]string // id → body
	own      string            // the agent's comment, "" for none
	body     string
	stored   string
	// loseNextPost makes the next Post land and answer as a dropped
	// connection does.
	loseNextPost bool
	posts, finds int
	next         int
}

type fakeComment struct{ id, body string }

func (t *fakeThread) Stored() (string, bool) { return t.stored, t.stored != "" }

func (t *fakeThread) Update(_ context.Context, id string) (*fakeComment, *Failure) {
	if _, ok := t.comments[id]; !ok {
		return nil, &Failure{Op: "update", Cause: "not found", Fatal: true, NotFound: true}
	}
	t.comments[id] = t.body
	return &fakeComment{id, t.body}, nil
}

func (t *fakeThread) FindOwn(context.Context, bool) (*fakeComment, *Failure) {
	t.finds++
	if body, ok := t.comments[t.own]; ok && t.own != "" {
		return &fakeComment{t.own, body}, nil
	}
	return nil, nil
}

func (t *fakeThread) Post(context.Context) (*fakeComment, *Failure) {
	t.posts++
	t.next++
	id := string(rune('a' + t.next))
	t.comments[id], t.own = t.body, id
	if t.loseNextPost {
		t.loseNextPost = false
		return nil, &Failure{Op: "create", Cause: "network error", Ambiguous: true}
	}
	return &fakeComment{id, t.body}, nil
}

func (t *fakeThread) ID(c *fakeComment) string  { return c.id }
func (t *fakeThread) Holds(c *fakeComment) bool { return c.body == t.body }

func run(t *testing.T) *Run {
	t.Helper()
	c := &Client{Sink: "test", Service: "Test", Tuning: sinks.Tuning{InitialInterval: time.Millisecond, MaxInterval: time.Millisecond}.WithDefaults(1000)}
	return c.NewRun(context.Background())
}

func TestUpsert(t *testing.T) {
	ids := func() string { return "pending-1" }
	t.Run("the stored comment is updated in place", func(t *testing.T) {
		th := &fakeThread{comments: map[string]string{"x": "old"}, stored: "x", own: "x", body: "new"}
		c, action, _, f := Upsert[*fakeComment](context.Background(), run(t), th, sinks.Delivery{}, ids)
		require.Nil(t, f)
		assert.Equal(t, sinks.Updated, action)
		assert.Equal(t, "x", c.id)
		assert.Zero(t, th.finds, "no search when the stored comment is there")
	})
	t.Run("a stored comment that is gone is found again by the search", func(t *testing.T) {
		th := &fakeThread{comments: map[string]string{"y": "new"}, stored: "x", own: "y", body: "new"}
		_, action, _, f := Upsert[*fakeComment](context.Background(), run(t), th, sinks.Delivery{}, ids)
		require.Nil(t, f)
		assert.Equal(t, sinks.Unchanged, action, "it already holds the body")
		assert.Zero(t, th.posts)
	})
	t.Run("a lost create is searched for, never posted twice", func(t *testing.T) {
		th := &fakeThread{comments: map[string]string{}, body: "new", loseNextPost: true}
		var persisted []sinks.Ref
		d := sinks.Delivery{Persist: func(r sinks.Ref) error { persisted = append(persisted, r); return nil }}
		c, action, ref, f := Upsert[*fakeComment](context.Background(), run(t), th, d, ids)
		require.Nil(t, f)
		assert.Equal(t, sinks.Created, action)
		assert.Equal(t, 1, th.posts, "one create")
		assert.Len(t, th.comments, 1, "one comment")
		assert.Equal(t, th.own, c.id)
		assert.Equal(t, []sinks.Ref{{PendingID: "pending-1"}}, persisted, "persisted before the create")
		assert.Equal(t, "pending-1", ref.PendingID)
	})
	t.Run("a create is not sent when its pending id cannot be stored", func(t *testing.T) {
		th := &fakeThread{comments: map[string]string{}, body: "new"}
		prev := sinks.Ref{ID: "gone"}
		d := sinks.Delivery{Prev: prev, Persist: func(sinks.Ref) error { return errors.New("disk full") }}
		_, _, ref, f := Upsert[*fakeComment](context.Background(), run(t), th, d, ids)
		require.NotNil(t, f)
		assert.True(t, f.Fatal)
		assert.Zero(t, th.posts)
		assert.Equal(t, prev, ref, "the stored reference is kept")
	})
	t.Run("a create of an earlier run that landed is reported as created", func(t *testing.T) {
		th := &fakeThread{comments: map[string]string{"z": "older"}, own: "z", body: "new"}
		d := sinks.Delivery{Prev: sinks.Ref{PendingID: "earlier"}}
		_, action, _, f := Upsert[*fakeComment](context.Background(), run(t), th, d, ids)
		require.Nil(t, f)
		assert.Equal(t, sinks.Created, action)
		assert.Equal(t, "new", th.comments["z"])
	})
}
