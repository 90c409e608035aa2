package checkpoint

import (
	"context"
	"fmt"
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
// with DueOnly those whose backoff has passed.
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
	for _, e := range entries {
		if opts.DueOnly && e.NextAttempt.After(cp.Now) {
			continue
		}
		if opts.Before != nil && !opts.Before(e) {
			break
		}
		s, err := opts.NewSink(e.Sink)
		if err != nil {
			out.Entries = append(out.Entries, Redelivery{SinkResult: SinkResult{Sink: e.Sink, Title: e.Sink, Target: e.Target,
				Action: sinks.Skipped, Error: err.Error()}, Agent: e.Agent, Attempts: e.Attempts})
			continue
		}
		r := cp.Redeliver(ctx, s, e)
		attempts := e.Attempts
		if r.Action == sinks.Failed {
			attempts++
		}
		out.Entries = append(out.Entries, Redelivery{SinkResult: r, Agent: e.Agent, Attempts: attempts})
	}
	left, err := outbox.List(cp.Root, cp.Now)
	out.Remaining = len(left)
	return out, err
}
