package linear_test

import (
	"testing"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
	"github.com/ccc-checkpoint/ccc/sinks/sinktest"
)

// fakeControl adapts the Linear fake to the conformance suite.
type fakeControl struct{ srv *linearfake.Server }

// AddOwn writes as the viewer: a personal API key's viewer is a person.
func (f fakeControl) AddOwn(issue, body string) string {
	return f.srv.AddComment(issue, linearfake.ViewerID, body).ID
}

func (f fakeControl) Comments(issue string) []sinktest.Comment {
	var out []sinktest.Comment
	for _, c := range f.srv.Comments(issue) {
		out = append(out, sinktest.Comment{ID: c.ID, Body: c.Body, Own: c.UserID == linearfake.ViewerID})
	}
	return out
}

func (f fakeControl) Delete(id string) { f.srv.DeleteComment(id) }

func (f fakeControl) AddForeign(issue, body string) string {
	return f.srv.AddComment(issue, linearfake.OtherUserID, body).ID
}

func (f fakeControl) FailTransient(n int) {
	f.srv.Inject(linearfake.Repeat(n, linearfake.Unavailable(503))...)
}

func (f fakeControl) FailPermanent()       { f.srv.Inject(linearfake.AuthFailure()) }
func (f fakeControl) Slow(d time.Duration) { f.srv.Inject(linearfake.Slow(d)) }
func (f fakeControl) LoseCreate()          { f.srv.Inject(linearfake.LostResponse("commentCreate")) }
func (f fakeControl) Requests() int        { return f.srv.RequestCount() }

func TestConformance(t *testing.T) {
	instance := func(t *testing.T, maxBody int) sinktest.Instance {
		srv := newFake(t)
		s := newSink(srv, func(c *linear.Config) { c.MaxBody = maxBody })
		return sinktest.Instance{Sink: s, Fake: fakeControl{srv}, Issue: "CIA-9"}
	}
	sinktest.Run(t, sinktest.Harness{
		New:        func(t *testing.T) sinktest.Instance { return instance(t, 0) },
		Truncating: instance,
		Marker:     linear.Marker,
	})
}
