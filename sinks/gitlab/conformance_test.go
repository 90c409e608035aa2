package gitlab_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/fake/gitlabfake"
	"github.com/ccc-checkpoint/ccc/sinks/github"
	"github.com/ccc-checkpoint/ccc/sinks/gitlab"
	"github.com/ccc-checkpoint/ccc/sinks/sinktest"
)

type fakeControl struct{ srv *gitlabfake.Server }

func (f fakeControl) Comments(target string) []sinktest.Comment {
	var out []sinktest.Comment
	for _, n := range f.srv.Notes(target) {
		out = append(out, sinktest.Comment{ID: strconv.FormatInt(n.ID, 10), Body: n.Body, Own: n.AuthorID == gitlabfake.UserID})
	}
	return out
}

func (f fakeControl) Delete(id string) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		panic("gitlabfake ids are numbers: " + id)
	}
	f.srv.DeleteNote(n)
}

func (f fakeControl) AddForeign(target, body string) string {
	return strconv.FormatInt(f.srv.AddNote(target, gitlabfake.OtherUserID, body).ID, 10)
}

func (f fakeControl) AddOwn(target, body string) string {
	return strconv.FormatInt(f.srv.AddNote(target, gitlabfake.UserID, body).ID, 10)
}

func (f fakeControl) FailTransient(n int) {
	f.srv.Inject(gitlabfake.Repeat(n, gitlabfake.Unavailable(503))...)
}
func (f fakeControl) FailPermanent()       { f.srv.Inject(gitlabfake.Unauthorized()) }
func (f fakeControl) Slow(d time.Duration) { f.srv.Inject(gitlabfake.Slow(d)) }
func (f fakeControl) LoseCreate()          { f.srv.Inject(gitlabfake.LostResponse(gitlabfake.OpCreateNote)) }
func (f fakeControl) Requests() int        { return f.srv.RequestCount() }

// The suite runs on a merge request, on an issue, and with pages of two
// notes so that every marker search follows X-Next-Page.
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name, target string
		paging       int
	}{{"merge request", mr, 0}, {"issue", issue, 0}, {"short pages", mr, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			instance := func(t *testing.T, maxBody int) sinktest.Instance {
				srv := newFake(t)
				srv.PageSize = tc.paging
				s := newSink(srv, func(c *gitlab.Config) { c.MaxBody = maxBody })
				return sinktest.Instance{Sink: s, Fake: fakeControl{srv: srv}, Issue: tc.target}
			}
			sinktest.Run(t, sinktest.Harness{
				New:        func(t *testing.T) sinktest.Instance { return instance(t, 0) },
				Truncating: instance,
				Marker:     github.Marker,
			})
		})
	}
}
