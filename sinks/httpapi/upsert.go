package httpapi

import (
	"context"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// Thread is one target's comments as Upsert needs them; C is the tracker's
// comment, a pointer (its zero value: none).
type Thread[C comparable] interface {
	// Stored is the stored comment's id when it may be updated in place
	// (verified, and stored for this target).
	Stored() (id string, ok bool)
	// Update writes the body on comment id, retried; a 404 is NotFound.
	Update(ctx context.Context, id string) (C, *Failure)
	// FindOwn is this agent's newest comment on the target (its marker,
	// its tag, the credentials' account), the zero C when there is none;
	// retrying says whether each request is retried on its own.
	FindOwn(ctx context.Context, retrying bool) (C, *Failure)
	// Post creates the comment, once.
	Post(ctx context.Context) (C, *Failure)
	// ID is c's id; Holds says c already holds the body being sent.
	ID(c C) string
	Holds(c C) bool
}

// Upsert writes the delivery's body as the agent's one comment on a tracker
// that chooses comment ids itself: it updates the stored comment; when that
// is gone (or nothing is stored) it finds the agent's own comment and
// updates it (unchanged when it already holds the body, created when a
// create of an earlier run landed); otherwise it creates one, persisting a
// PendingID first (d.Persist), and follows a create whose answer may have
// been lost with a search, never with a second create. ref is what the
// caller keeps when it fails.
func Upsert[C comparable](ctx context.Context, r *Run, t Thread[C], d sinks.Delivery, newID func() string) (c C, action sinks.Action, ref sinks.Ref, f *Failure) {
	var none C
	if id, ok := t.Stored(); ok {
		c, f := t.Update(ctx, id)
		if f == nil {
			return c, sinks.Updated, d.Prev, nil
		}
		if !f.NotFound {
			return none, "", d.Prev, f
		}
	}
	own, f := t.FindOwn(ctx, true)
	if f != nil {
		return none, "", d.Prev, f
	}
	if own != none {
		action := sinks.Updated
		if d.Prev.ID == "" && d.Prev.PendingID != "" {
			// A create of an earlier run whose answer never came has landed.
			action = sinks.Created
		}
		if t.Holds(own) {
			if action != sinks.Created {
				action = sinks.Unchanged
			}
			return own, action, d.Prev, nil
		}
		c, f := t.Update(ctx, t.ID(own))
		if f == nil {
			return c, action, d.Prev, nil
		}
		if !f.NotFound {
			return none, "", d.Prev, f
		}
		// Deleted between the search and the update: create afresh.
	}
	ref = sinks.Ref{PendingID: newID()}
	if d.Persist != nil {
		if err := d.Persist(ref); err != nil {
			return none, "", d.Prev, &Failure{Op: "persist", Cause: "could not store the pending create", Fatal: true, Err: err}
		}
	}
	landed := false
	f = r.Retry(ctx, func() *Failure {
		if landed {
			own, f := t.FindOwn(ctx, false)
			if f != nil {
				return f
			}
			if own != none {
				c = own
				return nil
			}
			landed = false
		}
		got, f := t.Post(ctx)
		if f != nil {
			landed = f.Ambiguous
			return f
		}
		c = got
		return nil
	})
	if f != nil {
		return none, "", ref, f
	}
	return c, sinks.Created, ref, nil
}
