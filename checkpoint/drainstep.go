package checkpoint

import (
	"context"
	"time"

	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state/outbox"
)

// drainStep retries the queued deliveries that are due, for the sinks of
// this run, before the tracker step delivers its own: an older status never
// lands after a newer one. It prints no line of its own; what it retried is
// the report's Outbox. Its result (cp.drained) hands the tracker step the
// deadline the two share and the issue both deliver to.
type drainStep struct{ trackers []Tracker }

// drained is what the drain step returns for the tracker step.
type drained struct {
	// ran: the drain ran, and the fields below are set.
	ran bool
	// results are the queued deliveries it retried.
	results []SinkResult
	// deadline ends the tracker's budget (Timeout), which the drain began;
	// zero: none.
	deadline time.Time
	// issue is the tracker issue, and where it was found.
	issue, from string
}

func (drainStep) String() string { return "Outbox drain" }

func (drainStep) unlisted() {}

func (d drainStep) Run(ctx context.Context, cp *Context) error {
	if err := trackerSkip(cp, d.trackers); err != nil {
		return err
	}
	res := drained{ran: true}
	if cp.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = sinks.WithTimeout(ctx, cp.Timeout)
		defer cancel()
		res.deadline, _ = ctx.Deadline()
	}
	res.issue, res.from = cp.trackerIssue()
	res.results = cp.drainOutbox(ctx, d.trackers, res.issue)
	cp.drained = res
	return nil
}

// drainOutbox first tries the queued deliveries that are due, for the
// sinks of this run, inside the run's own deadline (with DrainLimit, at
// most that many within a third of it), by redeliver's rules. The key this
// run is about to deliver is left alone: its new body supersedes the
// queued one.
func (cp *Context) drainOutbox(ctx context.Context, trackers []Tracker, issue string) (out []SinkResult) {
	entries, err := outbox.Trusted(cp.Root, cp.Key, cp.Now)
	if err != nil {
		cp.alertf("%v", err)
	}
	bySink := map[string]sinks.Sink{}
	own := map[string]bool{}
	for _, tr := range trackers {
		bySink[tr.Sink.Name()] = tr.Sink
		target := tr.Target
		if target == "" {
			target = issue
		}
		own[outbox.Entry{Sink: tr.Sink.Name(), Target: target, Agent: cp.Agent}.Key()] = true
	}
	for _, r := range cp.redeliver(ctx, entries, redeliverRules{
		due:    true,
		limit:  cp.Outbox.Limit,
		except: own,
		sink:   func(name string) (sinks.Sink, error) { return bySink[name], nil },
		before: func(ctx context.Context, _ outbox.Entry) bool { return ctx.Err() == nil },
	}) {
		out = append(out, r.SinkResult)
	}
	return out
}
