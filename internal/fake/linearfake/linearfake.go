// Package linearfake is an in-process stand-in for Linear's GraphQL API,
// for tests: it stores users, issues and comments, answers the queries and
// mutations the Linear sink sends the way Linear does (HTTP statuses, error
// bodies with extensions.code and userPresentableMessage, rate-limit
// headers, cursor pagination), records every request, and replays scripted
// faults (5xx, rate limits, authentication failures, slow answers, dropped
// connections, lost responses).
//
// Start one with New, point the sink (or LINEAR_API_URL) at Server.URL and
// authenticate with APIKey or OAuthToken:
//
//	srv := linearfake.New()
//	defer srv.Close()
//	srv.AddIssue("CIA-9", "Write the sink")
//	srv.Inject(linearfake.Unavailable(503), linearfake.Unavailable(503))
//
// It is not a GraphQL server: it parses documents but does not validate
// them against Linear's schema (tests do that with Requests), and it knows
// only the fields listed in the resolvers below.
package linearfake

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/ccc-checkpoint/ccc/internal/fake/fakeapi"
)

// Credentials the fake accepts. The viewer authenticates with APIKey (sent
// bare, as Linear wants personal keys) or OAuthToken (sent as "Bearer ...");
// OtherAPIKey is a second member of the workspace.
const (
	APIKey      = "lin_api_fakeViewerKey0123456789abcdef"
	OAuthToken  = "lin_oauth_fakeViewerToken0123456789abc"
	OtherAPIKey = "lin_api_fakeOtherKey0123456789abcdefgh"

	ViewerID    = "0b4e1a55-7d1c-4e4f-9a4e-2f6c1d9a0001"
	OtherUserID = "0b4e1a55-7d1c-4e4f-9a4e-2f6c1d9a0002"
)

// DefaultRateLimit is the request budget the fake reports per hour.
const DefaultRateLimit = 5000

// Comment is a comment as the fake stores it.
type Comment struct {
	ID      string
	IssueID string
	// Issue is the issue's identifier ("CIA-9").
	Issue     string
	UserID    string
	Body      string
	URL       string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Deleted comments are gone for the API but keep their id taken.
	Deleted bool
	// Archived comments are left out of the issue's comments and cannot be
	// updated, but comment(id:) still answers them, with archivedAt set;
	// their id is taken too.
	Archived   bool
	ArchivedAt time.Time
	// DoNotSubscribe records the create's doNotSubscribeToIssue.
	DoNotSubscribe bool
}

// Request is one request as received. Header never holds Authorization;
// User is who it authenticated as ("" when it did not).
type Request struct {
	// Operation is the operation name, or the first top-level field when
	// the document has no name.
	Operation string
	// Fields are the top-level fields ("commentUpdate", "viewer", ...).
	Fields    []string
	Query     string
	Variables map[string]any
	Header    http.Header
	User      string
	// Status is the HTTP status answered; 0 when the connection was
	// dropped or the client went away first.
	Status int
	// Fault is the name of the injected fault that answered, if any.
	Fault string
}

// Fault scripts one answer. A request takes the first queued fault whose
// Field is one of its top-level fields (an empty Field matches any request)
// and the fault is used up.
type Fault struct {
	// Name shows in Request.Fault.
	Name  string
	Field string
	// Status and Body answer instead of the request being run (Status 0:
	// run it normally).
	Status int
	Body   string
	Header http.Header
	// Delay holds the answer back; a client that gives up first gets
	// nothing and the request is not run.
	Delay time.Duration
	// Drop closes the connection without an answer. Apply runs the request
	// first, before the drop or the Status answer: the client cannot know
	// it succeeded.
	Drop  bool
	Apply bool
}

// Unavailable is an HTTP 5xx answer from Linear's edge.
func Unavailable(status int) Fault {
	return Fault{Name: fmt.Sprintf("http-%d", status), Status: status, Body: http.StatusText(status) + "\n"}
}

// UnavailableRetryAfter is an HTTP 5xx answer that says when to come back.
func UnavailableRetryAfter(status int, retryAfter time.Duration) Fault {
	f := Unavailable(status)
	f.Name += "-retry-after"
	f.Header = http.Header{}
	f.Header.Set("Retry-After", fakeapi.RetryAfterSeconds(retryAfter))
	return f
}

