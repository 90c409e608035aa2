// Package githubfake is an in-process stand-in for the parts of GitHub's REST
// API that the GitHub sink uses, for tests: it stores issues, pull requests
// and their comments, answers the way GitHub does (status codes, error bodies
// {"message", "documentation_url", "status"}, x-ratelimit-* headers, Link
// pagination), records every request, and replays scripted faults (5xx,
// primary and secondary rate limits, bad credentials, the read-only token of
// a fork pull request, slow answers, dropped connections, lost responses).
//
// Start one with New, point the sink (or GITHUB_API_URL) at Server.URL and
// authenticate with one of the tokens below:
//
//	srv := githubfake.New()
//	defer srv.Close()
//	srv.AddPullRequest("octo/app#7", "Add the sink")
//	srv.Inject(githubfake.Unavailable(503))
//
// Answers a GitHub Enterprise Server base path when started with
// WithPrefix("/api/v3"); Server.URL then ends in that prefix.
package githubfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ccc-checkpoint/ccc/internal/fake/fakeapi"
)

// Tokens the fake accepts, sent as "Bearer <token>" or "token <token>".
const (
	// Token is a personal access token of Login.
	Token = "ghp_fakeUserToken0123456789abcdefghijkl"
	// OtherToken is a personal access token of OtherLogin.
	OtherToken = "ghp_fakeOtherToken0123456789abcdefghijk"
	// InstallationToken is an Actions GITHUB_TOKEN: GET /user answers 403
	// and what it writes is authored by BotLogin.
	InstallationToken = "ghs_fakeInstallationToken0123456789abcd"
	// ReadOnlyToken is the GITHUB_TOKEN of a pull request from a fork (or
	// of a workflow that did not grant issues/pull-requests: write): it
	// reads, and every write answers 403 "Resource not accessible by
	// integration".
	ReadOnlyToken = "ghs_fakeReadOnlyToken0123456789abcdefgh"
	// AppToken is an installation token of another GitHub App (as made by
	// actions/create-github-app-token): GET /user answers 403 and what it
	// writes is authored by AppLogin.
	AppToken = "ghs_fakeAppInstallationToken0123456789"
)

// The accounts behind the tokens.
const (
	Login      = "ccc-tester"
	OtherLogin = "someone-else"
	BotLogin   = "github-actions[bot]"
	AppLogin   = "my-app[bot]"
)

// Operation names, as GitHub's REST API description names them; Fault.Op
// and Request.Op use them.
const (
	OpGetUser       = "users/get-authenticated"
	OpGetIssue      = "issues/get"
	OpListComments  = "issues/list-comments"
	OpCreateComment = "issues/create-comment"
	OpGetComment    = "issues/get-comment"
	OpUpdateComment = "issues/update-comment"
	OpDeleteComment = "issues/delete-comment"
	OpRateLimit     = "rate-limit/get"
)

// DefaultRateLimit is the hourly request budget the fake reports for a
// personal token; an installation token gets InstallationRateLimit.
const (
	DefaultRateLimit      = 5000
	InstallationRateLimit = 1000
)

// APIVersion is the only X-GitHub-Api-Version the fake accepts.
const APIVersion = "2022-11-28"

// MaxBody is GitHub's limit on a comment body, in characters.
const MaxBody = 65536

// Documentation links GitHub puts in error bodies.
const (
	docsRest          = "https://docs.github.com/rest"
	docsRateLimit     = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits"
	docsSecondary     = "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	docsCreateComment = "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
	docsUpdateComment = "https://docs.github.com/rest/issues/comments#update-an-issue-comment"
	docsGetUser       = "https://docs.github.com/rest/users/users#get-the-authenticated-user"
)

// Comment is a comment as the fake stores it.
type Comment struct {
	ID int64
	// Issue is "owner/repo#N".
	Issue     string
	Login     string
	Body      string
	HTMLURL   string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Deleted comments answer 404 and are not listed.
	Deleted bool
	// App is the slug of the GitHub App the comment was written through
	// (performed_via_github_app), "" for none.
	App string
}

