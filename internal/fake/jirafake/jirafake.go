// Package jirafake is an in-process stand-in for the parts of Jira Cloud's
// REST API v3 that the Jira sink uses, for tests: it stores issues and their
// comments (bodies in the Atlassian Document Format, with their comment
// properties), answers the way Jira does (status codes, error bodies
// {"errorMessages", "errors"}, startAt/maxResults/total pages that may be
// shorter than asked, X-RateLimit-* headers, 429 with Retry-After and
// RateLimit-Reason), records every request, and replays scripted faults.
//
// Every request is checked against Atlassian's published OpenAPI
// description of the API and every comment body against the ADF JSON
// Schema (both in spec/, with their sources): a request that does not
// conform is answered 400, as Jira does, and counted in Invalid, so a test
// can require that none was sent.
//
//	srv := jirafake.New()
//	defer srv.Close()
//	srv.AddIssue("PROJ-1", "Ship the sink")
package jirafake

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ccc-checkpoint/ccc/internal/fake/fakeapi"
)

// The credentials the fake accepts.
const (
	// Email and APIToken are basic authentication of AccountID.
	Email    = "dev@example.com"
	APIToken = "ATATT3xFfGF0fakeJiraToken0123456789abcdef"
	// BearerToken is an OAuth 2.0 access token of AccountID.
	BearerToken = "eyJfakeJiraBearerToken0123456789abcdef"
	// OtherEmail and OtherAPIToken are another person's.
	OtherEmail    = "someone@example.com"
	OtherAPIToken = "ATATT3xFfGF0fakeOtherToken0123456789abcd"
)

// The accounts behind the credentials.
const (
	AccountID      = "5b10ac8d82e05b22cc7d4ef5"
	DisplayName    = "Dev Example"
	OtherAccountID = "5b10a2844c20165700ede21g"
)

// Operation names, as Atlassian's OpenAPI description names them (its
// operationId); Fault.Op and Request.Op use them.
const (
	OpMyself            = "getCurrentUser"
	OpGetIssue          = "getIssue"
	OpGetComments       = "getComments"
	OpAddComment        = "addComment"
	OpGetComment        = "getComment"
	OpUpdateComment     = "updateComment"
	OpDeleteComment     = "deleteComment"
	OpGetCommentProp    = "getCommentProperty"
	OpSetCommentProp    = "setCommentProperty"
	OpUnknown           = ""
	maxPageSize         = 5000
	defaultMaxResults   = 5000
	defaultRateLimit    = 350
	rateLimitWindow     = time.Minute
	errIssueNotFound    = "Issue does not exist or you do not have permission to see it."
	errNotAuthenticated = "Client must be authenticated to access this resource."
)

// MaxBody is Jira's limit on a comment's text, in characters.
const MaxBody = 32767

// Comment is a comment as the fake stores it.
type Comment struct {
	ID string
	// Issue is the key, "PROJ-1".
	Issue     string
	AccountID string
	// Body is the ADF document as stored (JSON).
	Body       json.RawMessage
	Properties map[string]json.RawMessage
	Created    time.Time
	Updated    time.Time
	Deleted    bool
}

