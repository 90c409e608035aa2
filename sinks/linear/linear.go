// Package linear is the Linear sink: it keeps one "Checkpoint Status"
// comment per agent on a Linear issue, over Linear's GraphQL API, with
// retries that respect Linear's rate limits, so that a delivery never leaves
// a duplicate comment and never silently loses an update.
package linear

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/ccc-checkpoint/ccc/config"
	statuscomment "github.com/ccc-checkpoint/ccc/internal/comment"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// Defaults for Config (the others are sinks.Tuning's).
const (
	DefaultURL         = "https://api.linear.app/graphql"
	DefaultMaxBody     = 65000
	DefaultMaxAttempts = sinks.DefaultMaxAttempts
)

// Config says how to reach Linear. The zero value of every field but the
// credentials means its default.
type Config struct {
	// APIKey is a personal API key (LINEAR_API_KEY), sent bare in the
	// Authorization header. It wins over OAuthToken when both are set.
	APIKey string
	// OAuthToken (LINEAR_OAUTH_TOKEN) is sent as "Bearer <token>".
	OAuthToken string
	// StoredToken, asked only when APIKey and OAuthToken are empty, gives
	// the token of `ccc linear login` (StoredTokenFromEnv).
	StoredToken func(context.Context) (string, error)
	// URL is the GraphQL endpoint.
	URL        string
	HTTPClient *http.Client
	// Tuning's NewID makes the client-chosen id of a comment created when
	// the one CommentID names cannot be used.
	sinks.Tuning
}

// ConfigFromEnv reads LINEAR_API_KEY, LINEAR_OAUTH_TOKEN and LINEAR_API_URL.
func ConfigFromEnv(env config.LinearEnv) Config {
	return Config{
		APIKey:     strings.TrimSpace(env.APIKey),
		OAuthToken: strings.TrimSpace(env.OAuthToken),
		URL:        strings.TrimSpace(env.APIURL),
	}
}

// Sink is the Linear sink. It is safe for concurrent use.
type Sink struct {
	cfg    Config
	stored storedToken
}

var _ sinks.Sink = (*Sink)(nil)

// New returns a sink for cfg, filling in defaults.
func New(cfg Config) *Sink {
	if cfg.URL == "" {
		cfg.URL = DefaultURL
	}
	// The key goes to the API's own origin only, whatever a server's
	// redirect says.
	cfg.HTTPClient = sinks.GuardRedirects(cfg.HTTPClient)
	cfg.Tuning = cfg.Tuning.WithDefaults(DefaultMaxBody)
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
	case s.stored.token != "":
		return "Bearer " + s.stored.token, "ccc linear login"
	}
	return "", ""
}

// Body is what Upsert sends for a status body: the body cut to MaxBody
// (less the marker) with a note naming the progress file, then the
// agent's marker as the last line, so that the marker always survives.
func (s *Sink) Body(status, agent string) string {
	return statuscomment.WithMarker(status, Marker(agent), "", s.cfg.MaxBody, s.cfg.ProgressPath)
}

// CommentID is the id an agent's comment on an issue is created with when
// no id is stored: shaped as a UUID v4 (which Linear requires of a
// client-chosen id) and derived from the issue and the agent, so that a
// first delivery is a single commentCreate, and a delivery that lost its
// state (a new machine, a deleted state file) finds its comment by id.
func CommentID(issue, agent string) string {
	sum := sha256.Sum256([]byte("ccc-checkpoint/linear-comment/v1\x00" + strings.ToUpper(strings.TrimSpace(issue)) + "\x00" + agent))
	var id uuid.UUID
	copy(id[:], sum[:16])
	id[6] = id[6]&0x0f | 0x40 // version 4
	id[8] = id[8]&0x3f | 0x80 // RFC 4122 variant
	return id.String()
}

// Upsert implements sinks.Sink. In the steady state it sends one request:
// commentUpdate on d.Prev.ID. With nothing stored it sends one too: a
// commentCreate with the id CommentID gives the issue and agent, persisted
// (d.Persist) before the create is sent, so that a create whose answer was
// lost is found again by that id rather than repeated; a stored
// d.Prev.PendingID is tried, as an update then a create, before anything
// else.
//
// A d.Prev.ID that is Unverified is updated only after a query shows the
// comment is ours (as adopt checks), else recover.
//
// When Linear says that id is taken, the comment is fetched and updated if
// it is the same user's and ends with this agent's marker (ours, from a
// state that was lost). When it is not, or the stored comment is gone, the
// issue's comments are searched, newest first, for the newest one written
// by the same user whose last line is this agent's marker, which is
// updated; failing that the comment is created with a random id.
//
// Failures are *sinks.Error values with a short printable Cause; on
// failure the Result's Ref is what should be stored (it carries a
// PendingID once one was persisted). Without credentials Upsert returns a
// sinks.SkipError and sends nothing.
func (s *Sink) Upsert(ctx context.Context, d sinks.Delivery) (sinks.Result, error) {
	if err := s.loadStored(ctx); err != nil {
		return sinks.Result{Action: sinks.Failed, Ref: d.Prev}, err
	}
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
	u := &upsert{run: r, d: d, ref: d.Prev}
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
	d sinks.Delivery
	// ref is what the caller should store if the delivery fails.
	ref sinks.Ref
}

