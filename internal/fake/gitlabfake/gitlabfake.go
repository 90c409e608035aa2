// Package gitlabfake is an in-process stand-in for the parts of GitLab's
// REST API v4 that the GitLab sink uses, for tests: projects named by their
// URL-encoded path or id, their issues and merge requests (by iid) and
// notes, answered the way GitLab does (status codes, {"message": ...}
// error bodies, X-Next-Page/X-Total pagination capped at 100 per page,
// RateLimit-* headers, 429 with Retry-After or with no header at all, as
// gitlab.com has answered), with every request recorded and scripted
// faults replayed.
//
//	srv := gitlabfake.New()
//	defer srv.Close()
//	srv.AddMergeRequest("acme/app!7", "Add the sink")
package gitlabfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ccc-checkpoint/ccc/internal/fake/fakeapi"
)

// Tokens the fake accepts in PRIVATE-TOKEN (or as "Bearer <token>").
const (
	// Token is a personal access token of Username.
	Token = "glpat-fakeUserToken0123456789ab"
	// OtherToken is another person's.
	OtherToken = "glpat-fakeOtherToken0123456789a"
	// JobToken is a CI_JOB_TOKEN: it reads, and every note write answers
	// 403, as GitLab does.
	JobToken = "glcbt-fakeJobToken0123456789abcd"
)

// The accounts behind the tokens.
const (
	UserID        = 4001
	Username      = "ccc-tester"
	OtherUserID   = 4002
	OtherUsername = "someone-else"
)

// Operation names (GitLab's API documentation's), for Fault.Op and
// Request.Op.
const (
	OpGetUser    = "user/get"
	OpGetIssue   = "issues/get"
	OpGetMR      = "merge_requests/get"
	OpListNotes  = "notes/list"
	OpCreateNote = "notes/create"
	OpGetNote    = "notes/get"
	OpUpdateNote = "notes/update"
	OpDeleteNote = "notes/delete"
)

// MaxBody is GitLab's limit on a note, in characters.
const MaxBody = 1_000_000

// RateLimit is the per-minute request budget the fake reports.
const RateLimit = 2000

// Note is a note as the fake stores it.
type Note struct {
	ID int64
	// Target is "group/project#12" or "group/project!34".
	Target    string
	AuthorID  int64
	Body      string
	System    bool
	CreatedAt time.Time
	UpdatedAt time.Time
	Deleted   bool
}