// Request is one request as received. Header never holds Authorization.
type Request struct {
	Method   string
	Path     string
	RawQuery string
	Op       string
	Header   http.Header
	// AccountID is who the credentials authenticated as, "" when they did
	// not.
	AccountID string
	Body      string
	// Status is the HTTP status answered; 0 when the connection was dropped.
	Status int
	Fault  string
	// Invalid says why the request did not conform to the published
	// description ("" when it did).
	Invalid string
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

// errorBody is Jira's error document.
func errorBody(messages []string, fields map[string]string) string {
	if messages == nil {
		messages = []string{}
	}
	if fields == nil {
		fields = map[string]string{}
	}
	b, _ := json.Marshal(map[string]any{"errorMessages": messages, "errors": fields})
	return string(b)
}

// Unavailable is an HTTP 5xx from Atlassian's edge.
func Unavailable(status int) Fault {
	return Fault{Name: fmt.Sprintf("http-%d", status), Status: status, Body: errorBody([]string{http.StatusText(status)}, nil)}
}

// RateLimited is a 429 as Atlassian documents it: Retry-After in seconds,
// X-RateLimit-Reset the ISO 8601 time the limit resets (now+retryAfter),
// RateLimit-Reason naming the limit (jira-burst-based,
// jira-per-issue-on-write, jira-quota-tenant-based, ...).
func RateLimited(now time.Time, retryAfter time.Duration, reason string) Fault {
	h := http.Header{}
	h.Set("Retry-After", fakeapi.RetryAfterSeconds(retryAfter))
	h.Set("X-RateLimit-Reset", now.Add(retryAfter).UTC().Format("2006-01-02T15:04Z"))
	h.Set("X-RateLimit-Limit", strconv.Itoa(defaultRateLimit))
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("RateLimit-Reason", reason)
	return Fault{Name: "ratelimit", Status: http.StatusTooManyRequests, Header: h, Body: errorBody([]string{"Rate limit exceeded."}, nil)}
}

// BadCredentials is Jira's answer to a revoked or mistyped API token.
func BadCredentials() Fault {
	return Fault{Name: "auth", Status: http.StatusUnauthorized, Body: errorBody([]string{errNotAuthenticated}, nil)}
}

// Forbidden is a 403: the account may not comment on the issue.
func Forbidden() Fault {
	return Fault{Name: "forbidden", Status: http.StatusForbidden,
		Body: errorBody([]string{"You do not have permission to create comments for this issue."}, nil)}
}

type account struct{ id, name, email string }

type issue struct {
	id, key, summary string
}

type script = fakeapi.Script[Fault, Request]

// Server is a running fake.
type Server struct {
	// URL is the site (JIRA_BASE_URL).
	URL string
	// PageSize, when positive, caps a page of comments below the
	// maxResults asked for, as Jira does for large pages.
	PageSize int

	srv *httptest.Server
	script

	router routers.Router
	adf    *jsonschema.Schema

	mu       sync.Mutex
	basic    map[string]*account // by "email:token"
	bearer   map[string]*account
	issues   []*issue
	comments []*Comment
	nextID   int
	used     map[string]int // requests in the current window, by account
	window   time.Time
	clock    func() time.Time
}

//go:embed spec/jira-openapi.json
var openAPI []byte

//go:embed spec/adf-schema.json
var adfSchema []byte

// Option configures a new Server.
type Option func(*Server)

// WithClock makes now the fake's clock (comments' times, rate-limit
// windows).
func WithClock(now func() time.Time) Option { return func(s *Server) { s.clock = now } }

// New starts a fake with the two accounts and no issues.
func New(opts ...Option) *Server {
	me := &account{id: AccountID, name: DisplayName, email: Email}
	other := &account{id: OtherAccountID, name: "Someone Else", email: OtherEmail}
	s := &Server{
		basic:  map[string]*account{Email + ":" + APIToken: me, OtherEmail + ":" + OtherAPIToken: other},
		bearer: map[string]*account{BearerToken: me},
		nextID: 10000,
		used:   map[string]int{},
		clock:  time.Now,
	}
	for _, o := range opts {
		o(s)
	}
	s.router, s.adf = mustLoadSpecs()
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

var specs = sync.OnceValues(func() (*openapi3.T, *jsonschema.Schema) {
	doc, err := openapi3.NewLoader().LoadFromData(openAPI)
	if err != nil {
		panic("jirafake: Jira's OpenAPI description: " + err.Error())
	}
	// Atlassian's examples are JSON written as strings, which the
	// description's own schemas refuse; the schemas are what counts.
	if err := doc.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		panic("jirafake: Jira's OpenAPI description does not validate: " + err.Error())
	}
	schema, err := jsonschema.UnmarshalJSON(bytes.NewReader(adfSchema))
	if err != nil {
		panic("jirafake: the ADF schema: " + err.Error())
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("adf.json", schema); err != nil {
		panic("jirafake: the ADF schema: " + err.Error())
	}
	adf, err := c.Compile("adf.json")
	if err != nil {
		panic("jirafake: the ADF schema: " + err.Error())
	}
	return doc, adf
})

func mustLoadSpecs() (routers.Router, *jsonschema.Schema) {
	doc, adf := specs()
	// The description's servers name Atlassian's site; the fake serves
	// the same paths on its own address.
	d := *doc
	d.Servers = nil
	r, err := gorillamux.NewRouter(&d)
	if err != nil {
		panic("jirafake: " + err.Error())
	}
	return r, adf
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

var keyRe = regexp.MustCompile(`^[A-Z][A-Z0-9_]*-[1-9][0-9]*$`)

// AddIssue creates issue key ("PROJ-1").
func (s *Server) AddIssue(key, summary string) {
	if !keyRe.MatchString(key) {
		panic("jirafake: want an issue key like PROJ-1, got " + key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.issues = append(s.issues, &issue{id: strconv.Itoa(10000 + len(s.issues)), key: key, summary: summary})
}

// AddComment stores a comment by accountID (AccountID, OtherAccountID) on
// issue as if written through the API, with an ADF body.
func (s *Server) AddComment(key, accountID string, body json.RawMessage) Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.issue(key)
	if is == nil {
		panic("jirafake: AddComment on unknown issue " + key)
	}
	return *s.create(is, accountID, body, nil)
}

// Comments lists the live comments on issue key, oldest first.
func (s *Server) Comments(key string) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments {
		if c.Issue == key && !c.Deleted {
			out = append(out, *c)
		}
	}
	return out
}

// DeleteComment deletes a comment, as a person would in Jira.
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

// Invalid lists the requests that did not conform to the published
// descriptions, with why.
func (s *Server) Invalid() []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Invalid != "" {
			out = append(out, r.Method+" "+r.Path+": "+r.Invalid)
		}
	}
	return out
}

func (s *Server) issue(key string) *issue {
	for _, is := range s.issues {
		if is.key == key || is.id == key {
			return is
		}
	}
	return nil
}

func (s *Server) create(is *issue, accountID string, body json.RawMessage, props map[string]json.RawMessage) *Comment {
	now := s.clock()
	c := &Comment{ID: strconv.Itoa(s.nextID), Issue: is.key, AccountID: accountID, Body: body,
		Properties: props, Created: now, Updated: now}
	s.nextID++
	s.comments = append(s.comments, c)
	return c
}

func (s *Server) authenticate(h string) *account {
	if t, ok := strings.CutPrefix(h, "Bearer "); ok {
		return s.bearer[strings.TrimSpace(t)]
	}
	if b, ok := strings.CutPrefix(h, "Basic "); ok {
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b))
		if err != nil {
			return nil
		}
		return s.basic[string(raw)]
	}
	return nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<24))
	if err != nil {
		return
	}
	header := r.Header.Clone()
	header.Del("Authorization")
	rec := Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: header, Body: string(raw)}

	route, params, rerr := s.router.FindRoute(r)
	if rerr == nil {
		rec.Op = route.Operation.OperationID
		rec.Invalid = s.validate(r, raw, route, params)
	} else {
		rec.Invalid = "no such operation: " + rerr.Error()
	}
	acct := s.authenticate(r.Header.Get("Authorization"))
	if acct != nil {
		rec.AccountID = acct.id
	}
	call := fakeapi.Begin(&s.script, func(f Fault) bool { return f.Op == "" || f.Op == rec.Op },
		func(f Fault) Request { rec.Fault = f.Name; return rec })
	fault := call.Fault
	if !fakeapi.Hold(r, fault.Delay) {
		return
	}
	if fault.Apply && acct != nil && rec.Invalid == "" {
		s.mu.Lock()
		_, _, _ = s.execute(rec.Op, params, r, acct, raw)
		s.mu.Unlock()
	}
	if fault.Drop {
		fakeapi.Drop(w)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json;charset=UTF-8")
	h.Set("X-Arequestid", fmt.Sprintf("fake-%04x", call.N))
	if fault.Status != 0 {
		fakeapi.WriteFault(w, fault.Status, fault.Header, fault.Body)
		call.Update(func(q *Request) { q.Status = fault.Status })
		return
	}
	status, body := s.answer(rec, route != nil, params, r, acct, raw, h)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
	call.Update(func(q *Request) { q.Status = status })
}

