// Package sinks holds the contract between the checkpoint pipeline and the
// trackers that receive a session's status (Linear, GitHub, ...), and the
// one registry that lists them.
package sinks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Target names where a status goes and who writes it.
type Target struct {
	// Issue is the tracker's own name for the thing commented on:
	// "CIA-123" for Linear, "owner/repo#12" for GitHub.
	Issue string
	// Agent identifies the writer; every agent owns one comment per issue.
	Agent string
}

// Ref is what a sink remembers about the comment it owns, stored in the state
// file between runs. The zero Ref means "nothing written yet".
type Ref struct {
	ID  string `json:"id,omitempty"`
	URL string `json:"url,omitempty"`
	// BodyHash is BodyHash(body) of the last body delivered.
	BodyHash string `json:"bodyHash,omitempty"`
	// PendingID is a client-chosen id persisted before a create whose
	// answer has not been seen yet, so a retry cannot create a duplicate.
	PendingID string    `json:"pendingId,omitempty"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
	// Sig is the caller's signature of the reference (sinks neither set
	// nor read it): a stored reference without a valid one was not written
	// by this user's ccc, and is delivered with Delivery.Unverified.
	Sig string `json:"sig,omitempty"`
}

// Delivery is one status body for one target.
type Delivery struct {
	Target Target
	// Body is the rendered status (Markdown) without any sink marker; the
	// sink adds its own marker and truncates to its limit.
	Body string
	// Prev is the reference stored by the last successful delivery.
	Prev Ref
	// Unverified says Prev was not written by this user's ccc (a
	// repository may have committed it, naming anyone's comment): before
	// updating Prev.ID the sink checks that the comment is on Target.Issue,
	// written by the same account and ends with the agent's marker, and
	// when it is not, leaves it alone and finds or creates the agent's
	// comment as if nothing were stored. Prev.PendingID is then empty.
	Unverified bool
	// Tag, when set, signs fields with the user's key (hex). A sink that
	// can bind its marker to one comment (Linear, whose ids the client
	// chooses) writes the tag into the marker and adopts only a comment
	// whose tag verifies, so that a person's look-alike comment is never
	// taken for ccc's. Nil: untagged markers, adopted as before.
	Tag func(fields ...string) string
	// Persist stores an intermediate Ref (a PendingID) before a create is
	// sent. Sinks that choose ids on the client must call it and must not
	// send the create if it fails. May be nil in tests.
	Persist func(Ref) error
	// FullText says where the full text is, for the truncation note
	// ("report.md", "the job summary"); empty: .ccc-progress.md.
	FullText string
}

// Action says what a delivery did.
type Action string

const (
	Created   Action = "created"
	Updated   Action = "updated"
	Unchanged Action = "unchanged"
	Skipped   Action = "skipped"
	Failed    Action = "failed"
)

// Result is a delivery's outcome.
type Result struct {
	Action Action
	// Ref is the reference to store for the next delivery (BodyHash set by
	// Deliver).
	Ref Ref
	// Requests counts the HTTP requests the delivery made, retries included.
	Requests int
}

// Sink delivers a status body to one tracker.
type Sink interface {
	// Name is the sink's registry name ("linear", "github").
	Name() string
	// Title is how reports name the sink's step ("Linear" in
	// "Linear update skipped — ...").
	Title() string
	// Upsert writes d.Body as this agent's one status comment on d.Target:
	// update d.Prev.ID when set; when that comment is gone, find the
	// agent's own comment by its marker (authored by the same account) and
	// update it; otherwise create one. It is idempotent: repeating a
	// delivery never leaves two comments. Errors are *Error values (or
	// Skip values when the sink cannot run, e.g. missing credentials);
	// Permanent errors must not have been retried.
	Upsert(ctx context.Context, d Delivery) (Result, error)
}

// Error is a failed delivery. Cause is short and safe to print
// ("HTTP 503", "rate limited, retry after 40s"): it never holds a secret.
type Error struct {
	Cause     string
	Permanent bool
	// RetryAfter is how long the tracker asked to be left alone
	// (Retry-After, a rate limit's reset); 0 when it said nothing. The
	// outbox waits at least this long before the next attempt.
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return e.Cause
	}
	return e.Cause + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// SkipError says a sink had nothing to do, or could not run for a reason
// that is not a failure (no credentials, no target).
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return "skipped: " + e.Reason }

// Skip returns a SkipError with the reason.
func Skip(format string, args ...any) error {
	return &SkipError{Reason: fmt.Sprintf(format, args...)}
}

var updatedLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\*\*Updated:\*\*.*$`) })