func (u *upsert) do(ctx context.Context) (*comment, sinks.Action, *failure) {
	if id := u.d.Prev.ID; id != "" && u.d.Unverified {
		// A stored id this user's ccc did not sign may name anyone's
		// comment: adopt checks it (one more request) before updating.
		c, ok, f := u.adopt(ctx, id)
		if f != nil {
			return nil, "", f
		}
		if ok {
			return c, sinks.Updated, nil
		}
		return u.recover(ctx)
	}
	if id := u.d.Prev.ID; id != "" {
		c, f := u.update(ctx, id)
		if f == nil {
			return c, sinks.Updated, nil
		}
		if !f.notFound {
			return nil, "", f
		}
		return u.recover(ctx)
	}
	id, probe := u.d.Prev.PendingID, true
	if id == "" {
		id, probe = CommentID(u.d.Target.Issue, u.d.Target.Agent), false
		if f := u.persist(id); f != nil {
			return nil, "", f
		}
	}
	c, f := u.create(ctx, id, probe)
	switch {
	case f == nil:
		return c, sinks.Created, nil
	case !f.exists:
		return nil, "", f
	case !f.gone:
		c, ok, f := u.adopt(ctx, id)
		if f != nil {
			return nil, "", f
		}
		if ok {
			return c, sinks.Updated, nil
		}
	}
	return u.recover(ctx)
}

// recover finds the agent's comment by its marker and updates it, or
// creates it afresh with a random id.
func (u *upsert) recover(ctx context.Context) (*comment, sinks.Action, *failure) {
	own, f := u.findOwn(ctx, u.d.Target)
	if f != nil {
		return nil, "", f
	}
	if own != nil {
		c, f := u.update(ctx, own.ID)
		if f == nil {
			return c, sinks.Updated, nil
		}
		if !f.notFound {
			return nil, "", f
		}
		// Deleted between the search and the update: create afresh.
	}
	id := u.s.cfg.NewID()
	if f := u.persist(id); f != nil {
		return nil, "", f
	}
	c, f := u.create(ctx, id, false)
	if f != nil {
		if f.exists {
			f.cause = "the new comment's id is taken"
		}
		return nil, "", f
	}
	return c, sinks.Created, nil
}

// create makes the agent's comment with the client-chosen id. probe says
// the id may already name our comment (a create whose answer was lost), so
// an update of it is tried first. A failure with exists set says the id is
// taken by a comment this user cannot simply update; gone says that
// comment no longer exists (deleted or archived).
func (u *upsert) create(ctx context.Context, id string, probe bool) (*comment, *failure) {
	var c *comment
	// missing: an update of id said it does not exist.
	missing := false
	f := u.retry(ctx, func() *failure {
		if probe {
			got, f := u.updateOnce(ctx, id)
			switch {
			case f == nil:
				c = got
				return nil
			case f.forbidden:
				// Another user's comment holds the id.
				f.exists = true
				return f
			case !f.notFound:
				return f
			}
			probe, missing = false, true
		}
		got, f := u.createOnce(ctx, id)
		if f == nil {
			c = got
			return nil
		}
		if f.exists {
			f.gone = missing
			return f
		}
		// A create that may have landed is checked by id before it is
		// sent again.
		probe = f.ambiguous
		return f
	})
	return c, f
}

// adopt updates the comment that holds id when it is on the target issue,
// the same user wrote it and it ends with this agent's marker: it is our
// own comment, whose stored id was lost or cannot be trusted. ok is false, with no failure, when the comment is not ours to
// take (another user's, another agent's, archived, or deleted).
func (u *upsert) adopt(ctx context.Context, id string) (c *comment, ok bool, f *failure) {
	var got commentAnswer
	f = u.retry(ctx, func() *failure {
		return u.call(ctx, "Comment", queryComment, map[string]any{"id": id}, &got)
	})
	switch {
	case f != nil && f.notFound:
		return nil, false, nil
	case f != nil:
		return nil, false, f
	case !got.ours(u.d.Target) || !u.owns(&got.Comment.fullComment):
		return nil, false, nil
	}
	c, f = u.update(ctx, id)
	switch {
	case f != nil && f.notFound:
		return nil, false, nil
	case f != nil:
		return nil, false, f
	}
	return c, true, nil
}

// body is the comment sent as id: the status, then the agent's marker,
// tagged for id when the delivery can tag.
func (u *upsert) body(id string) string {
	return statuscomment.WithMarker(u.d.Body, TaggedMarker(u.d.Target.Agent, u.tag(id)), u.d.FullText, u.s.cfg.MaxBody, u.s.cfg.ProgressPath)
}

