package sinks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// Defaults of Tuning's fields, the same for every tracker.
const (
	DefaultProgressPath    = ".ccc-progress.md"
	DefaultInitialInterval = 500 * time.Millisecond
	DefaultMaxInterval     = 10 * time.Second
	DefaultMaxAttempts     = 8
)

// Tuning is what the tracker sinks (Linear, GitHub) share of their Config:
// how long a comment may be and how each request is retried. The zero value
// of every field means its default (see WithDefaults).
type Tuning struct {
	// MaxBody is the longest comment body sent, in characters (runes),
	// marker included.
	MaxBody int
	// ProgressPath is named in the note of a truncated body whose
	// delivery does not say where its full text is.
	ProgressPath string

	// InitialInterval and MaxInterval bound the exponential backoff
	// (multiplier 2, jitter ±50%) between retries of one request.
	InitialInterval time.Duration
	MaxInterval     time.Duration
	// MaxAttempts caps the tries of one request. The context's deadline is
	// the real bound; this one stops a context without a deadline from
	// retrying forever.
	MaxAttempts int
	// Sleep waits d or until ctx ends (returning ctx.Err()). Tests replace
	// it to record waits instead of spending them.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock that deadlines and rate-limit reset times are
	// compared against.
	Now func() time.Time
	// NewID makes the PendingID persisted before a create whose id the
	// sink cannot derive (a random UUID v4).
	NewID func() string
}

// WithDefaults fills t's zero fields; maxBody is the tracker's own limit.
func (t Tuning) WithDefaults(maxBody int) Tuning {
	if t.MaxBody <= 0 {
		t.MaxBody = maxBody
	}
	if t.ProgressPath == "" {
		t.ProgressPath = DefaultProgressPath
	}
	if t.InitialInterval <= 0 {
		t.InitialInterval = DefaultInitialInterval
	}
	if t.MaxInterval <= 0 {
		t.MaxInterval = DefaultMaxInterval
	}
	if t.MaxAttempts <= 0 {
		t.MaxAttempts = DefaultMaxAttempts
	}
	if t.Sleep == nil {
		t.Sleep = Sleep
	}
	if t.Now == nil {
		t.Now = time.Now
	}
	if t.NewID == nil {
		t.NewID = uuid.NewString
	}
	return t
}

// Policy is the RetryPolicy t describes.
func (t Tuning) Policy() RetryPolicy {
	return RetryPolicy{Initial: t.InitialInterval, Max: t.MaxInterval, MaxAttempts: t.MaxAttempts, Sleep: t.Sleep, Now: t.Now}
}

// NewError builds the error of a request that failed for the named sink:
// "<sink>: <op>: <err>", err being cause when nil. Every secret (of four
// characters or more) is redacted from its text and from Cause.
func NewError(sink, op, cause string, permanent bool, err error, secrets ...string) *Error {
	if err == nil {
		err = errors.New(cause)
	}
	return &Error{
		Cause:     redact.Values(cause, secrets),
		Permanent: permanent,
		Err:       &redacted{err: fmt.Errorf("%s: %s: %w", sink, op, err), secrets: secrets},
	}
}

type redacted struct {
	err     error
	secrets []string
}

func (e *redacted) Error() string { return redact.Values(e.err.Error(), e.secrets) }
func (e *redacted) Unwrap() error { return e.err }