// RateLimited is Linear's rate-limit answer: HTTP 400 with code RATELIMITED,
// zero requests remaining, the reset time retryAfter from now, and a
// Retry-After header when withRetryAfter is set.
func RateLimited(retryAfter time.Duration, withRetryAfter bool) Fault {
	h := http.Header{}
	h.Set("X-RateLimit-Requests-Remaining", "0")
	h.Set("X-RateLimit-Requests-Reset", strconv.FormatInt(time.Now().Add(retryAfter).UnixMilli(), 10))
	if withRetryAfter {
		h.Set("Retry-After", fakeapi.RetryAfterSeconds(retryAfter))
	}
	return Fault{
		Name: "ratelimited", Status: http.StatusBadRequest, Header: h,
		Body: errorBody(gqlError{
			Message: "Rate limit exceeded", Code: "RATELIMITED", Type: "ratelimited",
			UserPresentableMessage: "You have exceeded the rate limit. Please try again later.",
		}),
	}
}

// TooManyRequests is a plain HTTP 429 with a Retry-After header.
func TooManyRequests(retryAfter time.Duration) Fault {
	h := http.Header{}
	h.Set("Retry-After", fakeapi.RetryAfterSeconds(retryAfter))
	return Fault{Name: "http-429", Status: http.StatusTooManyRequests, Header: h, Body: "Too Many Requests\n"}
}

// AuthFailure is Linear's answer to a bad key, whatever the request.
func AuthFailure() Fault {
	return Fault{Name: "auth", Status: http.StatusBadRequest, Body: errorBody(authError)}
}

// NotFound is Linear's "Entity not found" answer for entity ("Comment",
// "Issue") with the given HTTP status (Linear uses 200 and 400).
func NotFound(field, entity string, status int) Fault {
	return Fault{Name: "notfound", Field: field, Status: status, Body: errorBody(notFoundError(field, entity))}
}

// InvalidInput is a validation error on field.
func InvalidInput(field, message string) Fault {
	return Fault{Name: "invalid", Field: field, Status: http.StatusBadRequest, Body: errorBody(gqlError{
		Message: "Argument Validation Error", Code: "INVALID_INPUT", Type: "invalid input",
		UserPresentableMessage: message, Path: []any{field}, UserError: true,
	})}
}

// Slow answers normally after d.
func Slow(d time.Duration) Fault { return Fault{Name: "slow", Delay: d} }

// Dropped closes the connection without running the request.
func Dropped() Fault { return Fault{Name: "dropped", Drop: true} }

// LostResponse runs the next request for field, then drops the connection.
func LostResponse(field string) Fault {
	return Fault{Name: "lost", Field: field, Drop: true, Apply: true}
}

// Repeat returns n copies of f.
func Repeat(n int, f Fault) []Fault { return slices.Repeat([]Fault{f}, n) }

type user struct {
	ID, Name, Email string
	// App: the request's token is an app actor's (see isApp).
	App bool
}

type issue struct {
	ID, Identifier, Title string
}

type script = fakeapi.Script[Fault, Request]

// Server is a running fake. Its fault queue and request log (Inject,
// PendingFaults, ClearFaults, Requests, RequestCount) are a fakeapi.Script.
type Server struct {
	// URL is the GraphQL endpoint.
	URL string
	// PageSize caps how many comments one page holds (Linear: 50 by
	// default, at most 250); lower it to test pagination.
	PageSize int
	// NewestFirst lists connections newest first. Linear's documentation
	// says only that they are ordered by createdAt (or updatedAt); the
	// fake lists them oldest first, as Relay connections do, unless this
	// is set.
	NewestFirst bool
	// NoAgentSessionEvents is an OAuth application without webhooks for
	// "Agent session events": its app user's supportsAgentSessions is
	// false and agentSessionCreateOnIssue answers Linear's refusal
	// (AgentSessionsNotEnabled).
	NoAgentSessionEvents bool
	// PersonGrants makes every grant a person's, whatever actor the
	// authorization asked for: a token ccc must not take for an app's.
	PersonGrants bool
	// Clock is the agent sessions' clock (staleness, activity times);
	// nil: time.Now.
	Clock func() time.Time

	srv *httptest.Server
	script

	mu        sync.Mutex
	users     map[string]*user // by Authorization header value
	issues    []*issue
	comments  []*Comment
	sessions  []*Session
	issueWork map[string]*issueWork
	remaining int
	last      time.Time
	syncID    int

	oauthOnce sync.Once
	oauth     *oauthState
}