// Request is one request as received. Header never holds Authorization.
type Request struct {
	Method string
	// Path is the URL path, prefix included.
	Path     string
	RawQuery string
	// Op is the operation the route names, "" for an unknown route.
	Op     string
	Header http.Header
	// Login is who the token authenticated as, "" when it did not.
	Login string
	Body  string
	// Status is the HTTP status answered; 0 when the connection was
	// dropped or the client went away first.
	Status int
	// Fault is the name of the injected fault that answered, if any.
	Fault string
}

// Fault scripts one answer: fakeapi.Fault, the REST fakes' common kind.
type Fault = fakeapi.Fault

// The faults every REST fake scripts alike (fakeapi).
var (
	Slow         = fakeapi.Slow
	Dropped      = fakeapi.Dropped
	LostResponse = fakeapi.LostResponse
	Landed       = fakeapi.Landed
	Repeat       = fakeapi.Repeat
)

// Unavailable is an HTTP 5xx from GitHub's edge.
func Unavailable(status int) Fault {
	return Fault{
		Name: fmt.Sprintf("http-%d", status), Status: status,
		Body: errorBody(http.StatusText(status), docsRest, status),
	}
}

// UnavailableRetryAfter is an HTTP 5xx that says when to come back, as
// GitHub's edge does during an incident or maintenance.
func UnavailableRetryAfter(status int, retryAfter time.Duration) Fault {
	f := Unavailable(status)
	f.Name += "-retry-after"
	f.Header = http.Header{}
	f.Header.Set("Retry-After", fakeapi.RetryAfterSeconds(retryAfter))
	return f
}

// RateLimited is a primary rate limit: status 403 or 429, zero requests
// remaining, and the budget resetting at reset (sent in epoch seconds).
func RateLimited(status int, reset time.Time) Fault {
	h := http.Header{}
	h.Set("X-Ratelimit-Limit", strconv.Itoa(DefaultRateLimit))
	h.Set("X-Ratelimit-Remaining", "0")
	h.Set("X-Ratelimit-Used", strconv.Itoa(DefaultRateLimit))
	h.Set("X-Ratelimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-Ratelimit-Resource", "core")
	return Fault{
		Name: "ratelimit", Status: status, Header: h,
		Body: errorBody("API rate limit exceeded for user ID 1001. If you reach out to GitHub Support for help, please include the request ID 0000:FAKE.", docsRateLimit, status),
	}
}

// SecondaryRateLimit is a secondary rate limit: 403 with a message naming
// it, requests still remaining, and a Retry-After header when retryAfter is
// not zero.
func SecondaryRateLimit(status int, retryAfter time.Duration) Fault {
	h := http.Header{}
	if retryAfter > 0 {
		h.Set("Retry-After", fakeapi.RetryAfterSeconds(retryAfter))
	}
	return Fault{
		Name: "secondary", Status: status, Header: h,
		Body: errorBody("You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:FAKE.", docsSecondary, status),
	}
}

// BadCredentials is GitHub's answer to a revoked or mistyped token.
func BadCredentials() Fault {
	return Fault{Name: "auth", Status: http.StatusUnauthorized, Body: errorBody("Bad credentials", docsRest, http.StatusUnauthorized)}
}

// NotFound is GitHub's 404, also its answer for a repository the token
// cannot see.
func NotFound() Fault {
	return Fault{Name: "notfound", Status: http.StatusNotFound, Body: errorBody("Not Found", docsRest, http.StatusNotFound)}
}

// Invalid is a 422 Validation Failed with one field error.
func Invalid(message string) Fault {
	b, _ := json.Marshal(map[string]any{
		"message": "Validation Failed",
		"errors": []any{map[string]any{
			"resource": "IssueComment", "code": "custom", "field": "body", "message": message,
		}},
		"documentation_url": docsCreateComment,
		"status":            "422",
	})
	return Fault{Name: "invalid", Status: http.StatusUnprocessableEntity, Body: string(b)}
}

// ForkReadOnly is the 403 a read-only installation token (a pull request
// from a fork) gets for a write.
func ForkReadOnly() Fault {
	return Fault{Name: "readonly", Status: http.StatusForbidden, Body: errorBody(msgIntegration, docsCreateComment, http.StatusForbidden)}
}