// Request is one request as received. Header never holds the token.
type Request struct {
	Method   string
	Path     string // escaped, as sent
	RawQuery string
	Op       string
	Header   http.Header
	UserID   int64
	Body     string
	Status   int
	Fault    string
	// Invalid says what in the request GitLab would not take ("" when
	// nothing).
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

func message(m string) string {
	b, _ := json.Marshal(map[string]string{"message": m})
	return string(b)
}

// Unavailable is an HTTP 5xx.
func Unavailable(status int) Fault {
	return Fault{Name: fmt.Sprintf("http-%d", status), Status: status, Body: message(fmt.Sprintf("%d %s", status, http.StatusText(status)))}
}

// RateLimited is a 429 "Retry later" with Retry-After and the RateLimit-*
// headers; retryAfter 0 sends none, as gitlab.com has.
func RateLimited(now time.Time, retryAfter time.Duration) Fault {
	f := Fault{Name: "ratelimit", Status: http.StatusTooManyRequests, Body: "Retry later\n"}
	if retryAfter > 0 {
		f.Header = http.Header{}
		reset := now.Add(retryAfter)
		f.Header.Set("Retry-After", fakeapi.RetryAfterSeconds(retryAfter))
		f.Header.Set("RateLimit-Limit", strconv.Itoa(RateLimit))
		f.Header.Set("RateLimit-Observed", strconv.Itoa(RateLimit+1))
		f.Header.Set("RateLimit-Remaining", "0")
		f.Header.Set("RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
		f.Header.Set("RateLimit-ResetTime", reset.UTC().Format(http.TimeFormat))
	}
	return f
}

// Unauthorized is GitLab's answer to a revoked or mistyped token.
func Unauthorized() Fault {
	return Fault{Name: "auth", Status: http.StatusUnauthorized, Body: message("401 Unauthorized")}
}

// Forbidden is a 403.
func Forbidden() Fault {
	return Fault{Name: "forbidden", Status: http.StatusForbidden, Body: message("403 Forbidden")}
}

type user struct {
	id       int64
	username string
	job      bool
}

type target struct {
	project string
	mr      bool
	iid     int
	title   string
}

func (t *target) key() string {
	if t.mr {
		return t.project + "!" + strconv.Itoa(t.iid)
	}
	return t.project + "#" + strconv.Itoa(t.iid)
}

type script = fakeapi.Script[Fault, Request]

// Server is a running fake.
type Server struct {
	// URL is the instance (GITLAB_URL); the API is under /api/v4.
	URL string
	// PageSize, when positive, caps a page below the per_page asked for.
	PageSize int

	srv *httptest.Server
	script

	mu       sync.Mutex
	users    map[string]*user
	projects map[string]int // path → id
	targets  []*target
	notes    []*Note
	nextID   int64
	used     map[int64]int
	window   time.Time
	clock    func() time.Time
}

// New starts a fake with the three tokens' accounts and no projects.
func New() *Server {
	s := &Server{
		users: map[string]*user{
			Token:      {id: UserID, username: Username},
			OtherToken: {id: OtherUserID, username: OtherUsername},
			JobToken:   {id: UserID, username: Username, job: true},
		},
		projects: map[string]int{},
		nextID:   1_000_001,
		used:     map[int64]int{},
		clock:    time.Now,
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// AddIssue creates issue "group/project#12".
func (s *Server) AddIssue(key, title string) { s.add(key, title) }

// AddMergeRequest creates merge request "group/project!34".
func (s *Server) AddMergeRequest(key, title string) { s.add(key, title) }

func (s *Server) add(key, title string) {
	i := strings.LastIndexAny(key, "#!")
	iid, err := strconv.Atoi(key[i+1:])
	if i <= 0 || err != nil {
		panic("gitlabfake: want group/project#N or group/project!N, got " + key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	project := key[:i]
	if _, ok := s.projects[project]; !ok {
		s.projects[project] = 100 + len(s.projects)
	}
	s.targets = append(s.targets, &target{project: project, mr: key[i] == '!', iid: iid, title: title})
}

// AddNote stores a note by userID on key as if written through the API.
func (s *Server) AddNote(key string, userID int64, body string) Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.targets {
		if t.key() == key {
			return *s.create(t, userID, body)
		}
	}
	panic("gitlabfake: AddNote on unknown target " + key)
}

// Notes lists the live notes on key, oldest first.
func (s *Server) Notes(key string) []Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Note
	for _, n := range s.notes {
		if n.Target == key && !n.Deleted {
			out = append(out, *n)
		}
	}
	return out
}

// DeleteNote deletes a note, as a person would in GitLab.
func (s *Server) DeleteNote(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.notes {
		if n.ID == id {
			n.Deleted = true
		}
	}
}

// Invalid lists the requests GitLab would not have taken as sent.
func (s *Server) Invalid() []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Invalid != "" {
			out = append(out, r.Method+" "+r.Path+": "+r.Invalid)
		}
	}
	return out
}

func (s *Server) create(t *target, userID int64, body string) *Note {
	now := s.clock()
	n := &Note{ID: s.nextID, Target: t.key(), AuthorID: userID, Body: body, CreatedAt: now, UpdatedAt: now}
	s.nextID++
	s.notes = append(s.notes, n)
	return n
}

// route is a parsed request.
type route struct {
	op      string
	project string
	kind    string
	iid     int
	noteID  int64
	invalid string
}

// parseRoute reads GitLab's routes. A project is one path segment, its
// path URL-encoded ("acme%2Fapp") or its numeric id; an unencoded path
// matches no route, as on GitLab.
func parseRoute(method, escaped string) route {
	rest, ok := strings.CutPrefix(escaped, "/api/v4/")
	if !ok {
		return route{}
	}
	if rest == "user" && method == http.MethodGet {
		return route{op: OpGetUser}
	}
	segs := strings.Split(rest, "/")
	if len(segs) < 4 || segs[0] != "projects" || (segs[2] != "issues" && segs[2] != "merge_requests") {
		return route{}
	}
	project, err := url.PathUnescape(segs[1])
	if err != nil {
		return route{}
	}
	iid, err := strconv.Atoi(segs[3])
	if err != nil {
		return route{}
	}
	r := route{project: project, kind: segs[2], iid: iid}
	switch {
	case len(segs) == 4 && method == http.MethodGet:
		r.op = OpGetIssue
		if r.kind == "merge_requests" {
			r.op = OpGetMR
		}
	case len(segs) == 5 && segs[4] == "notes":
		switch method {
		case http.MethodGet:
			r.op = OpListNotes
		case http.MethodPost:
			r.op = OpCreateNote
		}
	case len(segs) == 6 && segs[4] == "notes":
		r.noteID, err = strconv.ParseInt(segs[5], 10, 64)
		if err != nil {
			return route{}
		}
		switch method {
		case http.MethodGet:
			r.op = OpGetNote
		case http.MethodPut:
			r.op = OpUpdateNote
		case http.MethodDelete:
			r.op = OpDeleteNote
		}
	}
	return r
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<24))
	if err != nil {
		return
	}
	header := r.Header.Clone()
	header.Del("PRIVATE-TOKEN")
	header.Del("Authorization")
	rt := parseRoute(r.Method, r.URL.EscapedPath())
	rec := Request{Method: r.Method, Path: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, Header: header, Body: string(raw), Op: rt.op}
	rec.Invalid = validate(r, rt, raw)
	token := r.Header.Get("PRIVATE-TOKEN")
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && token == "" {
		token = t
	}
	u := s.users[token]
	if u != nil {
		rec.UserID = u.id
	}
	call := fakeapi.Begin(&s.script, func(f Fault) bool { return f.Op == "" || f.Op == rt.op },
		func(f Fault) Request { rec.Fault = f.Name; return rec })
	fault := call.Fault
	if !fakeapi.Hold(r, fault.Delay) {
		return
	}
	if fault.Apply && u != nil && rec.Invalid == "" {
		s.mu.Lock()
		_, _, _ = s.execute(rt, r, u, raw, http.Header{})
		s.mu.Unlock()
	}
	if fault.Drop {
		fakeapi.Drop(w)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Request-Id", fmt.Sprintf("FAKE%04X", call.N))
	if fault.Status != 0 {
		fakeapi.WriteFault(w, fault.Status, fault.Header, fault.Body)
		call.Update(func(q *Request) { q.Status = fault.Status })
		return
	}
	status, body := s.answer(rt, rec, r, u, raw, h)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
	call.Update(func(q *Request) { q.Status = status })
}

// validate checks what GitLab requires of a request: a known route, a JSON
// body with a non-empty string body on writes, per_page at most 100.
func validate(r *http.Request, rt route, raw []byte) string {
	if rt.op == "" {
		return "no such route (is the project path URL-encoded?)"
	}
	if v := r.URL.Query().Get("per_page"); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 100 {
			return "per_page must be 1 to 100"
		}
	}
	if rt.op != OpCreateNote && rt.op != OpUpdateNote {
		return ""
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return "a write must be JSON"
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return "the body is not a JSON object"
	}
	var body string
	if err := json.Unmarshal(in["body"], &body); err != nil {
		return "body is missing or not a string"
	}
	for k := range in {
		if k != "body" && k != "internal" && k != "created_at" && k != "merge_request_diff_head_sha" {
			return "unknown parameter " + k
		}
	}
	return ""
}

