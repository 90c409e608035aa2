package checkpoint

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state/outbox"
)

// Redelivery is one queued delivery's outcome, as `ccc sync --json` prints
// it.
type Redelivery struct {
	SinkResult
	Agent    string `json:"agent"`
	Attempts int    `json:"attempts"`
}

// Line sums the redelivery up in one report line.
func (r Redelivery) Line() string {
	what := fmt.Sprintf("%s %s (agent %s)", r.Title, r.Target, r.Agent)
	switch r.Action {
	case sinks.Created, sinks.Updated:
		return strings.TrimSpace(fmt.Sprintf("✓ %s: delivered — %s %s", what, r.Wrote, r.URL))
	case sinks.Unchanged:
		return fmt.Sprintf("✓ %s: already up to date", what)
	case sinks.Skipped:
		return fmt.Sprintf("! %s: still queued — %s", what, r.Error)
	default:
		return fmt.Sprintf("X %s: still queued — %s (attempt %d)", what, r.Error, r.Attempts)
	}
}

// DrainOptions are Drain's choices.
type DrainOptions struct {
	// DueOnly retries only the entries whose backoff has passed.
	DueOnly bool
	// Before, when not nil, is called before each delivery; false stops
	// the round there.
	Before func(outbox.Entry) bool
	// NewSink builds the sink an entry names; an error skips the entry.
	NewSink func(name string) (sinks.Sink, error)
	// Warn, when not nil, is told about entries set aside (not signed by
	// this user's ccc, misnamed, unreadable) before any delivery.
	Warn func(error)
}

// Drained is what a Drain did.
type Drained struct {
	Entries []Redelivery
	// Remaining counts the entries still queued.
	Remaining int
	// SetAside says some entries were set aside (said through Warn).
	SetAside bool
}

// Drain retries queued deliveries within cp's deadline: every entry, or
// with DueOnly those whose backoff has passed (`ccc sync`, the sync
// worker). The rules are redeliver's, the drain step's too.
func Drain(ctx context.Context, cp *Context, opts DrainOptions) (Drained, error) {
	var out Drained
	entries, err := outbox.Trusted(cp.Root, cp.Key, cp.Now)
	out.SetAside = err != nil
	if err != nil && opts.Warn != nil {
		opts.Warn(err)
	}
	if cp.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = sinks.WithTimeout(ctx, cp.Timeout)
		defer cancel()
	}
	rules := redeliverRules{due: opts.DueOnly, sink: opts.NewSink}
	if opts.Before != nil {
		rules.before = func(_ context.Context, e outbox.Entry) bool { return opts.Before(e) }
	}
	out.Entries = cp.redeliver(ctx, entries, rules)
	left, err := outbox.List(cp.Root, cp.Now)
	out.Remaining = len(left)
	return out, err
}

// redeliverRules are the choices of the one redelivery loop.
type redeliverRules struct {
	// due: only the entries whose backoff has passed.
	due bool
	// limit, above 0: at most that many deliveries, this agent's first,
	// within a third of cp.Timeout (the hooks' drain).
	limit int
	// except are the keys the run is about to deliver anew: their new
	// body supersedes the queued one.
	except map[string]bool
	// sink builds the sink an entry names: an error is reported as a
	// skip, a nil sink (not this run's) leaves the entry queued unsaid.
	sink func(name string) (sinks.Sink, error)
	// before, when not nil, is asked before each delivery (with the
	// round's context); false ends the round.
	before func(context.Context, outbox.Entry) bool
}

// redeliver is the one redelivery loop, for the drain step, `ccc sync` and
// the sync worker. In the outbox's order (with a limit, this agent's
// entries first: nobody else's hooks send them), it passes over the keys
// the run delivers anew and, when due, the entries still backing off; it
// stops when before says so or the limit is reached; each delivery is
// cp.Redeliver under the delivery lock, which removes the entry once its
// body (or a newer one) is delivered and otherwise counts the attempt and
// sets the next (outbox.Backoff, a server's wait when later). What counts as
// delivered or permanent is the sink's answer (sinks.Error), nothing here.
func (cp *Context) redeliver(ctx context.Context, entries []outbox.Entry, r redeliverRules) []Redelivery {
	if r.limit > 0 {
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].Agent == cp.Agent && entries[j].Agent != cp.Agent })
		if cp.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = sinks.WithTimeout(ctx, cp.Timeout/3)
			defer cancel()
		}
	}
	var out []Redelivery
	tried := 0
	for _, e := range entries {
		if r.except[e.Key()] || (r.due && e.NextAttempt.After(cp.Now)) {
			continue
		}
		if r.before != nil && !r.before(ctx, e) {
			break
		}
		s, err := r.sink(e.Sink)
		if err != nil {
			out = append(out, Redelivery{SinkResult: SinkResult{Sink: e.Sink, Title: e.Sink, Target: e.Target,
				Action: sinks.Skipped, Error: err.Error()}, Agent: e.Agent, Attempts: e.Attempts})
			continue
		}
		if s == nil {
			continue
		}
		if r.limit > 0 && tried >= r.limit {
			break
		}
		tried++
		done := cp.waitFor(s.Title(), e.Target)
		res := cp.Redeliver(ctx, s, e)
		done()
		attempts := e.Attempts
		if res.Action == sinks.Failed {
			attempts++
		}
		out = append(out, Redelivery{SinkResult: res, Agent: e.Agent, Attempts: attempts})
	}
	return out
}