// answer runs a request that took no fault.
func (s *Server) answer(rec Request, routed bool, params map[string]string, r *http.Request, acct *account, raw []byte, h http.Header) (int, string) {
	if acct == nil {
		return http.StatusUnauthorized, errorBody([]string{errNotAuthenticated}, nil)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rateLimit(acct, h) {
		return http.StatusTooManyRequests, errorBody([]string{"Rate limit exceeded."}, nil)
	}
	if !routed {
		return http.StatusNotFound, errorBody([]string{"null for uri: " + r.URL.String()}, nil)
	}
	if rec.Invalid != "" {
		return http.StatusBadRequest, errorBody(nil, map[string]string{"request": rec.Invalid})
	}
	status, out, ferr := s.execute(rec.Op, params, r, acct, raw)
	if ferr != "" {
		return status, ferr
	}
	if out == nil {
		return status, ""
	}
	b, _ := json.Marshal(out)
	return status, string(b)
}

// rateLimit counts the request in the account's window and sets the
// X-RateLimit headers; true when the budget is spent.
func (s *Server) rateLimit(a *account, h http.Header) bool {
	now := s.clock()
	if now.Sub(s.window) >= rateLimitWindow {
		s.window, s.used = now, map[string]int{}
	}
	s.used[a.id]++
	left := max(defaultRateLimit-s.used[a.id], 0)
	h.Set("X-RateLimit-Limit", strconv.Itoa(defaultRateLimit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(left))
	if left < defaultRateLimit/5 {
		h.Set("X-RateLimit-NearLimit", "true")
	}
	if s.used[a.id] > defaultRateLimit {
		reset := s.window.Add(rateLimitWindow)
		h.Set("Retry-After", fakeapi.RetryAfterSeconds(reset.Sub(now)))
		h.Set("X-RateLimit-Reset", reset.UTC().Format("2006-01-02T15:04Z"))
		h.Set("RateLimit-Reason", "jira-burst-based")
		return true
	}
	return false
}

// validate checks a request against the OpenAPI description, and a
// comment body against the ADF schema; "" when it conforms.
func (s *Server) validate(r *http.Request, raw []byte, route *routers.Route, params map[string]string) string {
	req := r.Clone(r.Context())
	req.Body = io.NopCloser(bytes.NewReader(raw))
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	if err := openapi3filter.ValidateRequest(r.Context(), in); err != nil {
		return oneLine(err.Error())
	}
	if route.Operation.OperationID != OpAddComment && route.Operation.OperationID != OpUpdateComment {
		return ""
	}
	var body struct {
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || len(body.Body) == 0 {
		return "no comment body"
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(body.Body))
	if err != nil {
		return "body: " + oneLine(err.Error())
	}
	if err := s.adf.Validate(doc); err != nil {
		return "body is not ADF: " + oneLine(err.Error())
	}
	return ""
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// wire is a comment as Jira answers it.
func (s *Server) wire(c *Comment, a func(string) map[string]any) map[string]any {
	return map[string]any{
		"self":         s.URL + "/rest/api/3/issue/" + s.issue(c.Issue).id + "/comment/" + c.ID,
		"id":           c.ID,
		"author":       a(c.AccountID),
		"updateAuthor": a(c.AccountID),
		"body":         c.Body,
		"created":      c.Created.Format("2006-01-02T15:04:05.000-0700"),
		"updated":      c.Updated.Format("2006-01-02T15:04:05.000-0700"),
		"jsdPublic":    true,
	}
}

func (s *Server) user(id string) map[string]any {
	name := "Someone Else"
	if id == AccountID {
		name = DisplayName
	}
	return map[string]any{"self": s.URL + "/rest/api/3/user?accountId=" + id, "accountId": id,
		"displayName": name, "active": true, "accountType": "atlassian"}
}

// execute runs an operation on the store (s.mu held): the status, the
// answer, or an error body.
func (s *Server) execute(op string, params map[string]string, r *http.Request, a *account, raw []byte) (int, any, string) {
	notFound := errorBody([]string{errIssueNotFound}, nil)
	switch op {
	case OpMyself:
		u := s.user(a.id)
		u["emailAddress"] = a.email
		return http.StatusOK, u, ""
	case OpGetCommentProp, OpSetCommentProp:
		c := s.live(params["commentId"])
		if c == nil {
			return http.StatusNotFound, nil, errorBody([]string{"Can not find a comment for the id: " + params["commentId"] + "."}, nil)
		}
		key := params["propertyKey"]
		if op == OpGetCommentProp {
			v, ok := c.Properties[key]
			if !ok {
				return http.StatusNotFound, nil, errorBody([]string{"The property with key '" + key + "' does not exist."}, nil)
			}
			return http.StatusOK, map[string]any{"key": key, "value": v}, ""
		}
		if c.AccountID != a.id {
			return http.StatusForbidden, nil, errorBody([]string{"You do not have permission to edit this comment."}, nil)
		}
		_, had := c.Properties[key]
		if c.Properties == nil {
			c.Properties = map[string]json.RawMessage{}
		}
		c.Properties[key] = raw
		if had {
			return http.StatusOK, nil, ""
		}
		return http.StatusCreated, nil, ""
	}
	is := s.issue(params["issueIdOrKey"])
	if is == nil {
		return http.StatusNotFound, nil, notFound
	}
	switch op {
	case OpGetIssue:
		return http.StatusOK, map[string]any{"id": is.id, "key": is.key, "self": s.URL + "/rest/api/3/issue/" + is.id,
			"fields": map[string]any{"summary": is.summary}}, ""
	case OpGetComments:
		return http.StatusOK, s.page(is, r), ""
	case OpAddComment:
		body, props, msg := decodeWrite(raw)
		if msg != "" {
			return http.StatusBadRequest, nil, msg
		}
		return http.StatusCreated, s.wire(s.create(is, a.id, body, props), s.user), ""
	}
	c := s.live(params["id"])
	if c == nil || c.Issue != is.key {
		return http.StatusNotFound, nil, errorBody([]string{"Can not find a comment for the id: " + params["id"] + "."}, nil)
	}
	switch op {
	case OpGetComment:
		return http.StatusOK, s.wire(c, s.user), ""
	case OpDeleteComment:
		if c.AccountID != a.id {
			return http.StatusForbidden, nil, errorBody([]string{"You do not have permission to delete this comment."}, nil)
		}
		c.Deleted = true
		return http.StatusNoContent, nil, ""
	case OpUpdateComment:
		if c.AccountID != a.id {
			return http.StatusForbidden, nil, errorBody([]string{"You do not have permission to edit this comment."}, nil)
		}
		body, props, msg := decodeWrite(raw)
		if msg != "" {
			return http.StatusBadRequest, nil, msg
		}
		c.Body, c.Updated = body, s.clock()
		for k, v := range props {
			if c.Properties == nil {
				c.Properties = map[string]json.RawMessage{}
			}
			c.Properties[k] = v
		}
		return http.StatusOK, s.wire(c, s.user), ""
	}
	return http.StatusMethodNotAllowed, nil, errorBody([]string{"Method not allowed."}, nil)
}

func (s *Server) live(id string) *Comment {
	for _, c := range s.comments {
		if c.ID == id && !c.Deleted {
			return c
		}
	}
	return nil
}

// decodeWrite reads a create's or update's body and properties, refusing
// an empty or too long comment as Jira does.
func decodeWrite(raw []byte) (json.RawMessage, map[string]json.RawMessage, string) {
	var in struct {
		Body       json.RawMessage `json:"body"`
		Properties []struct {
			Key   string          `json:"key"`
			Value json.RawMessage `json:"value"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, nil, errorBody([]string{"Unexpected character in the request body."}, nil)
	}
	n := textLength(in.Body)
	if n == 0 {
		return nil, nil, errorBody(nil, map[string]string{"comment": "Comment body can not be empty!"})
	}
	if n > MaxBody {
		return nil, nil, errorBody(nil, map[string]string{"comment": "The entered text is too long. It exceeds the allowed limit of 32,767 characters."})
	}
	props := map[string]json.RawMessage{}
	for _, p := range in.Properties {
		props[p.Key] = p.Value
	}
	return in.Body, props, ""
}

// textLength counts the characters of an ADF document's text.
func textLength(doc json.RawMessage) int {
	var n struct {
		Text    string            `json:"text"`
		Content []json.RawMessage `json:"content"`
	}
	if json.Unmarshal(doc, &n) != nil {
		return 0
	}
	total := utf8.RuneCountInString(n.Text)
	for _, c := range n.Content {
		total += textLength(c)
	}
	return total
}

// page is one page of an issue's comments: startAt, maxResults (capped at
// PageSize, else 5,000, as Jira serves fewer than asked for), orderBy
// created or -created.
func (s *Server) page(is *issue, r *http.Request) map[string]any {
	q := r.URL.Query()
	start, _ := strconv.Atoi(q.Get("startAt"))
	size := defaultMaxResults
	if v, err := strconv.Atoi(q.Get("maxResults")); err == nil && v >= 0 {
		size = v
	}
	size = min(size, maxPageSize)
	if s.PageSize > 0 {
		size = min(size, s.PageSize)
	}
	var all []*Comment
	for _, c := range s.comments {
		if c.Issue == is.key && !c.Deleted {
			all = append(all, c)
		}
	}
	if strings.TrimSpace(q.Get("orderBy")) == "-created" {
		slices.Reverse(all)
	}
	start = max(start, 0)
	end := min(start+size, len(all))
	list := []map[string]any{}
	for _, c := range all[min(start, len(all)):end] {
		list = append(list, s.wire(c, s.user))
	}
	return map[string]any{"startAt": start, "maxResults": size, "total": len(all), "comments": list}
}

// ValidADF checks an ADF document against the Atlassian Document Format's
// JSON Schema, as the fake checks every comment body.
func ValidADF(doc json.RawMessage) error {
	_, adf := specs()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return adf.Validate(v)
}