// tag binds the marker of comment id to this user, issue and agent: a
// person who quotes the marker in a comment of their own quotes a tag made
// for another id. "" when the delivery has no Tag.
func (u *upsert) tag(id string) string {
	if u.d.Tag == nil {
		return ""
	}
	return u.d.Tag("ccc/linear-marker/v1", strings.ToUpper(strings.TrimSpace(u.d.Target.Issue)), u.d.Target.Agent, id)[:tagLen]
}

// owns says whether c's marker is one this user's ccc wrote for this
// agent: its tag verifies, or the comment holds the id ccc derives itself
// (CommentID), which no one creates through Linear's UI — so an older
// ccc's untagged marker and a CI job's (whose key is new on every run)
// are still found. Without a Tag any marker is.
func (u *upsert) owns(c *fullComment) bool {
	tag, ok := markerTag(c.Body, u.d.Target.Agent)
	switch {
	case !ok:
		return false
	case u.d.Tag == nil, c.ID == CommentID(u.d.Target.Issue, u.d.Target.Agent):
		return true
	case tag == "":
		return false
	}
	return subtle.ConstantTimeCompare([]byte(tag), []byte(u.tag(c.ID))) == 1
}

// persist stores id as the pending id of the comment about to be created,
// before any create is sent.
func (u *upsert) persist(id string) *failure {
	ref := sinks.Ref{PendingID: id}
	if u.d.Persist != nil {
		if err := u.d.Persist(ref); err != nil {
			return &failure{op: "persist", cause: "could not store the new comment id", permanent: true, err: err}
		}
	}
	u.ref = ref
	return nil
}

// Search bounds: comments per page, and pages read before giving up.
const (
	pageSize = 50
	maxPages = 200
)

// findOwn returns the newest comment on the issue written by the viewer
// whose last line is the agent's marker, nil when there is none. It reads
// the newest comments first and stops at the first match. Linear documents
// its connections as ordered by createdAt, not in which direction: the
// search reads backward (last/before), as from the end of a Relay
// connection, and if the first page shows the order is newest first, it
// reads forward from the start instead.
//
// Past maxPages it fails rather than create a second comment that an
// older one of ours, not yet read, would duplicate.
func (u *upsert) findOwn(ctx context.Context, t sinks.Target) (*fullComment, *failure) {
	backward := true
	var cursor any
	read := 0
	for range maxPages {
		vars := map[string]any{"issue": t.Issue}
		if backward {
			vars["last"], vars["before"] = pageSize, cursor
		} else {
			vars["first"], vars["after"] = pageSize, cursor
		}
		var page commentsPage
		f := u.retry(ctx, func() *failure {
			return u.call(ctx, "IssueComments", queryIssueComments, vars, &page)
		})
		if f != nil {
			return nil, u.issueNotFound(f, t.Issue)
		}
		conn := page.Issue.Comments
		more, next := conn.PageInfo.HasPreviousPage, conn.PageInfo.StartCursor
		if !backward {
			more, next = conn.PageInfo.HasNextPage, conn.PageInfo.EndCursor
		}
		if backward && cursor == nil && more && newestFirst(conn.Nodes) {
			backward = false
			continue
		}
		read += len(conn.Nodes)
		nodes := slices.Clone(conn.Nodes)
		slices.SortStableFunc(nodes, func(a, b fullComment) int { return b.CreatedAt.Compare(a.CreatedAt) })
		for i := range nodes {
			if nodes[i].by(page.Viewer.ID) && u.owns(&nodes[i]) {
				return &nodes[i], nil
			}
		}
		if !more || next == "" {
			return nil, nil
		}
		cursor = next
	}
	return nil, &failure{
		op: "IssueComments", permanent: true,
		cause: fmt.Sprintf("too many comments on %s: this agent's comment is not among the newest %d", t.Issue, read),
	}
}

// newestFirst says whether a page lists its comments newest first.
func newestFirst(nodes []fullComment) bool {
	return len(nodes) > 1 && nodes[0].CreatedAt.After(nodes[len(nodes)-1].CreatedAt)
}

func (u *upsert) update(ctx context.Context, id string) (*comment, *failure) {
	var c *comment
	f := u.retry(ctx, func() *failure {
		var f *failure
		c, f = u.updateOnce(ctx, id)
		return f
	})
	return c, f
}

func (u *upsert) updateOnce(ctx context.Context, id string) (*comment, *failure) {
	var out struct {
		CommentUpdate commentPayload `json:"commentUpdate"`
	}
	vars := map[string]any{"id": id, "input": map[string]any{"body": u.body(id)}}
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
		"id": id, "issueId": u.d.Target.Issue, "body": u.body(id), "doNotSubscribeToIssue": true,
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
