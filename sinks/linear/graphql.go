package linear

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	graphql "github.com/hasura/go-graphql-client"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// The documents the sink sends. Linear's ids are String!, not ID!; the
// schema test validates every one of them against Linear's schema.
const (
	mutationCommentUpdate = `mutation CommentUpdate($id: String!, $input: CommentUpdateInput!) {
  commentUpdate(id: $id, input: $input) { success comment { id url updatedAt } }
}`
	mutationCommentCreate = `mutation CommentCreate($input: CommentCreateInput!) {
  commentCreate(input: $input) { success comment { id url updatedAt } }
}`
	// IssueComments reads a page backward (last/before) or forward
	// (first/after); see findOwn.
	queryIssueComments = `query IssueComments($issue: String!, $last: Int, $before: String, $first: Int, $after: String) {
  viewer { id }
  issue(id: $issue) {
    comments(last: $last, before: $before, first: $first, after: $after, orderBy: createdAt) {
      nodes { id url body createdAt updatedAt user { id } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
}`
	queryComment = `query Comment($id: String!) {
  viewer { id }
  comment(id: $id) { id url body createdAt updatedAt archivedAt user { id } issue { id identifier } }
}`
	queryViewer = `query Viewer {
  viewer { id name email }
  organization { name urlKey }
}`
	queryIssue = `query Issue($issue: String!) {
  issue(id: $issue) { id identifier title url }
}`
)

// documents lists every GraphQL document the sink can send.
func documents() []string {
	return []string{mutationCommentUpdate, mutationCommentCreate, queryIssueComments, queryComment, queryViewer, queryIssue}
}