func (s *Server) answer(rt route, rec Request, r *http.Request, u *user, raw []byte, h http.Header) (int, string) {
	if u == nil {
		return http.StatusUnauthorized, message("401 Unauthorized")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rateLimit(u, h) {
		return http.StatusTooManyRequests, "Retry later\n"
	}
	if rt.op == "" {
		return http.StatusNotFound, `{"error":"404 Not Found"}`
	}
	if rec.Invalid != "" {
		return http.StatusBadRequest, `{"error":"` + rec.Invalid + `"}`
	}
	status, out, msg := s.execute(rt, r, u, raw, h)
	if msg != "" {
		return status, msg
	}
	if out == nil {
		return status, ""
	}
	b, _ := json.Marshal(out)
	return status, string(b)
}

func (s *Server) rateLimit(u *user, h http.Header) bool {
	now := s.clock()
	if now.Sub(s.window) >= time.Minute {
		s.window, s.used = now, map[int64]int{}
	}
	s.used[u.id]++
	reset := s.window.Add(time.Minute)
	h.Set("RateLimit-Limit", strconv.Itoa(RateLimit))
	h.Set("RateLimit-Observed", strconv.Itoa(s.used[u.id]))
	h.Set("RateLimit-Remaining", strconv.Itoa(max(RateLimit-s.used[u.id], 0)))
	h.Set("RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("RateLimit-ResetTime", reset.UTC().Format(http.TimeFormat))
	if s.used[u.id] > RateLimit {
		h.Set("Retry-After", fakeapi.RetryAfterSeconds(reset.Sub(now)))
		return true
	}
	return false
}

func (s *Server) wireUser(id int64) map[string]any {
	name := OtherUsername
	if id == UserID {
		name = Username
	}
	return map[string]any{"id": id, "username": name, "name": name, "state": "active"}
}

func (s *Server) wire(n *Note, t *target) map[string]any {
	typ := "Issue"
	if t.mr {
		typ = "MergeRequest"
	}
	return map[string]any{"id": n.ID, "type": nil, "body": n.Body, "author": s.wireUser(n.AuthorID),
		"created_at": n.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z"), "updated_at": n.UpdatedAt.UTC().Format("2006-01-02T15:04:05.000Z"),
		"system": n.System, "noteable_type": typ, "noteable_iid": t.iid, "resolvable": false, "confidential": false, "internal": false}
}

// execute runs an operation on the store (s.mu held).
func (s *Server) execute(rt route, r *http.Request, u *user, raw []byte, h http.Header) (int, any, string) {
	if rt.op == OpGetUser {
		if u.job {
			return http.StatusForbidden, nil, message("403 Forbidden")
		}
		return http.StatusOK, s.wireUser(u.id), ""
	}
	project := rt.project
	if id, err := strconv.Atoi(project); err == nil {
		for p, pid := range s.projects {
			if pid == id {
				project = p
			}
		}
	}
	if _, ok := s.projects[project]; !ok {
		return http.StatusNotFound, nil, message("404 Project Not Found")
	}
	var t *target
	for _, c := range s.targets {
		if c.project == project && c.iid == rt.iid && c.mr == (rt.kind == "merge_requests") {
			t = c
		}
	}
	if t == nil {
		if rt.kind == "merge_requests" {
			return http.StatusNotFound, nil, message("404 Merge Request Not Found")
		}
		return http.StatusNotFound, nil, message("404 Issue Not Found")
	}
	webURL := s.URL + "/" + project + "/-/" + rt.kind + "/" + strconv.Itoa(t.iid)
	switch rt.op {
	case OpGetIssue, OpGetMR:
		return http.StatusOK, map[string]any{"iid": t.iid, "title": t.title, "web_url": webURL, "state": "opened"}, ""
	case OpListNotes:
		return s.page(t, r, h)
	case OpCreateNote, OpUpdateNote:
		if u.job {
			return http.StatusForbidden, nil, message("403 Forbidden")
		}
		var in struct {
			Body string `json:"body"`
		}
		_ = json.Unmarshal(raw, &in)
		switch n := utf8.RuneCountInString(in.Body); {
		case strings.TrimSpace(in.Body) == "":
			return http.StatusBadRequest, nil, `{"message":{"note":["can't be blank"]}}`
		case n > MaxBody:
			return http.StatusBadRequest, nil, `{"message":{"note":["is too long (maximum is 1000000 characters)"]}}`
		}
		if rt.op == OpCreateNote {
			return http.StatusCreated, s.wire(s.create(t, u.id, in.Body), t), ""
		}
	}
	var n *Note
	for _, c := range s.notes {
		if c.ID == rt.noteID && c.Target == t.key() && !c.Deleted {
			n = c
		}
	}
	if n == nil {
		return http.StatusNotFound, nil, message("404 Not found")
	}
	switch rt.op {
	case OpGetNote:
		return http.StatusOK, s.wire(n, t), ""
	case OpDeleteNote:
		if n.AuthorID != u.id {
			return http.StatusForbidden, nil, message("403 Forbidden")
		}
		n.Deleted = true
		return http.StatusNoContent, nil, ""
	case OpUpdateNote:
		if n.AuthorID != u.id {
			return http.StatusForbidden, nil, message("403 Forbidden")
		}
		var in struct {
			Body string `json:"body"`
		}
		_ = json.Unmarshal(raw, &in)
		n.Body, n.UpdatedAt = in.Body, s.clock()
		return http.StatusOK, s.wire(n, t), ""
	}
	return http.StatusMethodNotAllowed, nil, message("405 Method Not Allowed")
}

// page is one page of a target's notes, with GitLab's pagination headers
// set on h.
func (s *Server) page(t *target, r *http.Request, h http.Header) (int, any, string) {
	q := r.URL.Query()
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	size, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || size < 1 {
		size = 20
	}
	if s.PageSize > 0 {
		size = min(size, s.PageSize)
	}
	var all []*Note
	for _, n := range s.notes {
		if n.Target == t.key() && !n.Deleted {
			all = append(all, n)
		}
	}
	// GitLab's default is newest first; ccc asks for sort=asc.
	if q.Get("sort") != "asc" {
		slices.Reverse(all)
	}
	start := min((page-1)*size, len(all))
	end := min(start+size, len(all))
	out := []any{}
	for _, n := range all[start:end] {
		out = append(out, s.wire(n, t))
	}
	pages := max((len(all)+size-1)/size, 1)
	next := ""
	if page < pages {
		next = strconv.Itoa(page + 1)
	}
	h.Set("X-Page", strconv.Itoa(page))
	h.Set("X-Per-Page", strconv.Itoa(size))
	h.Set("X-Total", strconv.Itoa(len(all)))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
	h.Set("X-Next-Page", next)
	return http.StatusOK, out, ""
}
