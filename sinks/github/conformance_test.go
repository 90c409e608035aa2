package github_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/fake/githubfake"
	"github.com/ccc-checkpoint/ccc/sinks/github"
	"github.com/ccc-checkpoint/ccc/sinks/sinktest"
)

// fakeControl adapts the GitHub fake to the conformance suite; own is the
// login the sink's token writes as.
type fakeControl struct {
	srv *githubfake.Server
	own string
}

// AddOwn writes as the token's account, unless that is a bot.
func (f fakeControl) AddOwn(target, body string) string {
	if strings.HasSuffix(f.own, "[bot]") {
		return ""
	}
	return strconv.FormatInt(f.srv.AddComment(target, f.own, body).ID, 10)
}

func (f fakeControl) Comments(target string) []sinktest.Comment {
	var out []sinktest.Comment
	for _, c := range f.srv.Comments(target) {
		out = append(out, sinktest.Comment{ID: strconv.FormatInt(c.ID, 10), Body: c.Body, Own: c.Login == f.own})
	}
	return out
}

func (f fakeControl) Delete(id string) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		panic("githubfake ids are numbers: " + id)
	}
	f.srv.DeleteComment(n)
}

func (f fakeControl) AddForeign(target, body string) string {
	return strconv.FormatInt(f.srv.AddComment(target, githubfake.OtherLogin, body).ID, 10)
}

func (f fakeControl) FailTransient(n int) {
	f.srv.Inject(githubfake.Repeat(n, githubfake.Unavailable(503))...)
}

func (f fakeControl) FailPermanent()       { f.srv.Inject(githubfake.BadCredentials()) }
func (f fakeControl) Slow(d time.Duration) { f.srv.Inject(githubfake.Slow(d)) }
func (f fakeControl) LoseCreate()          { f.srv.Inject(githubfake.LostResponse(githubfake.OpCreateComment)) }
func (f fakeControl) Requests() int        { return f.srv.RequestCount() }

// The suite runs with a personal token, with an Actions installation token
// (whose author is the bot, found without GET /user), and against an
// Enterprise base path.
func TestConformance(t *testing.T) {
	cases := []struct {
		name  string
		opts  []githubfake.Option
		token string
		own   string
	}{
		{"personal token", nil, githubfake.Token, githubfake.Login},
		{"installation token", nil, githubfake.InstallationToken, githubfake.BotLogin},
		{"enterprise", []githubfake.Option{githubfake.WithPrefix("/api/v3")}, githubfake.Token, githubfake.Login},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			instance := func(t *testing.T, maxBody int) sinktest.Instance {
				srv := newFake(t, tc.opts...)
				s := newSink(srv, func(c *github.Config) { c.Token, c.MaxBody = tc.token, maxBody })
				return sinktest.Instance{Sink: s, Fake: fakeControl{srv: srv, own: tc.own}, Issue: pull}
			}
			sinktest.Run(t, sinktest.Harness{
				New:        func(t *testing.T) sinktest.Instance { return instance(t, 0) },
				Truncating: instance,
				Marker:     github.Marker,
			})
		})
	}
}
