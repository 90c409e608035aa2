// Package linear is the Linear sink: it keeps one "Checkpoint Status"
// comment per agent on a Linear issue, over Linear's GraphQL API, with
// retries that respect Linear's rate limits, so that a delivery never leaves
// a duplicate comment and never silently loses an update.
package linear

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/ccc-checkpoint/ccc/markdown"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// Defaults for Config.
const (
	DefaultURL             = "https://api.linear.app/graphql"
	DefaultMaxBody         = 65000
	DefaultProgressPath    = ".ccc-progress.md"
	DefaultInitialInterval = 500 * time.Millisecond
	DefaultMaxInterval     = 10 * time.Second
	DefaultMaxAttempts     = 8
)

// Config says how to reach Linear. The zero value of every field but the
// credentials means its default.
type Config struct {
	// APIKey is a personal API key (LINEAR_API_KEY), sent bare in the
	// Authorization header. It wins over OAuthToken when both are set.
	APIKey string
	// OAuthToken (LINEAR_OAUTH_TOKEN) is sent as "Bearer <token>".
	OAuthToken string
	// URL is the GraphQL endpoint.
	URL        string
	HTTPClient *http.Client
	// MaxBody is the longest comment body sent, in characters (runes),
	// marker included.
	MaxBody int
	// ProgressPath is named in the note of a truncated body.
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
	// NewID makes the client-chosen id of a new comment (a UUID v4).
	NewID func() string
}

// ConfigFromEnv reads LINEAR_API_KEY, LINEAR_OAUTH_TOKEN and LINEAR_API_URL.
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{
		APIKey:     strings.TrimSpace(getenv("LINEAR_API_KEY")),
		OAuthToken: strings.TrimSpace(getenv("LINEAR_OAUTH_TOKEN")),
		URL:        strings.TrimSpace(getenv("LINEAR_API_URL")),
	}
}

// Sink is the Linear sink. It is safe for concurrent use.
type Sink struct {
	cfg Config
}

var _ sinks.Sink = (*Sink)(nil)

