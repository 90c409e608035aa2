package linearagent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
	"github.com/ccc-checkpoint/ccc/sinks/linearagent"
	"github.com/ccc-checkpoint/ccc/sinks/sinktest"
)

// sessionControl adapts the fake's agent sessions to the conformance
// suite: a session is the agent's "comment" on the issue, its body the
// result of its newest action (the status, without a progress file). A
// create whose answer is lost is the activity's, whose id the client
// chooses; a session has no client id (see docs/dev/other-tools.md).
type sessionControl struct{ srv *linearfake.Server }

func (f sessionControl) Comments(issue string) []sinktest.Comment {
	var out []sinktest.Comment
	for _, a := range f.srv.Sessions(issue) {
		c := sinktest.Comment{ID: a.ID, Own: a.Owner == linearfake.ViewerID}
		for _, act := range a.Activities {
			if act.Type == "action" {
				// Line-terminated, as the suite reads a status's lines.
				r, _ := act.Content["result"].(string)
				c.Body = r + "\n"
			}
		}
		out = append(out, c)
	}
	return out
}

func (f sessionControl) Delete(id string) { f.srv.DeleteSession(id) }

func (f sessionControl) AddForeign(issue, body string) string {
	return f.srv.AddForeignSession(issue, strings.TrimSuffix(body, "\n"))
}

func (f sessionControl) FailTransient(n int) {
	f.srv.Inject(linearfake.Repeat(n, linearfake.Unavailable(503))...)
}

func (f sessionControl) FailPermanent()       { f.srv.Inject(linearfake.AuthFailure()) }
func (f sessionControl) Slow(d time.Duration) { f.srv.Inject(linearfake.Slow(d)) }
func (f sessionControl) LoseCreate()          { f.srv.Inject(linearfake.LostResponse("agentActivityCreate")) }
func (f sessionControl) Requests() int        { return f.srv.RequestCount() }

func TestConformance(t *testing.T) {
	sinktest.Run(t, sinktest.Harness{
		New: func(t *testing.T) sinktest.Instance {
			srv := newFake(t)
			s := linearagent.New(linearagent.Config{Linear: linear.Config{
				URL: srv.URL, OAuthToken: linearfake.OAuthToken,
				Tuning: sinks.Tuning{InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond},
			}})
			return sinktest.Instance{Sink: s, Fake: sessionControl{srv}, Issue: "CIA-9"}
		},
	})
}
