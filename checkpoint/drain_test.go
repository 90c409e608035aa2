package checkpoint

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state/outbox"
)

// A tracker that says "come back in an hour" is not tried again by the
// next run 30 seconds later: the outbox entry waits the hour.
func TestQueuedEntryWaitsForTheTrackersRetryAfter(t *testing.T) {
	root := t.TempDir()
	s := &fakeSink{errs: []error{&sinks.Error{Cause: "rate limited, retry after 1h", RetryAfter: time.Hour}}}
	cp := newCP(root, Automated, progress.Edits{Issue: "CIA-1", Current: "parser"})
	cp.Trackers = []Tracker{{Sink: s}}
	runCP(cp)

	queued, err := outbox.List(root, t0)
	require.NoError(t, err)
	require.Len(t, queued, 1)
	assert.Equal(t, t0.Add(time.Hour), queued[0].NextAttempt)

	// Another agent's run ten minutes later leaves it alone.
	other := newCP(root, Automated, progress.Edits{Issue: "CIA-1"})
	other.Now, other.Agent = t0.Add(10*time.Minute), "helper"
	other.Trackers = []Tracker{{Sink: s}}
	r := runCP(other)
	assert.Empty(t, r.Outbox)
}

// queueOthers queues n due deliveries of other agents for sink "fake".
func queueOthers(t *testing.T, root string, n int) {
	t.Helper()
	for i := range n {
		e := outbox.Entry{Sink: "fake", Target: "CIA-1", Agent: fmt.Sprintf("agent-%d", i), Body: "queued", RenderedAt: t0.Add(-time.Hour)}.Sign(testKey)
		_, err := outbox.Queue(root, e, "HTTP 503", t0.Add(-time.Hour))
		require.NoError(t, err)
	}
}

// A hook's checkpoint retries at most DrainLimit queued deliveries before
// its own; the others stay queued for `ccc sync`.
func TestDrainLimitBoundsTheRedeliveries(t *testing.T) {
	root := t.TempDir()
	queueOthers(t, root, 6)
	s := &fakeSink{}
	cp := newCP(root, Automated, progress.Edits{Issue: "CIA-1", Current: "parser"})
	cp.Trackers, cp.Outbox.Limit = []Tracker{{Sink: s}}, 2
	r := runCP(cp)

	assert.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
	assert.Len(t, r.Outbox, 2)
	assert.Equal(t, 3, s.calls, "two queued deliveries and the run's own")
	left, err := outbox.List(root, t0)
	require.NoError(t, err)
	assert.Len(t, left, 4)
}

// A slow tracker answers queued deliveries only within a third of the
// deadline; the run's own delivery still gets its turn.
func TestDrainStopsAtAThirdOfTheDeadline(t *testing.T) {
	root := t.TempDir()
	queueOthers(t, root, 3)
	s := &stallSink{}
	cp := newCP(root, Automated, progress.Edits{Issue: "CIA-1", Current: "parser"})
	cp.Trackers, cp.Outbox.Limit, cp.Timeout = []Tracker{{Sink: s}}, 3, 600*time.Millisecond
	r := runCP(cp)

	assert.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
	assert.Equal(t, 1, s.stalled, "the first queued delivery used the drain's share; no other was started")
	assert.Equal(t, 1, s.delivered, "the run's own status was delivered")
}

// stallSink holds every delivery of another agent until its context ends,
// and delivers the main agent's at once.
type stallSink struct {
	mu                 sync.Mutex
	stalled, delivered int
}

func (s *stallSink) Name() string  { return "fake" }
func (s *stallSink) Title() string { return "Fake" }
func (s *stallSink) Upsert(ctx context.Context, d sinks.Delivery) (sinks.Result, error) {
	if d.Target.Agent != "main" {
		s.mu.Lock()
		s.stalled++
		s.mu.Unlock()
		<-ctx.Done()
		return sinks.Result{Requests: 1}, &sinks.Error{Cause: sinks.ContextCause(ctx, 0), Err: ctx.Err()}
	}
	s.mu.Lock()
	s.delivered++
	s.mu.Unlock()
	return sinks.Result{Action: sinks.Created, Ref: sinks.Ref{ID: "c-1"}, Requests: 1}, nil
}

// While the tracker's wait runs, a run's own delivery to that key asks it
// nothing: the new status is queued behind the wait, then delivered.
func TestOwnDeliveryWaitsForTheTrackersRetryAfter(t *testing.T) {
	root := t.TempDir()
	s := &fakeSink{errs: []error{&sinks.Error{Cause: "rate limited, retry after 1h", RetryAfter: time.Hour}}}
	run := func(now time.Time, current string) Report {
		cp := newCP(root, Automated, progress.Edits{Issue: "CIA-1", Current: current})
		cp.Now, cp.Trackers = now, []Tracker{{Sink: s}}
		return runCP(cp)
	}
	run(t0, "parser")
	r := run(t0.Add(5*time.Minute), "lexer")
	assert.Equal(t, 1, s.calls, "the tracker was not asked again")
	assert.Contains(t, r.Lines(), "Failed: Fake update (rate limited, retry after 1h; not retried before 14:45 UTC) — queued for retry (ccc sync).")
	queued, err := outbox.List(root, t0)
	require.NoError(t, err)
	require.Len(t, queued, 1)
	assert.Equal(t, t0.Add(time.Hour), queued[0].NextAttempt)
	assert.Contains(t, queued[0].Body, "lexer", "the newer status waits")

	r = run(t0.Add(61*time.Minute), "lexer")
	assert.Equal(t, OutcomeOK, r.Outcome(), r.Lines())
	assert.Equal(t, 2, s.calls)
}