// New returns a sink for cfg, filling in defaults.
func New(cfg Config) *Sink {
	if cfg.URL == "" {
		cfg.URL = DefaultURL
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.ProgressPath == "" {
		cfg.ProgressPath = DefaultProgressPath
	}
	if cfg.InitialInterval <= 0 {
		cfg.InitialInterval = DefaultInitialInterval
	}
	if cfg.MaxInterval <= 0 {
		cfg.MaxInterval = DefaultMaxInterval
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sinks.Sleep
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = uuid.NewString
	}
	return &Sink{cfg: cfg}
}

// Name implements sinks.Sink.
func (s *Sink) Name() string { return "linear" }

// Title implements sinks.Sink.
func (s *Sink) Title() string { return "Linear" }

// credential returns the Authorization header value and the variable it
// came from, "" when there is none.
func (s *Sink) credential() (header, variable string) {
	switch {
	case s.cfg.APIKey != "":
		return s.cfg.APIKey, "LINEAR_API_KEY"
	case s.cfg.OAuthToken != "":
		return "Bearer " + s.cfg.OAuthToken, "LINEAR_OAUTH_TOKEN"
	}
	return "", ""
}

// Body is what Upsert sends for a status body: the body cut to MaxBody
// (less the marker) with a note naming the progress file, then the
// agent's marker as the last line, so that the marker always survives.
func (s *Sink) Body(status, agent string) string {
	marker := Marker(agent)
	limit := s.cfg.MaxBody - utf8.RuneCountInString(marker) - 2
	body := markdown.TruncateStatus(strings.TrimRight(status, " \t\r\n"), limit, markdown.TruncateNote(s.cfg.ProgressPath))
	return body + "\n\n" + marker
}

// Upsert implements sinks.Sink. In the steady state it sends one request:
// commentUpdate on d.Prev.ID. When that comment is gone, or nothing is
// stored, it looks through the issue's comments for the newest one written
// by the same Linear user whose last line is this agent's marker, and
// updates it. Otherwise it creates the comment with a client-chosen id that
// is persisted (d.Persist) before the create is sent, so that a create
// whose answer was lost is found again by that id rather than repeated;
// a stored d.Prev.PendingID is tried before anything else.
//
// Failures are *sinks.Error values with a short printable Cause; on
// failure the Result's Ref is what should be stored (it carries a
// PendingID once one was persisted). Without credentials Upsert returns a
// sinks.SkipError and sends nothing.
func (s *Sink) Upsert(ctx context.Context, d sinks.Delivery) (sinks.Result, error) {
	if h, _ := s.credential(); h == "" {
		return sinks.Result{Action: sinks.Skipped}, sinks.Skip("LINEAR_API_KEY not set")
	}
	if d.Target.Issue == "" {
		return sinks.Result{Action: sinks.Skipped}, sinks.Skip("no Linear issue to update")
	}
	if strings.TrimSpace(d.Target.Agent) == "" {
		return sinks.Result{Action: sinks.Failed, Ref: d.Prev}, &sinks.Error{Cause: "no agent name", Permanent: true}
	}
	r := s.newRun(ctx)
	u := &upsert{run: r, d: d, body: s.Body(d.Body, d.Target.Agent), ref: d.Prev}
	c, action, f := u.do(ctx)
	res := sinks.Result{Requests: r.requests}
	if f != nil {
		res.Action = sinks.Failed
		res.Ref = u.ref
		return res, r.error(f)
	}
	res.Action = action
	res.Ref = sinks.Ref{ID: c.ID, URL: c.URL, UpdatedAt: c.UpdatedAt}
	return res, nil
}

// upsert is the state of one Upsert.
type upsert struct {
	*run
	d    sinks.Delivery
	body string
	// ref is what the caller should store if the delivery fails.
	ref sinks.Ref
}

func (u *upsert) do(ctx context.Context) (*comment, sinks.Action, *failure) {
	if id := u.d.Prev.ID; id != "" {
		c, f := u.update(ctx, id, u.body)
		if f == nil {
			return c, sinks.Updated, nil
		}
		if !f.notFound {
			return nil, "", f
		}
	}
	if id := u.d.Prev.PendingID; id != "" {
		return u.create(ctx, id, true)
	}
	own, f := u.findOwn(ctx, u.d.Target)
	if f != nil {
		return nil, "", f
	}
	if own != nil {
		c, f := u.update(ctx, own.ID, u.body)
		if f == nil {
			return c, sinks.Updated, nil
		}
		if !f.notFound {
			return nil, "", f
		}
		// Deleted between the search and the update: create afresh.
	}
	return u.create(ctx, "", false)
}

// create makes the agent's comment with a client-chosen id. probe says the
// id may already name our comment (an earlier create whose answer was
// lost), so an update is tried first.
func (u *upsert) create(ctx context.Context, id string, probe bool) (*comment, sinks.Action, *failure) {
	if id == "" {
		var f *failure
		if id, f = u.newPending(); f != nil {
			return nil, "", f
		}
	}
	var c *comment
	f := u.retry(ctx, func() *failure {
		// missing: an update of id just said it does not exist.
		missing := false
		for range 3 {
			if probe {
				got, f := u.updateOnce(ctx, id, u.body)
				if f == nil {
					c = got
					return nil
				}
				if !f.notFound {
					return f
				}
				probe, missing = false, true
			}
			got, f := u.createOnce(ctx, id)
			if f == nil {
				c = got
				return nil
			}
			switch {
			case !f.exists:
				// A create that may have landed is checked by id
				// before it is sent again.
				probe = f.ambiguous
				return f
			case !missing:
				probe = true
			default:
				// The id names a comment that existed and was
				// deleted: it cannot be used again.
				if id, f = u.newPending(); f != nil {
					return f
				}
				missing = false
			}
		}
		return &failure{op: "commentCreate", cause: "comment id keeps colliding", permanent: true}
	})
	if f != nil {
		return nil, "", f
	}
	return c, sinks.Created, nil
}

// newPending chooses a comment id and persists it before any create.
func (u *upsert) newPending() (string, *failure) {
	id := u.s.cfg.NewID()
	ref := sinks.Ref{PendingID: id}
	if u.d.Persist != nil {
		if err := u.d.Persist(ref); err != nil {
			return "", &failure{op: "persist", cause: "could not store the new comment id", permanent: true, err: err}
		}
	}
	u.ref = ref
	return id, nil
}

// findOwn returns the newest comment on the issue written by the viewer
// whose last line is the agent's marker, nil when there is none. It reads
// every page: Linear's default order is not something to rely on.
func (u *upsert) findOwn(ctx context.Context, t sinks.Target) (*comment, *failure) {
	var best *comment
	var after any
	for range maxPages {
		var page commentsPage
		f := u.retry(ctx, func() *failure {
			return u.call(ctx, "IssueComments", queryIssueComments, map[string]any{"issue": t.Issue, "after": after}, &page)
		})
		if f != nil {
			return nil, u.issueNotFound(f, t.Issue)
		}
		for i, n := range page.Issue.Comments.Nodes {
			if n.User == nil || n.User.ID != page.Viewer.ID || !HasMarker(n.Body, t.Agent) {
				continue
			}
			if best == nil || n.CreatedAt.After(best.CreatedAt) {
				best = &page.Issue.Comments.Nodes[i].comment
			}
		}
		pi := page.Issue.Comments.PageInfo
		if !pi.HasNextPage || pi.EndCursor == "" {
			break
		}
		after = pi.EndCursor
	}
	return best, nil
}

// maxPages bounds the search for the agent's comment (50 comments a page).
const maxPages = 40

func (u *upsert) update(ctx context.Context, id, body string) (*comment, *failure) {
	var c *comment
	f := u.retry(ctx, func() *failure {
		var f *failure
		c, f = u.updateOnce(ctx, id, body)
		return f
	})
	return c, f
}

func (u *upsert) updateOnce(ctx context.Context, id, body string) (*comment, *failure) {
	var out struct {
		CommentUpdate commentPayload `json:"commentUpdate"`
	}
	vars := map[string]any{"id": id, "input": map[string]any{"body": body}}
	if f := u.call(ctx, "CommentUpdate", mutationCommentUpdate, vars, &out); f != nil {
		return nil, f
	}
	return out.CommentUpdate.result("commentUpdate")
}

func (u *upsert) createOnce(ctx context.Context, id string) (*comment, *failure) {
	var out struct {
		CommentCreate commentPayload `json:"commentCreate"`
	}
	vars := map[string]any{"input": map[string]any{
		"id": id, "issueId": u.d.Target.Issue, "body": u.body, "doNotSubscribeToIssue": true,
	}}
	if f := u.call(ctx, "CommentCreate", mutationCommentCreate, vars, &out); f != nil {
		return nil, u.issueNotFound(f, u.d.Target.Issue)
	}
	return out.CommentCreate.result("commentCreate")
}

// issueNotFound names the issue in a not-found failure of a request that
// was about the issue.
func (u *upsert) issueNotFound(f *failure, issue string) *failure {
	if f.notFound && (f.entity == "Issue" || f.entity == "") {
		f.cause = "issue " + issue + " not found"
		f.notFound = false
	}
	return f
}