const msgIntegration = "Resource not accessible by integration"

type user struct {
	Login string
	ID    int64
	Type  string
	// App is the slug of the app whose installation token this is.
	App string
	// installation tokens cannot read /user; readOnly ones cannot write.
	installation, readOnly bool
}

type issue struct {
	Owner, Repo string
	Number      int
	Title       string
	Pull        bool
}

func (is *issue) key() string { return fmt.Sprintf("%s/%s#%d", is.Owner, is.Repo, is.Number) }

// Option configures a new Server.
type Option func(*Server)

// WithPrefix serves the API under a path prefix, as GitHub Enterprise
// Server does ("/api/v3").
func WithPrefix(prefix string) Option {
	return func(s *Server) { s.prefix = "/" + strings.Trim(prefix, "/") }
}

// WithClock makes now the fake's clock: comments' timestamps and the
// rate-limit reset (an hour after New) are read from it, so a test that
// pins the sink's clock can pin the server's to the same instant.
func WithClock(now func() time.Time) Option {
	return func(s *Server) { s.clock = now }
}

type script = fakeapi.Script[Fault, Request]

// Server is a running fake. Its fault queue and request log (Inject,
// PendingFaults, ClearFaults, Requests, RequestCount) are a fakeapi.Script.
type Server struct {
	// URL is the API base (GITHUB_API_URL), prefix included.
	URL string
	// WebURL is the base of html_url links.
	WebURL string
	// PageSize, when positive, caps a page below the per_page asked for,
	// to test pagination without hundreds of comments.
	PageSize int

	srv    *httptest.Server
	prefix string
	script

	mu        sync.Mutex
	users     map[string]*user // by token
	issues    []*issue
	comments  []*Comment
	nextID    int64
	remaining map[string]int // by login
	reset     time.Time
	clock     func() time.Time
}

// New starts a fake with the five tokens' accounts and no issues.
func New(opts ...Option) *Server {
	s := &Server{
		WebURL: "https://github.com",
		users: map[string]*user{
			Token:             {Login: Login, ID: 1001, Type: "User"},
			OtherToken:        {Login: OtherLogin, ID: 1002, Type: "User"},
			InstallationToken: {Login: BotLogin, ID: 41898282, Type: "Bot", App: "github-actions", installation: true},
			ReadOnlyToken:     {Login: BotLogin, ID: 41898282, Type: "Bot", App: "github-actions", installation: true, readOnly: true},
			AppToken:          {Login: AppLogin, ID: 41900001, Type: "Bot", App: "my-app", installation: true},
		},
		nextID:    1_900_000_001,
		remaining: map[string]int{},
		clock:     time.Now,
	}
	for _, o := range opts {
		o(s)
	}
	s.reset = s.clock().Add(time.Hour)
	if s.prefix == "/" {
		s.prefix = ""
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + s.prefix
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// AddIssue creates issue "owner/repo#N".
func (s *Server) AddIssue(target, title string) { s.addIssue(target, title, false) }

// AddPullRequest creates pull request "owner/repo#N" (an issue, to the
// comment endpoints, whose html_url says /pull/).
func (s *Server) AddPullRequest(target, title string) { s.addIssue(target, title, true) }

var targetRe = regexp.MustCompile(`^([^/#\s]+)/([^/#\s]+)#([1-9][0-9]*)$`)

func (s *Server) addIssue(target, title string, pull bool) {
	m := targetRe.FindStringSubmatch(target)
	if m == nil {
		panic("githubfake: want owner/repo#N, got " + target)
	}
	n, _ := strconv.Atoi(m[3])
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.issue(m[1], m[2], n) != nil {
		panic("githubfake: " + target + " exists")
	}
	s.issues = append(s.issues, &issue{Owner: m[1], Repo: m[2], Number: n, Title: title, Pull: pull})
}

// AddComment stores a comment by login (Login, OtherLogin, BotLogin or any
// other name) on target as if written through the API, and returns it. A
// "<slug>[bot]" login writes through app <slug>, as a GitHub App's bot
// does.
func (s *Server) AddComment(target, login, body string) Comment {
	return s.AddCommentVia(target, login, appOf(login), body)
}

// AddCommentVia is AddComment through GitHub App app ("" for none): a
// person acting through an app, or a bot account that is no app.
func (s *Server) AddCommentVia(target, login, app, body string) Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.issueByKey(target)
	if is == nil {
		panic("githubfake: AddComment on unknown issue " + target)
	}
	c := s.create(is, login, body)
	c.App = app
	return *c
}

// appOf is the app slug of a bot login, "" for a person.
func appOf(login string) string {
	slug, ok := strings.CutSuffix(login, "[bot]")
	if !ok {
		return ""
	}
	return slug
}

// Comments lists the live comments on target, oldest first.
func (s *Server) Comments(target string) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments {
		if strings.EqualFold(c.Issue, target) && !c.Deleted {
			out = append(out, *c)
		}
	}
	return out
}

