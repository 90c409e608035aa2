package jira_test

import (
	"testing"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/fake/jirafake"
	"github.com/ccc-checkpoint/ccc/sinks/jira"
	"github.com/ccc-checkpoint/ccc/sinks/sinktest"
)

// fakeControl adapts the Jira fake to the conformance suite, which reads
// and writes Markdown: the comments' ADF bodies are rendered back to it.
type fakeControl struct {
	t   *testing.T
	srv *jirafake.Server
}

func (f fakeControl) Comments(issue string) []sinktest.Comment {
	var out []sinktest.Comment
	for _, c := range f.srv.Comments(issue) {
		out = append(out, sinktest.Comment{ID: c.ID, Body: markdown(c.Body), Own: c.AccountID == jirafake.AccountID})
	}
	return out
}

func (f fakeControl) Delete(id string) { f.srv.DeleteComment(id) }

func (f fakeControl) AddForeign(issue, body string) string {
	return f.srv.AddComment(issue, jirafake.OtherAccountID, adf(f.t, body)).ID
}

// AddOwn writes as the credentials' account, as its person would in Jira.
func (f fakeControl) AddOwn(issue, body string) string {
	return f.srv.AddComment(issue, jirafake.AccountID, adf(f.t, body)).ID
}

func (f fakeControl) FailTransient(n int) {
	f.srv.Inject(jirafake.Repeat(n, jirafake.Unavailable(503))...)
}
func (f fakeControl) FailPermanent() { f.srv.Inject(jirafake.BadCredentials()) }
func (f fakeControl) Slow(d time.Duration) {
	f.srv.Inject(jirafake.Slow(d))
}
func (f fakeControl) LoseCreate()   { f.srv.Inject(jirafake.LostResponse(jirafake.OpAddComment)) }
func (f fakeControl) Requests() int { return f.srv.RequestCount() }

// The suite runs with an API token (basic authentication) and with an
// OAuth bearer token, and with pages of two comments so that every marker
// search reads several pages.
func TestConformance(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(*jira.Config)
		paging int
	}{
		{"api token", func(*jira.Config) {}, 0},
		{"bearer token", func(c *jira.Config) { c.Email, c.APIToken, c.BearerToken = "", "", jirafake.BearerToken }, 0},
		{"short pages", func(*jira.Config) {}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			instance := func(t *testing.T, maxBody int) sinktest.Instance {
				srv := newFake(t)
				srv.PageSize = tc.paging
				s := newSink(srv, tc.edit, func(c *jira.Config) { c.MaxBody = maxBody })
				return sinktest.Instance{Sink: s, Fake: fakeControl{t: t, srv: srv}, Issue: key}
			}
			sinktest.Run(t, sinktest.Harness{
				New:        func(t *testing.T) sinktest.Instance { return instance(t, 0) },
				Truncating: instance,
				Marker:     jira.Marker,
			})
		})
	}
}
