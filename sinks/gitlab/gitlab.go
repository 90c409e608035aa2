// Package gitlab is the GitLab sink: it keeps one status note per agent on
// a GitLab issue or merge request (gitlab.com or a self-managed instance)
// through the REST API v4, found again by a hidden marker and by its
// author, with retries that respect GitLab's rate limits, so that a
// delivery never leaves a duplicate note and never silently loses an
// update.
package gitlab

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ccc-checkpoint/ccc/config"
	statuscomment "github.com/ccc-checkpoint/ccc/internal/comment"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/github"
	"github.com/ccc-checkpoint/ccc/sinks/httpapi"
)

// Defaults for Config.
const (
	DefaultURL = "https://gitlab.com"
	// DefaultMaxBody: GitLab refuses a note over 1,000,000 characters.
	DefaultMaxBody = 1_000_000
	DefaultVersion = "dev"
	perPage        = 100
	maxPages       = 100
)

// Config says how to reach GitLab.
type Config struct {
	// Token (GITLAB_TOKEN) is a personal, project or group access token
	// with the api scope, sent as PRIVATE-TOKEN.
	Token string
	// URL is the instance (GITLAB_URL, else CI_SERVER_URL in GitLab CI,
	// else https://gitlab.com).
	URL        string
	HTTPClient *http.Client
	Version    string
	// InCI says the job runs in GitLab CI without GITLAB_TOKEN, for the
	// skip's reason: the job's own CI_JOB_TOKEN cannot write notes.
	InCI bool
	sinks.Tuning
}

// ConfigFromEnv reads GITLAB_TOKEN and GITLAB_URL (else CI_SERVER_URL).
func ConfigFromEnv(env config.GitLabEnv) Config {
	cfg := Config{Token: strings.TrimSpace(env.Token), URL: strings.TrimSpace(env.URL), InCI: env.CI}
	if cfg.URL == "" {
		cfg.URL = strings.TrimSpace(env.ServerURL)
	}
	return cfg
}

// Sink is the GitLab sink. It is safe for concurrent use.
type Sink struct {
	cfg     Config
	base    *url.URL
	baseErr error

	api *httpapi.Client

	mu sync.Mutex
	// user is the id of the token's account, once asked (GET /user).
	user int64
}

var _ sinks.Sink = (*Sink)(nil)

// New returns a sink for cfg, filling in defaults.
func New(cfg Config) *Sink {
	if cfg.URL == "" {
		cfg.URL = DefaultURL
	}
	cfg.HTTPClient = sinks.GuardRedirects(cfg.HTTPClient)
	if cfg.Version == "" {
		cfg.Version = DefaultVersion
	}
	cfg.Tuning = cfg.Tuning.WithDefaults(DefaultMaxBody)
	s := &Sink{cfg: cfg}
	s.base, s.baseErr = httpapi.ParseBase(cfg.URL, "want the instance's http(s) address without credentials or query, e.g. https://gitlab.example.com")
	s.api = s.client()
	return s
}

// Name implements sinks.Sink.
func (s *Sink) Name() string { return "gitlab" }

// Title implements sinks.Sink.
func (s *Sink) Title() string { return "GitLab" }

// noToken is the skip reason without a token.
func (s *Sink) noToken() string {
	if s.cfg.InCI {
		return "GITLAB_TOKEN not set (the job's CI_JOB_TOKEN cannot write notes: add a project access token with the api scope as a masked CI/CD variable GITLAB_TOKEN)"
	}
	return "GITLAB_TOKEN not set"
}