type comment struct {
	ID        string    `json:"id"`
	URL       string    `json:"url"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

type commentPayload struct {
	Success bool     `json:"success"`
	Comment *comment `json:"comment"`
}

func (p commentPayload) result(op string) (*comment, *failure) {
	if !p.Success || p.Comment == nil || p.Comment.ID == "" {
		return nil, &failure{op: op, cause: "Linear did not save the comment", permanent: true}
	}
	return p.Comment, nil
}

// fullComment is a comment with what tells whose it is.
type fullComment struct {
	comment
	Body       string     `json:"body"`
	ArchivedAt *time.Time `json:"archivedAt"`
	User       *struct {
		ID string `json:"id"`
	} `json:"user"`
}

// by says whether the comment was written by user id.
func (c *fullComment) by(id string) bool { return c.User != nil && c.User.ID == id }

type viewer struct {
	ID string `json:"id"`
}

type commentsPage struct {
	Viewer viewer `json:"viewer"`
	Issue  struct {
		Comments struct {
			Nodes    []fullComment `json:"nodes"`
			PageInfo struct {
				HasNextPage     bool   `json:"hasNextPage"`
				HasPreviousPage bool   `json:"hasPreviousPage"`
				StartCursor     string `json:"startCursor"`
				EndCursor       string `json:"endCursor"`
			} `json:"pageInfo"`
		} `json:"comments"`
	} `json:"issue"`
}

type commentAnswer struct {
	Viewer  viewer `json:"viewer"`
	Comment struct {
		fullComment
		Issue *struct {
			ID         string `json:"id"`
			Identifier string `json:"identifier"`
		} `json:"issue"`
	} `json:"comment"`
}

// ours says whether the comment is one this sink may update for t: on
// t's issue, written by the viewer, not archived, ending with t's agent's
// marker.
func (a *commentAnswer) ours(t sinks.Target) bool {
	c := &a.Comment
	onIssue := c.Issue != nil && (strings.EqualFold(c.Issue.Identifier, t.Issue) || c.Issue.ID == t.Issue)
	return onIssue && c.by(a.Viewer.ID) && c.ArchivedAt == nil && HasMarker(c.Body, t.Agent)
}

// failure is one classified failed request.
type failure struct {
	op    string
	cause string
	// permanent failures are not retried.
	permanent bool
	// notFound: Linear said "Entity not found" (of entity).
	notFound bool
	entity   string
	// exists: a create said the id is taken; gone: by a comment that no
	// longer exists.
	exists, gone bool
	// forbidden: Linear refused the request to this user (another
	// user's comment).
	forbidden bool
	// ambiguous: the request may have been carried out.
	ambiguous bool
	// wait is the server's hint of when to try again.
	wait time.Duration
	err  error
}

// run is the state of one delivery or check: the counted requests and the
// deadline they live in.
type run struct {
	s        *Sink
	gql      *graphql.Client
	requests int
	// status and header of the last answer; 0 and nil when none came.
	status int
	header http.Header
	// budget is the time the context allowed at the start, 0 for none.
	budget time.Duration
}

func (s *Sink) newRun(ctx context.Context) *run {
	r := &run{s: s}
	if dl, ok := ctx.Deadline(); ok {
		r.budget = dl.Sub(s.cfg.Now())
	}
	auth, _ := s.credential()
	r.gql = graphql.NewClient(s.cfg.URL, doerFunc(r.do)).WithRequestModifier(func(req *http.Request) {
		req.Header.Set("Authorization", auth)
		req.Header.Set("User-Agent", "ccc")
	})
	return r
}

type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(req *http.Request) (*http.Response, error) { return f(req) }

// do sends one HTTP request, counting it and keeping the answer's status
// and headers, which the GraphQL client does not hand back on errors.
func (r *run) do(req *http.Request) (*http.Response, error) {
	r.requests++
	resp, err := r.s.cfg.HTTPClient.Do(req)
	if resp != nil {
		r.status, r.header = resp.StatusCode, resp.Header
	}
	return resp, err
}

// call sends one GraphQL request and decodes its data into out.
func (r *run) call(ctx context.Context, op, query string, vars map[string]any, out any) *failure {
	r.status, r.header = 0, nil
	data, err := r.gql.ExecRaw(ctx, query, vars, graphql.OperationName(op))
	if err != nil {
		return r.classify(ctx, op, err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &failure{op: op, cause: "unexpected answer from Linear", permanent: true, err: err}
	}
	return nil
}

// linearError is one entry of the "errors" array of a Linear answer.
type linearError struct {
	Message    string `json:"message"`
	Extensions struct {
		Code                   string `json:"code"`
		Type                   string `json:"type"`
		UserPresentableMessage string `json:"userPresentableMessage"`
	} `json:"extensions"`
}

func (e linearError) text() string {
	if m := e.Extensions.UserPresentableMessage; m != "" {
		return m
	}
	return e.Message
}

// kind folds Linear's code and type spellings ("RATELIMITED",
// "ratelimited", "authentication error", "AUTHENTICATION_ERROR") into one.
func (e linearError) kind() string {
	k := e.Extensions.Code
	if k == "" {
		k = e.Extensions.Type
	}
	return strings.NewReplacer("_", "", " ", "", "-", "").Replace(strings.ToLower(k))
}

// transientKinds are GraphQL error kinds worth another try.
var transientKinds = map[string]bool{
	"internalservererror": true, "internalerror": true, "networkerror": true, "locktimeout": true,
}

func (r *run) classify(ctx context.Context, op string, err error) *failure {
	f := &failure{op: op, err: err}
	if r.status == 0 {
		if ctx.Err() != nil {
			return r.ctxFailure(ctx, op)
		}
		var gerrs graphql.Errors
		if errors.As(err, &gerrs) && len(gerrs) > 0 && gerrs[0].Extensions["code"] == graphql.ErrGraphQLEncode {
			f.cause, f.permanent = "could not encode the request", true
			return f
		}
		f.cause, f.ambiguous = "network error: "+sinks.NetCause(err), true
		return f
	}

	var errs []linearError
	var nerr graphql.NetworkError
	var gerrs graphql.Errors
	switch {
	case errors.As(err, &nerr):
		var body struct {
			Errors []linearError `json:"errors"`
		}
		if json.Unmarshal([]byte(nerr.Body()), &body) == nil {
			errs = body.Errors
		}
	case errors.As(err, &gerrs):
		for _, g := range gerrs {
			switch g.Extensions["code"] {
			case graphql.ErrJsonDecode, graphql.ErrRequestError:
				if r.status == http.StatusOK || r.status == http.StatusCreated {
					// A 200 that is not JSON comes from something in
					// front of Linear; the request may have run.
					f.cause, f.ambiguous = "unexpected answer from Linear", true
				} else {
					f.cause, f.permanent = fmt.Sprintf("HTTP %d", r.status), true
				}
				return f
			}
			var le linearError
			le.Message = g.Message
			if ext := g.Extensions; ext != nil {
				le.Extensions.Code, _ = ext["code"].(string)
				le.Extensions.Type, _ = ext["type"].(string)
				le.Extensions.UserPresentableMessage, _ = ext["userPresentableMessage"].(string)
			}
			errs = append(errs, le)
		}
	}

	kinds := map[string]linearError{}
	for _, e := range errs {
		kinds[e.kind()] = e
	}
	_, limited := kinds["ratelimited"]
	_, denied := kinds["authenticationerror"]
	_, forbidden := kinds["forbidden"]
	switch {
	case limited || r.status == http.StatusTooManyRequests:
		f.wait = retryHint(r.header, r.s.cfg.Now())
		f.cause = "rate limited"
		if f.wait > 0 {
			f.cause += ", retry after " + sinks.HumanDuration(f.wait, time.Second)
		}
		return f
	case denied || r.status == http.StatusUnauthorized:
		_, variable := r.s.credential()
		f.cause, f.permanent = "authentication failed: check "+variable, true
		return f
	case forbidden || r.status == http.StatusForbidden:
		f.cause, f.permanent, f.forbidden = "permission denied", true, true
		if e, ok := kinds["forbidden"]; ok {
			f.cause += ": " + sinks.Short(e.text())
		}
		return f
	case r.status >= 500:
		// An edge in trouble (503 with maintenance, overload) may say
		// when to come back; Retry still keeps the wait in the deadline.
		f.wait = sinks.RetryAfterHeader(r.header, r.s.cfg.Now())
		f.cause, f.ambiguous = fmt.Sprintf("HTTP %d", r.status), true
		return f
	}
	for _, e := range errs {
		switch {
		case strings.HasPrefix(e.Message, "Entity not found"):
			f.notFound, f.permanent = true, true
			f.entity = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(e.Message, "Entity not found"), ":"))
			f.cause = "not found: " + sinks.Short(e.text())
			return f
		case strings.Contains(strings.ToLower(e.Message+" "+e.Extensions.UserPresentableMessage), "already exists"):
			f.exists, f.permanent = true, true
			f.cause = "rejected by Linear: " + sinks.Short(e.text())
			return f
		}
	}
	for _, e := range errs {
		if transientKinds[e.kind()] {
			f.cause, f.ambiguous = "Linear error: "+sinks.Short(e.text()), true
			return f
		}
	}
	f.permanent = true
	if len(errs) > 0 {
		f.cause = "rejected by Linear: " + sinks.Short(errs[0].text())
	} else {
		f.cause = fmt.Sprintf("HTTP %d", r.status)
	}
	return f
}

// ctxFailure is the failure of a context that ended.
func (r *run) ctxFailure(ctx context.Context, op string) *failure {
	return &failure{op: op, permanent: true, err: ctx.Err(), cause: sinks.ContextCause(ctx, r.budget)}
}

// retryHint is how long Linear asks us to wait: Retry-After (seconds or an
// HTTP date), else the reset time (epoch milliseconds) of a budget that ran
// out. Linear sends every budget's reset on every answer; the reset of one
// with requests left is the end of its hourly window, no reason to wait.
func retryHint(h http.Header, now time.Time) time.Duration {
	if d := sinks.RetryAfterHeader(h, now); d > 0 {
		return d
	}
	for _, budget := range []string{"X-RateLimit-Requests-", "X-RateLimit-Complexity-"} {
		if left := h.Get(budget + "Remaining"); left != "" && left != "0" {
			continue
		}
		if d := sinks.ResetHeader(h, budget+"Reset", 0).Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// retry runs attempt with the sink's retry policy (see sinks.Retry).
func (r *run) retry(ctx context.Context, attempt func() *failure) *failure {
	return sinks.Retry(ctx, r.s.cfg.Policy(), attempt, func(last *failure) *failure { return r.ctxFailure(ctx, last.op) })
}

func (f *failure) Permanent() bool           { return f.permanent }
func (f *failure) RetryAfter() time.Duration { return f.wait }

// error turns a failure into the sink's error, keeping every credential
// out of its text.
func (r *run) error(f *failure) error {
	e := sinks.NewError("linear", f.op, f.cause, f.permanent, f.err, r.s.cfg.APIKey, r.s.cfg.OAuthToken)
	e.RetryAfter = f.wait
	return e
}