// New starts a fake with the viewer and one other user and no issues.
func New() *Server {
	s := &Server{
		PageSize:  50,
		remaining: DefaultRateLimit,
		users:     map[string]*user{},
	}
	viewer := &user{ID: ViewerID, Name: "Fake Viewer", Email: "viewer@example.com"}
	s.users[APIKey] = viewer
	s.users["Bearer "+OAuthToken] = viewer
	s.users[OtherAPIKey] = &user{ID: OtherUserID, Name: "Other Person", Email: "other@example.com"}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/graphql"
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// AddIssue creates an issue and returns its id.
func (s *Server) AddIssue(identifier, title string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := &issue{ID: uuid.NewString(), Identifier: identifier, Title: title}
	s.issues = append(s.issues, is)
	return is.ID
}

// AddComment stores a comment by userID (ViewerID, OtherUserID) as if it
// had been written through the API, and returns it.
func (s *Server) AddComment(issueIdentifier, userID, body string) Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.issue(issueIdentifier)
	if is == nil {
		panic("linearfake: AddComment on unknown issue " + issueIdentifier)
	}
	return *s.create(is, userID, uuid.NewString(), body, false)
}

// AddCommentWithID is AddComment with the comment's id chosen by the
// caller, as a client-chosen id of commentCreate is.
func (s *Server) AddCommentWithID(issueIdentifier, userID, id, body string) Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.issue(issueIdentifier)
	if is == nil {
		panic("linearfake: AddCommentWithID on unknown issue " + issueIdentifier)
	}
	return *s.create(is, userID, id, body, false)
}

// Comments lists the live (not deleted, not archived) comments on an
// issue, oldest first.
func (s *Server) Comments(issueIdentifier string) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments {
		if c.Issue == issueIdentifier && !c.Deleted && !c.Archived {
			out = append(out, *c)
		}
	}
	return out
}

// Comment returns a comment by id, deleted or not.
func (s *Server) Comment(id string) (Comment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.comments {
		if c.ID == id {
			return *c, true
		}
	}
	return Comment{}, false
}

// ArchiveComment archives a comment.
func (s *Server) ArchiveComment(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.comments {
		if c.ID == id && !c.Deleted && !c.Archived {
			c.Archived, c.ArchivedAt = true, s.now()
			return true
		}
	}
	return false
}

// DeleteComment deletes a comment, as a user would in Linear's UI.
func (s *Server) DeleteComment(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.comments {
		if c.ID == id && !c.Deleted {
			c.Deleted = true
			return true
		}
	}
	return false
}

