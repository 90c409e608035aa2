package linear

import (
	"context"
	"errors"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// CallError is a failed Exec: the sink's error (a *sinks.Error with a
// short, secret-free Cause) and how Linear answered.
type CallError struct {
	*sinks.Error
	// NotFound: "Entity not found"; Exists: a create's id is taken;
	// Forbidden: Linear refused the operation to this credential.
	NotFound, Exists, Forbidden bool
}

// Exec sends one GraphQL document with the sink's credentials, its retry
// policy (rate limits, Retry-After, deadlines) and its classification of
// Linear's errors, and decodes the answer's data into out. It is how the
// other Linear sinks (linear-agent) talk to Linear. once: an answer that
// may have been lost is not retried (a create without a client id).
// requests counts the HTTP requests sent, retries included.
func (s *Sink) Exec(ctx context.Context, op, query string, vars map[string]any, out any, once bool) (requests int, err *CallError) {
	if err := s.loadStored(ctx); err != nil {
		var se *sinks.Error
		if !errors.As(err, &se) {
			se = &sinks.Error{Cause: err.Error()}
		}
		return 0, &CallError{Error: se}
	}
	r := s.newRun(ctx)
	f := r.retry(ctx, func() *failure {
		f := r.call(ctx, op, query, vars, out)
		if f != nil && once && f.ambiguous {
			f.permanent = true
		}
		return f
	})
	if f == nil {
		return r.requests, nil
	}
	var se *sinks.Error
	if !errors.As(r.error(f), &se) {
		se = &sinks.Error{Cause: f.cause, Permanent: f.permanent}
	}
	return r.requests, &CallError{Error: se, NotFound: f.notFound, Exists: f.exists, Forbidden: f.forbidden}
}

// HasCredential says whether the sink has a key or a token to send:
// LINEAR_API_KEY, LINEAR_OAUTH_TOKEN, or the sign-in of `ccc linear login`,
// read (and refreshed when due) on the first ask, once per sink; with
// neither variable set and nothing stored, that costs one failed open.
// err: the stored sign-in cannot be used (Linear refused its refresh:
// log in again), a retryable *sinks.Error.
func (s *Sink) HasCredential(ctx context.Context) (bool, error) {
	if err := s.loadStored(ctx); err != nil {
		return false, err
	}
	h, _ := s.credential()
	return h != "", nil
}