// Comment returns a comment by id, deleted or not.
func (s *Server) Comment(id int64) (Comment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.comments {
		if c.ID == id {
			return *c, true
		}
	}
	return Comment{}, false
}

// DeleteComment deletes a comment, as a person would on github.com.
func (s *Server) DeleteComment(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.live(id); c != nil {
		c.Deleted = true
		return true
	}
	return false
}

// route is a parsed request path.
type route struct {
	op          string
	owner, repo string
	number      int
	commentID   int64
}

var (
	reIssue    = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/([0-9]+)$`)
	reComments = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/([0-9]+)/comments$`)
	reComment  = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/comments/([0-9]+)$`)
)

func parseRoute(method, p string) route {
	switch {
	case p == "/user" && method == http.MethodGet:
		return route{op: OpGetUser}
	case p == "/rate_limit" && method == http.MethodGet:
		return route{op: OpRateLimit}
	}
	if m := reIssue.FindStringSubmatch(p); m != nil && method == http.MethodGet {
		n, _ := strconv.Atoi(m[3])
		return route{op: OpGetIssue, owner: m[1], repo: m[2], number: n}
	}
	if m := reComments.FindStringSubmatch(p); m != nil {
		n, _ := strconv.Atoi(m[3])
		r := route{owner: m[1], repo: m[2], number: n}
		switch method {
		case http.MethodGet:
			r.op = OpListComments
		case http.MethodPost:
			r.op = OpCreateComment
		}
		return r
	}
	if m := reComment.FindStringSubmatch(p); m != nil {
		id, _ := strconv.ParseInt(m[3], 10, 64)
		r := route{owner: m[1], repo: m[2], commentID: id}
		switch method {
		case http.MethodGet:
			r.op = OpGetComment
		case http.MethodPatch:
			r.op = OpUpdateComment
		case http.MethodDelete:
			r.op = OpDeleteComment
		}
		return r
	}
	return route{}
}

func tokenOf(h string) string {
	for _, scheme := range []string{"Bearer ", "bearer ", "token ", "Token "} {
		if t, ok := strings.CutPrefix(h, scheme); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	header := r.Header.Clone()
	header.Del("Authorization")
	rec := Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: header, Body: string(raw)}

	p, inPrefix := strings.CutPrefix(r.URL.Path, s.prefix)
	var rt route
	if inPrefix {
		rt = parseRoute(r.Method, p)
	}
	rec.Op = rt.op

	auth := r.Header.Get("Authorization")
	u := s.users[tokenOf(auth)] // users does not change after New
	if u != nil {
		rec.Login = u.Login
	}
	call := fakeapi.Begin(&s.script, func(f Fault) bool { return f.Op == "" || f.Op == rt.op },
		func(f Fault) Request { rec.Fault = f.Name; return rec })
	fault := call.Fault
	if !fakeapi.Hold(r, fault.Delay) {
		return
	}
	if fault.Apply && u != nil {
		s.mu.Lock()
		_ = s.execute(r, rt, u, raw)
		s.mu.Unlock()
	}
	if fault.Drop {
		fakeapi.Drop(w)
		return
	}

	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-GitHub-Media-Type", "github.v3; format=json")
	h.Set("X-GitHub-Api-Version-Selected", APIVersion)
	h.Set("X-GitHub-Request-Id", fmt.Sprintf("FAKE:%04X", call.N))
	h.Set("Access-Control-Expose-Headers", "ETag, Link, Location, Retry-After, X-GitHub-OTP, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset")
	s.mu.Lock()
	limited := s.rateLimitHeaders(h, u)
	s.mu.Unlock()

	if fault.Status != 0 {
		fakeapi.WriteFault(w, fault.Status, fault.Header, fault.Body)
		call.Update(func(q *Request) { q.Status = fault.Status })
		return
	}

	var a answer
	switch v := r.Header.Get("X-GitHub-Api-Version"); {
	case v != "" && v != APIVersion:
		a = failWith(http.StatusBadRequest, fmt.Sprintf("The version '%s' is not supported.", v), docsRest)
	case auth != "" && u == nil:
		a = failWith(http.StatusUnauthorized, "Bad credentials", docsRest)
	case u == nil:
		a = failWith(http.StatusUnauthorized, "Requires authentication", docsRest)
	case limited:
		a = failWith(http.StatusForbidden, fmt.Sprintf("API rate limit exceeded for user ID %d.", u.ID), docsRateLimit)
	default:
		s.mu.Lock()
		a = s.execute(r, rt, u, raw)
		s.mu.Unlock()
	}
	for k, vs := range a.header {
		h[k] = vs
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
	call.Update(func(q *Request) { q.Status = a.status })
}

// answer is what the fake sends back for a request it runs.
type answer struct {
	status int
	body   []byte
	header http.Header
}

func failWith(status int, message, docs string) answer {
	return answer{status: status, body: []byte(errorBody(message, docs, status))}
}

func jsonAnswer(status int, v any) answer {
	b, _ := json.Marshal(v)
	return answer{status: status, body: b}
}

// rateLimitHeaders spends one request of u's budget and sets the headers
// GitHub sends on every authenticated answer; it says whether the budget
// was already spent.
func (s *Server) rateLimitHeaders(h http.Header, u *user) bool {
	if u == nil {
		return false
	}
	limit := DefaultRateLimit
	if u.installation {
		limit = InstallationRateLimit
	}
	left, ok := s.remaining[u.Login]
	if !ok {
		left = limit
	}
	limited := left == 0
	if left > 0 {
		left--
	}
	s.remaining[u.Login] = left
	h.Set("X-Ratelimit-Limit", strconv.Itoa(limit))
	h.Set("X-Ratelimit-Remaining", strconv.Itoa(left))
	h.Set("X-Ratelimit-Used", strconv.Itoa(limit-left))
	h.Set("X-Ratelimit-Reset", strconv.FormatInt(s.reset.Unix(), 10))
	h.Set("X-Ratelimit-Resource", "core")
	return limited
}

// SetRemaining sets what is left of login's hourly budget; at zero every
// request answers GitHub's primary rate-limit 403.
func (s *Server) SetRemaining(login string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.remaining[login] = n
}

// errorBody is GitHub's error document.
func errorBody(message, docs string, status int) string {
	b, _ := json.Marshal(map[string]any{"message": message, "documentation_url": docs, "status": strconv.Itoa(status)})
	return string(b)
}

func notFound() answer { return failWith(http.StatusNotFound, "Not Found", docsRest) }

// execute runs a request with s.mu held.
func (s *Server) execute(r *http.Request, rt route, u *user, raw []byte) answer {
	switch rt.op {
	case OpGetUser:
		if u.installation {
			return failWith(http.StatusForbidden, msgIntegration, docsGetUser)
		}
		return jsonAnswer(http.StatusOK, s.userObject(u.Login))
	case OpRateLimit:
		return jsonAnswer(http.StatusOK, map[string]any{"resources": map[string]any{}, "rate": map[string]any{}})
	case OpGetIssue:
		is := s.issue(rt.owner, rt.repo, rt.number)
		if is == nil {
			return notFound()
		}
		return jsonAnswer(http.StatusOK, s.issueObject(is))
	case OpListComments:
		is := s.issue(rt.owner, rt.repo, rt.number)
		if is == nil {
			return notFound()
		}
		return s.list(r, is)
	case OpCreateComment:
		is := s.issue(rt.owner, rt.repo, rt.number)
		if is == nil {
			return notFound()
		}
		if u.readOnly {
			return failWith(http.StatusForbidden, msgIntegration, docsCreateComment)
		}
		body, bad := parseBody(raw)
		if bad != nil {
			return *bad
		}
		c := s.create(is, u.Login, body)
		c.App = u.App
		a := jsonAnswer(http.StatusCreated, s.commentObject(c))
		a.header = http.Header{"Location": {s.apiURL("repos", is.Owner, is.Repo, "issues", "comments", strconv.FormatInt(c.ID, 10))}}
		return a
	case OpGetComment, OpUpdateComment, OpDeleteComment:
		c := s.live(rt.commentID)
		if c == nil || !strings.HasPrefix(strings.ToLower(c.Issue), strings.ToLower(rt.owner+"/"+rt.repo+"#")) {
			return notFound()
		}
		if rt.op == OpGetComment {
			return jsonAnswer(http.StatusOK, s.commentObject(c))
		}
		if u.readOnly {
			return failWith(http.StatusForbidden, msgIntegration, docsUpdateComment)
		}
		if c.Login != u.Login {
			return failWith(http.StatusForbidden, "Must have admin rights to Repository.", docsUpdateComment)
		}
		if rt.op == OpDeleteComment {
			c.Deleted = true
			return answer{status: http.StatusNoContent}
		}
		body, bad := parseBody(raw)
		if bad != nil {
			return *bad
		}
		c.Body = body
		c.UpdatedAt = s.now()
		return jsonAnswer(http.StatusOK, s.commentObject(c))
	}
	return notFound()
}

// parseBody reads {"body": ...} and checks it as GitHub does; bad is the
// error answer when it fails.
func parseBody(raw []byte) (body string, bad *answer) {
	var in map[string]any
	if err := json.Unmarshal(raw, &in); err != nil {
		a := failWith(http.StatusBadRequest, "Problems parsing JSON", docsCreateComment)
		return "", &a
	}
	body, ok := in["body"].(string)
	if !ok {
		a := failWith(http.StatusUnprocessableEntity, "Invalid request.\n\nFor 'properties/body', nil is not a string.", docsCreateComment)
		return "", &a
	}
	var fieldErr map[string]any
	switch {
	case strings.TrimSpace(body) == "":
		fieldErr = map[string]any{"resource": "IssueComment", "code": "missing_field", "field": "body"}
	case utf8.RuneCountInString(body) > MaxBody:
		fieldErr = map[string]any{"resource": "IssueComment", "code": "custom", "field": "body",
			"message": fmt.Sprintf("body is too long (maximum is %d characters)", MaxBody)}
	default:
		return body, nil
	}
	a := jsonAnswer(http.StatusUnprocessableEntity, map[string]any{
		"message": "Validation Failed", "errors": []any{fieldErr},
		"documentation_url": docsCreateComment, "status": "422",
	})
	return "", &a
}

// list answers one page of an issue's comments, oldest first, with
// GitHub's Link header.
func (s *Server) list(r *http.Request, is *issue) answer {
	q := r.URL.Query()
	per := 30
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		per = min(v, 100)
	}
	if s.PageSize > 0 {
		per = min(per, s.PageSize)
	}
	page := 1
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		page = v
	}
	var live []*Comment
	for _, c := range s.comments {
		if c.Issue == is.key() && !c.Deleted {
			live = append(live, c)
		}
	}
	last := max((len(live)+per-1)/per, 1)
	start := min((page-1)*per, len(live))
	end := min(start+per, len(live))
	out := []any{}
	for _, c := range live[start:end] {
		out = append(out, s.commentObject(c))
	}

	link := func(p int, rel string) string {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("page", strconv.Itoa(p))
		u.RawQuery = v.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if page > 1 {
		links = append(links, link(page-1, "prev"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"))
	}
	a := jsonAnswer(http.StatusOK, out)
	if len(links) > 0 {
		a.header = http.Header{"Link": {strings.Join(links, ", ")}}
	}
	return a
}

func (s *Server) issue(owner, repo string, number int) *issue {
	for _, is := range s.issues {
		if strings.EqualFold(is.Owner, owner) && strings.EqualFold(is.Repo, repo) && is.Number == number {
			return is
		}
	}
	return nil
}

func (s *Server) issueByKey(key string) *issue {
	m := targetRe.FindStringSubmatch(key)
	if m == nil {
		return nil
	}
	n, _ := strconv.Atoi(m[3])
	return s.issue(m[1], m[2], n)
}

func (s *Server) live(id int64) *Comment {
	for _, c := range s.comments {
		if c.ID == id && !c.Deleted {
			return c
		}
	}
	return nil
}

// now is GitHub's clock: timestamps have whole seconds, so comments
// written in the same second tie.
func (s *Server) now() time.Time { return s.clock().UTC().Truncate(time.Second) }

func (s *Server) create(is *issue, login, body string) *Comment {
	t := s.now()
	c := &Comment{
		ID: s.nextID, Issue: is.key(), Login: login, Body: body,
		CreatedAt: t, UpdatedAt: t,
	}
	c.HTMLURL = s.htmlURL(is) + "#issuecomment-" + strconv.FormatInt(c.ID, 10)
	s.nextID++
	s.comments = append(s.comments, c)
	return c
}

func (s *Server) apiURL(parts ...string) string {
	return s.URL + "/" + strings.Join(parts, "/")
}

func (s *Server) htmlURL(is *issue) string {
	kind := "issues"
	if is.Pull {
		kind = "pull"
	}
	return fmt.Sprintf("%s/%s/%s/%s/%d", s.WebURL, is.Owner, is.Repo, kind, is.Number)
}

func (s *Server) userObject(login string) map[string]any {
	var u *user
	for _, v := range s.users {
		if v.Login == login {
			u = v
			break
		}
	}
	if u == nil {
		u = &user{Login: login, ID: 2000, Type: "User"}
		if strings.HasSuffix(login, "[bot]") {
			u.Type = "Bot"
		}
	}
	return map[string]any{
		"login": u.Login, "id": u.ID, "node_id": fmt.Sprintf("U_fake%d", u.ID), "type": u.Type,
		"site_admin": false, "html_url": s.WebURL + "/" + strings.TrimSuffix(u.Login, "[bot]"),
	}
}

func (s *Server) issueObject(is *issue) map[string]any {
	n := 0
	for _, c := range s.comments {
		if c.Issue == is.key() && !c.Deleted {
			n++
		}
	}
	o := map[string]any{
		"id": 500_000 + is.Number, "node_id": fmt.Sprintf("I_fake%d", is.Number), "number": is.Number,
		"title": is.Title, "state": "open", "comments": n, "user": s.userObject(Login),
		"url":      s.apiURL("repos", is.Owner, is.Repo, "issues", strconv.Itoa(is.Number)),
		"html_url": s.htmlURL(is),
	}
	if is.Pull {
		o["pull_request"] = map[string]any{
			"url":      s.apiURL("repos", is.Owner, is.Repo, "pulls", strconv.Itoa(is.Number)),
			"html_url": s.htmlURL(is),
		}
	}
	return o
}

func (s *Server) commentObject(c *Comment) map[string]any {
	is := s.issueByKey(c.Issue)
	assoc := "NONE"
	if c.Login == Login {
		assoc = "OWNER"
	}
	var app any
	if c.App != "" {
		app = map[string]any{
			"id": 15368 + len(c.App), "slug": c.App, "node_id": "MDM6QXBw" + c.App,
			"name": c.App, "owner": s.userObject(Login),
		}
	}
	return map[string]any{
		"id": c.ID, "node_id": fmt.Sprintf("IC_fake%d", c.ID),
		"url":                      s.apiURL("repos", is.Owner, is.Repo, "issues", "comments", strconv.FormatInt(c.ID, 10)),
		"html_url":                 c.HTMLURL,
		"issue_url":                s.apiURL("repos", is.Owner, is.Repo, "issues", strconv.Itoa(is.Number)),
		"body":                     c.Body,
		"user":                     s.userObject(c.Login),
		"created_at":               c.CreatedAt.UTC().Format(time.RFC3339),
		"updated_at":               c.UpdatedAt.UTC().Format(time.RFC3339),
		"author_association":       assoc,
		"performed_via_github_app": app,
	}
}