type payload struct {
	Query         string         `json:"query"`
	Variables     map[string]any `json:"variables"`
	OperationName string         `json:"operationName"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.serveOAuth(w, r) {
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var p payload
	jsonErr := json.Unmarshal(raw, &p)
	doc, parseErr := parser.ParseQuery(&ast.Source{Input: p.Query})
	var op *ast.OperationDefinition
	if parseErr == nil {
		op = pickOperation(doc, p.OperationName)
	}

	header := r.Header.Clone()
	header.Del("Authorization")
	rec := Request{Query: p.Query, Variables: p.Variables, Header: header, Operation: p.OperationName}
	if op != nil {
		for _, sel := range op.SelectionSet {
			if f, ok := sel.(*ast.Field); ok {
				rec.Fields = append(rec.Fields, f.Name)
			}
		}
		if rec.Operation == "" {
			rec.Operation = op.Name
		}
		if rec.Operation == "" && len(rec.Fields) > 0 {
			rec.Operation = rec.Fields[0]
		}
	}

	u := s.authenticate(r.Header.Get("Authorization"))
	if u != nil {
		rec.User = u.ID
		c := *u
		// The fixed OAuthToken is an app's; an issued token is what its
		// grant says (authenticate).
		c.App = c.App || r.Header.Get("Authorization") == "Bearer "+OAuthToken
		u = &c
	}
	call := fakeapi.Begin(&s.script, func(f Fault) bool { return f.Field == "" || slices.Contains(rec.Fields, f.Field) },
		func(f Fault) Request { rec.Fault = f.Name; return rec })
	fault := call.Fault
	if !fakeapi.Hold(r, fault.Delay) {
		return
	}
	if fault.Apply && u != nil && op != nil {
		s.mu.Lock()
		s.execute(op, p.Variables, u)
		s.mu.Unlock()
	}
	if fault.Drop {
		fakeapi.Drop(w)
		return
	}

	s.mu.Lock()
	s.rateLimitHeaders(w.Header())
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")

	if fault.Status != 0 {
		fakeapi.WriteFault(w, fault.Status, fault.Header, fault.Body)
		call.Update(func(q *Request) { q.Status = fault.Status })
		return
	}

	status, body := s.answer(u, jsonErr, parseErr, op, p.Variables)
	w.WriteHeader(status)
	_, _ = w.Write(body)
	call.Update(func(q *Request) { q.Status = status })
}

func (s *Server) answer(u *user, jsonErr, parseErr error, op *ast.OperationDefinition, vars map[string]any) (int, []byte) {
	switch {
	case jsonErr != nil:
		return http.StatusBadRequest, []byte(errorBody(gqlError{Message: "Invalid JSON body", Code: "BAD_REQUEST"}))
	case parseErr != nil:
		return http.StatusBadRequest, []byte(errorBody(gqlError{
			Message: "Syntax Error: " + parseErr.Error(), Code: "GRAPHQL_PARSE_FAILED", Type: "graphql error",
		}))
	case op == nil:
		return http.StatusBadRequest, []byte(errorBody(gqlError{Message: "Unknown operation", Code: "GRAPHQL_VALIDATION_FAILED"}))
	case u == nil:
		return http.StatusBadRequest, []byte(errorBody(authError))
	}
	s.mu.Lock()
	data, gerr := s.execute(op, vars, u)
	s.mu.Unlock()
	if gerr != nil {
		// A failed non-null root field nulls the whole answer.
		b, _ := json.Marshal(map[string]any{"errors": []any{gerr.wire()}, "data": nil})
		return gerr.status(), b
	}
	b, _ := json.Marshal(map[string]any{"data": data})
	return http.StatusOK, b
}

func pickOperation(doc *ast.QueryDocument, name string) *ast.OperationDefinition {
	if name != "" {
		return doc.Operations.ForName(name)
	}
	if len(doc.Operations) == 1 {
		return doc.Operations[0]
	}
	return nil
}

// rateLimitHeaders sets the headers Linear sends on every answer.
func (s *Server) rateLimitHeaders(h http.Header) {
	if s.remaining > 0 {
		s.remaining--
	}
	reset := time.Now().Add(time.Hour).UnixMilli()
	h.Set("X-RateLimit-Requests-Limit", strconv.Itoa(DefaultRateLimit))
	h.Set("X-RateLimit-Requests-Remaining", strconv.Itoa(s.remaining))
	h.Set("X-RateLimit-Requests-Reset", strconv.FormatInt(reset, 10))
	h.Set("X-RateLimit-Complexity-Limit", "3000000")
	h.Set("X-RateLimit-Complexity-Remaining", "2999000")
	h.Set("X-RateLimit-Complexity-Reset", strconv.FormatInt(reset, 10))
	h.Set("X-Complexity", "10")
}

// gqlError is one entry of Linear's "errors" array.
type gqlError struct {
	Message                string
	Code                   string
	Type                   string
	UserPresentableMessage string
	Path                   []any
	UserError              bool
	HTTPStatus             int
}

func (e *gqlError) wire() map[string]any {
	ext := map[string]any{"code": e.Code}
	if e.Type != "" {
		ext["type"] = e.Type
	}
	if e.UserPresentableMessage != "" {
		ext["userPresentableMessage"] = e.UserPresentableMessage
	}
	if e.UserError {
		ext["userError"] = true
	}
	m := map[string]any{"message": e.Message, "extensions": ext}
	if e.Path != nil {
		m["path"] = e.Path
	}
	return m
}

func (e *gqlError) status() int {
	if e.HTTPStatus != 0 {
		return e.HTTPStatus
	}
	return http.StatusOK
}

func errorBody(e gqlError) string {
	b, _ := json.Marshal(map[string]any{"errors": []any{e.wire()}})
	return string(b)
}

var authError = gqlError{
	Message: "Authentication required, not authenticated", Code: "AUTHENTICATION_ERROR", Type: "authentication error",
	UserPresentableMessage: "You need to authenticate to access this operation.", UserError: true,
	HTTPStatus: http.StatusBadRequest,
}

func notFoundError(field, entity string) gqlError {
	return gqlError{
		Message: "Entity not found: " + entity, Code: "INVALID_INPUT", Type: "invalid input",
		UserPresentableMessage: "Could not find referenced " + entity + ".", Path: []any{field}, UserError: true,
	}
}

// object is a resolved GraphQL object: values are scalars, objects, lists
// of objects, or resolvers for fields that take arguments.
type object map[string]any

type resolver func(args map[string]any) (any, *gqlError)

func (s *Server) execute(op *ast.OperationDefinition, vars map[string]any, u *user) (map[string]any, *gqlError) {
	var root object
	switch op.Operation {
	case ast.Query:
		root = object{
			"viewer":       s.userObject(u, u),
			"organization": object{"id": "0b4e1a55-0000-4000-8000-00000000f00d", "name": "Fake Org", "urlKey": "fake"},
			"issue": resolver(func(args map[string]any) (any, *gqlError) {
				id, _ := args["id"].(string)
				is := s.issue(id)
				if is == nil {
					e := notFoundError("issue", "Issue")
					return nil, &e
				}
				return s.issueObject(is, u), nil
			}),
			"comment": resolver(func(args map[string]any) (any, *gqlError) {
				id, _ := args["id"].(string)
				c := s.find(id)
				if c == nil {
					e := notFoundError("comment", "Comment")
					return nil, &e
				}
				return s.commentObject(c, u), nil
			}),
		}
		s.agentQuery(root, u)
	case ast.Mutation:
		root = object{
			"commentCreate": resolver(func(args map[string]any) (any, *gqlError) { return s.commentCreate(args, u) }),
			"commentUpdate": resolver(func(args map[string]any) (any, *gqlError) { return s.commentUpdate(args, u) }),
		}
		s.agentMutations(root, u)
	default:
		return nil, &gqlError{Message: "Subscriptions are not supported", Code: "GRAPHQL_VALIDATION_FAILED", HTTPStatus: http.StatusBadRequest}
	}
	return project(op.SelectionSet, root, vars)
}

func project(set ast.SelectionSet, obj object, vars map[string]any) (map[string]any, *gqlError) {
	out := map[string]any{}
	for _, sel := range set {
		if frag, ok := sel.(*ast.InlineFragment); ok {
			// A union's member (agent activity content): its fields when
			// the object is of that type.
			if obj["__typename"] != frag.TypeCondition {
				continue
			}
			sub, gerr := project(frag.SelectionSet, obj, vars)
			if gerr != nil {
				return nil, gerr
			}
			maps.Copy(out, sub)
			continue
		}
		f, ok := sel.(*ast.Field)
		if !ok {
			return nil, &gqlError{Message: "fragments are not supported by linearfake", Code: "GRAPHQL_VALIDATION_FAILED", HTTPStatus: http.StatusBadRequest}
		}
		key := f.Alias
		if key == "" {
			key = f.Name
		}
		v, ok := obj[f.Name]
		if !ok {
			return nil, &gqlError{
				Message: fmt.Sprintf("Cannot query field %q on this type.", f.Name), Code: "GRAPHQL_VALIDATION_FAILED",
				Type: "graphql error", HTTPStatus: http.StatusBadRequest,
			}
		}
		if res, ok := v.(resolver); ok {
			args := map[string]any{}
			for _, a := range f.Arguments {
				val, err := a.Value.Value(vars)
				if err != nil {
					return nil, &gqlError{Message: err.Error(), Code: "GRAPHQL_VALIDATION_FAILED", HTTPStatus: http.StatusBadRequest}
				}
				args[a.Name] = val
			}
			var gerr *gqlError
			if v, gerr = res(args); gerr != nil {
				return nil, gerr
			}
		}
		pv, gerr := projectValue(f.SelectionSet, v, vars)
		if gerr != nil {
			return nil, gerr
		}
		out[key] = pv
	}
	return out, nil
}

func projectValue(set ast.SelectionSet, v any, vars map[string]any) (any, *gqlError) {
	switch v := v.(type) {
	case object:
		if v == nil {
			return nil, nil
		}
		return project(set, v, vars)
	case []object:
		list := make([]any, 0, len(v))
		for _, o := range v {
			p, gerr := project(set, o, vars)
			if gerr != nil {
				return nil, gerr
			}
			list = append(list, p)
		}
		return list, nil
	case time.Time:
		return v.UTC().Format("2006-01-02T15:04:05.000Z"), nil
	default:
		return v, nil
	}
}

func (s *Server) userObject(u, viewer *user) object {
	if u == nil {
		return nil
	}
	return object{"id": u.ID, "name": u.Name, "displayName": strings.Fields(u.Name)[0], "email": u.Email, "isMe": u == viewer, "app": u.App,
		"supportsAgentSessions": u.App && !s.NoAgentSessionEvents}
}

func (s *Server) userByID(id string) *user {
	for _, u := range s.users {
		if u.ID == id {
			return u
		}
	}
	return nil
}

func (s *Server) issue(idOrIdentifier string) *issue {
	for _, is := range s.issues {
		if is.ID == idOrIdentifier || strings.EqualFold(is.Identifier, idOrIdentifier) {
			return is
		}
	}
	return nil
}

// live finds a comment that is neither deleted nor archived.
func (s *Server) live(id string) *Comment {
	if c := s.find(id); c != nil && !c.Archived {
		return c
	}
	return nil
}

// find finds a comment that is not deleted.
func (s *Server) find(id string) *Comment {
	for _, c := range s.comments {
		if c.ID == id && !c.Deleted {
			return c
		}
	}
	return nil
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

func issueURL(is *issue) string {
	slug := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(is.Title), "-"), "-")
	return "https://linear.app/fake/issue/" + is.Identifier + "/" + slug
}

func (s *Server) issueObject(is *issue, viewer *user) object {
	o := object{
		"id": is.ID, "identifier": is.Identifier, "title": is.Title, "url": issueURL(is),
		"comments": resolver(func(args map[string]any) (any, *gqlError) {
			return s.commentPage(is, viewer, args)
		}),
	}
	s.issueWorkFields(o, is, viewer)
	return o
}

func (s *Server) commentObject(c *Comment, viewer *user) object {
	var archivedAt any
	if c.Archived {
		archivedAt = c.ArchivedAt
	}
	var is any
	if i := s.issue(c.IssueID); i != nil {
		is = s.issueObject(i, viewer)
	}
	return object{
		"id": c.ID, "body": c.Body, "url": c.URL, "createdAt": c.CreatedAt, "updatedAt": c.UpdatedAt,
		"archivedAt": archivedAt, "issueId": c.IssueID, "issue": is, "user": s.userObject(s.userByID(c.UserID), viewer),
	}
}

// commentPage answers a comments connection: ordered by createdAt (or
// updatedAt), oldest first unless NewestFirst, cursors being comment ids;
// first/after reads forward, last/before backward, as in Relay.
func (s *Server) commentPage(is *issue, viewer *user, args map[string]any) (any, *gqlError) {
	count := func(name string) (int, bool, *gqlError) {
		v, ok := args[name]
		if !ok || v == nil {
			return 0, false, nil
		}
		n, ok := toInt(v)
		if !ok || n < 0 || n > 250 {
			return 0, false, &gqlError{Message: name + " must be between 0 and 250", Code: "INVALID_INPUT", UserError: true, HTTPStatus: http.StatusBadRequest}
		}
		return n, true, nil
	}
	first, hasFirst, gerr := count("first")
	if gerr != nil {
		return nil, gerr
	}
	last, hasLast, gerr := count("last")
	if gerr != nil {
		return nil, gerr
	}
	if hasFirst && hasLast {
		return nil, &gqlError{Message: "first and last cannot be used together", Code: "INVALID_INPUT", UserError: true, HTTPStatus: http.StatusBadRequest}
	}
	if !hasFirst && !hasLast {
		first = 50
	}
	var live []*Comment
	for _, c := range s.comments {
		if c.IssueID == is.ID && !c.Deleted && !c.Archived {
			live = append(live, c)
		}
	}
	key := func(c *Comment) time.Time { return c.CreatedAt }
	if order, _ := args["orderBy"].(string); order == "updatedAt" {
		key = func(c *Comment) time.Time { return c.UpdatedAt }
	}
	slices.SortStableFunc(live, func(a, b *Comment) int { return key(a).Compare(key(b)) })
	if s.NewestFirst {
		slices.Reverse(live)
	}
	at := func(name string) (int, bool, *gqlError) {
		cursor, _ := args[name].(string)
		if cursor == "" {
			return 0, false, nil
		}
		for i, c := range live {
			if c.ID == cursor {
				return i, true, nil
			}
		}
		return 0, false, &gqlError{Message: "Invalid cursor", Code: "INVALID_INPUT", UserError: true, HTTPStatus: http.StatusBadRequest}
	}
	start, end := 0, len(live)
	if i, ok, gerr := at("after"); gerr != nil {
		return nil, gerr
	} else if ok {
		start = i + 1
	}
	if i, ok, gerr := at("before"); gerr != nil {
		return nil, gerr
	} else if ok {
		end = i
	}
	end = max(end, start)
	if hasLast {
		start = max(start, end-min(last, s.PageSize))
	} else {
		end = min(end, start+min(first, s.PageSize))
	}
	nodes := []object{}
	for _, c := range live[start:end] {
		nodes = append(nodes, s.commentObject(c, viewer))
	}
	page := object{"hasNextPage": end < len(live), "hasPreviousPage": start > 0, "startCursor": nil, "endCursor": nil}
	if end > start {
		page["startCursor"] = live[start].ID
		page["endCursor"] = live[end-1].ID
	}
	return object{"nodes": nodes, "pageInfo": page}, nil
}

func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case int64:
		return int(n), true
	case float64:
		return int(n), n == math.Trunc(n)
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}

func (s *Server) now() time.Time {
	t := time.Now().UTC().Truncate(time.Millisecond)
	if !t.After(s.last) {
		t = s.last.Add(time.Millisecond)
	}
	s.last = t
	return t
}

func (s *Server) create(is *issue, userID, id, body string, noSub bool) *Comment {
	t := s.now()
	c := &Comment{
		ID: id, IssueID: is.ID, Issue: is.Identifier, UserID: userID, Body: body,
		URL: issueURL(is) + "#comment-" + id[:8], CreatedAt: t, UpdatedAt: t, DoNotSubscribe: noSub,
	}
	s.comments = append(s.comments, c)
	return c
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func (s *Server) payload(c *Comment, viewer *user) object {
	s.syncID++
	return object{"success": true, "lastSyncId": float64(s.syncID), "comment": s.commentObject(c, viewer)}
}

func (s *Server) commentCreate(args map[string]any, u *user) (any, *gqlError) {
	in, _ := args["input"].(map[string]any)
	issueID, _ := in["issueId"].(string)
	body, _ := in["body"].(string)
	id, _ := in["id"].(string)
	noSub, _ := in["doNotSubscribeToIssue"].(bool)
	is := s.issue(issueID)
	if is == nil {
		e := notFoundError("commentCreate", "Issue")
		return nil, &e
	}
	if id == "" {
		id = uuid.NewString()
	} else if !uuidV4.MatchString(id) {
		return nil, &gqlError{
			Message: "Argument Validation Error", Code: "INVALID_INPUT", Type: "invalid input", UserError: true,
			UserPresentableMessage: "id must be a UUID v4.", Path: []any{"commentCreate"}, HTTPStatus: http.StatusBadRequest,
		}
	}
	for _, c := range s.comments {
		if c.ID == id {
			return nil, &gqlError{
				Message: "Entity already exists: Comment", Code: "INVALID_INPUT", Type: "invalid input", UserError: true,
				UserPresentableMessage: "A comment with this id already exists.", Path: []any{"commentCreate"},
				HTTPStatus: http.StatusBadRequest,
			}
		}
	}
	if strings.TrimSpace(body) == "" {
		return nil, &gqlError{
			Message: "Argument Validation Error", Code: "INVALID_INPUT", Type: "invalid input", UserError: true,
			UserPresentableMessage: "Comment body cannot be empty.", Path: []any{"commentCreate"}, HTTPStatus: http.StatusBadRequest,
		}
	}
	return s.payload(s.create(is, u.ID, id, body, noSub), u), nil
}

func (s *Server) commentUpdate(args map[string]any, u *user) (any, *gqlError) {
	id, _ := args["id"].(string)
	in, _ := args["input"].(map[string]any)
	c := s.live(id)
	if c == nil {
		e := notFoundError("commentUpdate", "Comment")
		return nil, &e
	}
	if c.UserID != u.ID {
		return nil, &gqlError{
			Message: "Forbidden", Code: "FORBIDDEN", Type: "forbidden", UserError: true,
			UserPresentableMessage: "You can only edit your own comments.", Path: []any{"commentUpdate"},
			HTTPStatus: http.StatusBadRequest,
		}
	}
	if body, ok := in["body"].(string); ok {
		c.Body = body
		c.UpdatedAt = s.now()
	}
	return s.payload(c, u), nil
}