// note is a note as GitLab answers it.
type note struct {
	ID     int64  `json:"id"`
	Body   string `json:"body"`
	System bool   `json:"system"`
	Author *struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
	} `json:"author"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func (n *note) author() int64 {
	if n.Author == nil {
		return 0
	}
	return n.Author.ID
}

// Upsert implements sinks.Sink. In the steady state it sends one request:
// PUT of d.Prev.ID. When that note is gone (404), or nothing is stored, it
// reads every page of the target's notes (oldest first) and takes the
// newest one whose last line is this agent's marker and whose author is
// the token's account (GET /user), and updates it; otherwise it creates
// one. GitLab chooses note ids, so a create whose answer was lost is
// followed by another marker search before any second create.
func (s *Sink) Upsert(ctx context.Context, d sinks.Delivery) (sinks.Result, error) {
	if s.cfg.Token == "" {
		return sinks.Result{Action: sinks.Skipped, Ref: d.Prev}, sinks.Skip("%s", s.noToken())
	}
	fail := func(cause string, err error) (sinks.Result, error) {
		return sinks.Result{Action: sinks.Failed, Ref: d.Prev}, &sinks.Error{Cause: cause, Permanent: true, Err: err}
	}
	t, err := ParseTarget(d.Target.Issue)
	if err != nil {
		return fail("invalid target "+strconv.Quote(d.Target.Issue), err)
	}
	if strings.TrimSpace(d.Target.Agent) == "" {
		return fail("no agent name", nil)
	}
	if s.baseErr != nil {
		return fail("invalid GITLAB_URL", s.baseErr)
	}
	r := s.newRun(ctx)
	u := &upsert{run: r, d: d, t: t}
	u.body = u.tagged(statuscomment.WithMarker(d.Body, github.TaggedMarker(d.Target.Agent, u.placeholder()), d.FullText, s.cfg.MaxBody, s.cfg.ProgressPath))
	n, action, ref, f := httpapi.Upsert[*note](ctx, r.Run, u, d, s.cfg.NewID)
	res := sinks.Result{Requests: r.Requests, Ref: ref}
	if f != nil {
		res.Action = sinks.Failed
		return res, r.Error(f)
	}
	res.Action = action
	res.Ref = sinks.Ref{ID: strconv.FormatInt(n.ID, 10), URL: s.noteURL(t, n.ID), UpdatedAt: n.UpdatedAt}
	return res, nil
}

// noteURL is where a person sees the note.
func (s *Sink) noteURL(t Target, id int64) string {
	u := s.base.JoinPath(strings.Split(t.Project, "/")...).JoinPath("-", t.path(), strconv.Itoa(t.IID))
	u.Fragment = "note_" + strconv.FormatInt(id, 10)
	return u.String()
}

// upsert is the state of one Upsert.
type upsert struct {
	*run
	d    sinks.Delivery
	t    Target
	body string
}

// Stored is d.Prev.ID when it can name a note of this target: not an
// Unverified one, and not one whose address names another target.
func (u *upsert) Stored() (string, bool) {
	if u.d.Unverified {
		return "", false
	}
	if id, err := strconv.ParseInt(u.d.Prev.ID, 10, 64); err != nil || id <= 0 {
		return "", false
	}
	if u.d.Prev.URL != "" {
		prev, err := url.Parse(u.d.Prev.URL)
		if err != nil {
			return "", false
		}
		prev.Fragment = ""
		t, err := ParseTarget(prev.String())
		if err != nil || t != u.t {
			return "", false
		}
	}
	return u.d.Prev.ID, true
}

func (u *upsert) ID(n *note) string  { return strconv.FormatInt(n.ID, 10) }
func (u *upsert) Holds(n *note) bool { return n.Body == u.body }

// tag binds a marker to the text above it, the target and the agent, with
// the user's key; "" without a Tag.
func (u *upsert) tag(content string) string {
	if u.d.Tag == nil {
		return ""
	}
	sum := sha256.Sum256([]byte(content))
	return u.d.Tag("ccc/gitlab-marker/v1", strings.ToLower(u.t.String()), u.d.Target.Agent, hex.EncodeToString(sum[:]))[:github.TagLen]
}

func (u *upsert) placeholder() string {
	if u.d.Tag == nil {
		return ""
	}
	return strings.Repeat("0", github.TagLen)
}

// tagged replaces the placeholder tag of body's marker with the tag of the
// text above it.
func (u *upsert) tagged(body string) string {
	if u.d.Tag == nil {
		return body
	}
	_, content, _ := github.MarkerTag(body, u.d.Target.Agent)
	i := strings.LastIndexByte(body, '\n')
	return body[:i+1] + github.TaggedMarker(u.d.Target.Agent, u.tag(content))
}

// owns says whether n's marker is one this user's ccc wrote for this
// agent: its tag verifies (any marker when the delivery has no Tag).
func (u *upsert) owns(n *note) bool {
	tag, content, ok := github.MarkerTag(n.Body, u.d.Target.Agent)
	switch {
	case !ok:
		return false
	case u.d.Tag == nil:
		return true
	case tag == "":
		return false
	}
	return subtle.ConstantTimeCompare([]byte(tag), []byte(u.tag(content))) == 1
}

func (u *upsert) notes() []string {
	return []string{"projects", u.t.Project, u.t.path(), strconv.Itoa(u.t.IID), "notes"}
}

// Update writes the body on note id.
func (u *upsert) Update(ctx context.Context, id string) (*note, *failure) {
	var n *note
	f := u.Retry(ctx, func() *failure {
		var got note
		if f := u.Call(ctx, "update note", http.MethodPut, u.endpoint(nil, append(u.notes(), id)...), map[string]string{"body": u.body}, &got); f != nil {
			return f
		}
		n = &got
		return nil
	})
	return n, f
}

// Post creates the agent's note, once.
func (u *upsert) Post(ctx context.Context) (*note, *failure) {
	var got note
	if f := u.Call(ctx, "create note", http.MethodPost, u.endpoint(nil, u.notes()...), map[string]string{"body": u.body}, &got); f != nil {
		if f.NotFound {
			f.Cause = u.t.String() + " not found"
		}
		return nil, f
	}
	if got.ID <= 0 {
		return nil, &failure{Op: "create note", Cause: "unexpected answer from GitLab", Ambiguous: true}
	}
	if a := got.author(); a != 0 {
		u.s.setUser(a)
	}
	return &got, nil
}

// FindOwn returns the newest note on the target whose last line is the
// agent's marker and whose author is the token's account, nil when there is
// none. It reads every page (X-Next-Page), oldest first; system notes are
// GitLab's own and never ccc's.
func (u *upsert) FindOwn(ctx context.Context, retrying bool) (*note, *failure) {
	var marked []note
	page := "1"
	for pages := 0; page != "" && pages < maxPages; pages++ {
		var batch []note
		q := url.Values{"per_page": {strconv.Itoa(perPage)}, "page": {page}, "sort": {"asc"}, "order_by": {"created_at"}}
		fetch := func() *failure {
			batch = nil
			return u.Call(ctx, "list notes", http.MethodGet, u.endpoint(q, u.notes()...), nil, &batch)
		}
		var f *failure
		if retrying {
			f = u.Retry(ctx, fetch)
		} else {
			f = fetch()
		}
		if f != nil {
			if f.NotFound {
				f.Cause, f.NotFound = u.t.String()+" not found", false
			}
			return nil, f
		}
		for _, n := range batch {
			if !n.System && github.HasMarker(n.Body, u.d.Target.Agent) {
				marked = append(marked, n)
			}
		}
		page = strings.TrimSpace(u.Header.Get("X-Next-Page"))
	}
	if len(marked) == 0 {
		return nil, nil
	}
	me, f := u.whoAmI(ctx, retrying)
	if f != nil {
		return nil, f
	}
	var best *note
	for i := range marked {
		if marked[i].author() == me && u.owns(&marked[i]) {
			if best == nil || !marked[i].CreatedAt.Before(best.CreatedAt) {
				best = &marked[i]
			}
		}
	}
	return best, nil
}

// whoAmI is the id of the token's account (GET /user), asked once per Sink.
func (r *run) whoAmI(ctx context.Context, retrying bool) (int64, *failure) {
	if id := r.s.knownUser(); id != 0 {
		return id, nil
	}
	var me struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
	}
	fetch := func() *failure { return r.Call(ctx, "get user", http.MethodGet, r.endpoint(nil, "user"), nil, &me) }
	var f *failure
	if retrying {
		f = r.Retry(ctx, fetch)
	} else {
		f = fetch()
	}
	if f != nil {
		return 0, f
	}
	if me.ID == 0 {
		return 0, &failure{Op: "get user", Cause: "unexpected answer from GitLab", Fatal: true}
	}
	r.s.setUser(me.ID)
	return me.ID, nil
}

func (s *Sink) knownUser() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.user
}

func (s *Sink) setUser(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user = id
}