// BodyHash hashes a status body for the unchanged check. The **Updated:**
// line is left out: a new timestamp alone is no change.
func BodyHash(body string) string {
	norm := updatedLine().ReplaceAllString(strings.ReplaceAll(body, "\r\n", "\n"), "")
	sum := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(sum[:])
}

// Deliver runs one delivery through s, sending nothing at all when the body
// is unchanged since d.Prev (a verified one). It fills Result.Ref.BodyHash.
func Deliver(ctx context.Context, s Sink, d Delivery) (Result, error) {
	hash := BodyHash(d.Body)
	if d.Prev.ID != "" && d.Prev.BodyHash == hash && !d.Unverified {
		return Result{Action: Unchanged, Ref: d.Prev}, nil
	}
	res, err := s.Upsert(ctx, d)
	if err != nil {
		var skip *SkipError
		if errors.As(err, &skip) {
			res.Action = Skipped
		} else {
			res.Action = Failed
		}
		return res, err
	}
	res.Ref.BodyHash = hash
	return res, nil
}

// Health is what a sink found when asked to check its configuration.
type Health struct {
	// Credential names the environment variable in use (never its value).
	Credential string
	// Account is who the credentials authenticate as.
	Account string
	// Target describes the target as the tracker knows it ("" when none
	// was asked about).
	Target    string
	TargetURL string
	// RateLimit is the request budget the tracker reported (Known false
	// when its answers carried none).
	RateLimit RateLimit
	Requests  int
}

// RateLimit is a tracker's primary request budget as its answer headers
// report it.
type RateLimit struct {
	Known            bool
	Limit, Remaining int
	Reset            time.Time
}

func (r RateLimit) String() string {
	if !r.Known {
		return ""
	}
	s := fmt.Sprintf("%d of %d requests left", r.Remaining, r.Limit)
	if !r.Reset.IsZero() {
		s += ", resets " + r.Reset.UTC().Format(time.RFC3339)
	}
	return s
}

// Low reports a budget nearly spent (under a tenth left): the next
// checkpoints may wait for the reset or fail.
func (r RateLimit) Low() bool { return r.Known && r.Limit > 0 && r.Remaining*10 < r.Limit }

// HealthChecker is an optional power of a sink: check credentials,
// connectivity and the target without writing anything. A sink that cannot
// run (no credentials) returns a SkipError.
type HealthChecker interface {
	Health(ctx context.Context, target string) (Health, error)
}

// Conversation is an optional power of a sink that people answer through
// (the Linear agent session): the hooks hand its replies to the agent and
// keep it from looking stale. Registry.Conversation finds the one to use.
type Conversation interface {
	Sink
	// Replies returns what people wrote for agent on issue since the hooks
	// last looked, as one block of text for the agent, and who pressed
	// stop ("" for no one). It never waits for a reply: one query within
	// a hook's budget; no issue or no session asks nothing. What it
	// returns it has consumed: the next call returns only newer ones.
	Replies(ctx context.Context, issue, agent string) (replies, stoppedBy string, err error)
	// KeepAlive tells the tracker that agent still works on issue (a
	// heartbeat, a stop-hook retry), rate-limited on the sink's side; sent
	// says whether anything went.
	KeepAlive(ctx context.Context, issue, agent, what string) (sent bool, err error)
}

// Phraser is an optional power of a sink that does not write comments: it
// words what a delivery did for the report line ("updated section in
// STATUS.md"); other sinks read "updated comment on CIA-123".
type Phraser interface {
	Phrase(a Action, target string) string
}
