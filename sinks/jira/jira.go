// Package jira is the Jira Cloud sink: it keeps one status comment per
// agent on a Jira issue through the REST API v3, its body converted from
// ccc's Markdown to the Atlassian Document Format, found again by its
// marker paragraph and its author, with retries that respect Jira's rate
// limits, so that a delivery never leaves a duplicate comment and never
// silently loses an update.
package jira

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
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
	"github.com/ccc-checkpoint/ccc/sinks/httpapi"
)

// DefaultMaxBody is the longest status body sent, in characters of
// Markdown: Jira refuses a comment over 32,767 characters, and the ADF
// document of a body is counted by its text, which the Markdown's exceeds.
const DefaultMaxBody = 32000

// Defaults for Config.
const (
	DefaultVersion = "dev"
	// perPage is the page size asked for when reading an issue's
	// comments (Jira may serve fewer: the answer says).
	perPage = 100
	// maxPages bounds the marker search.
	maxPages = 100
)

// Config says how to reach Jira. Either Email and APIToken (basic
// authentication, Atlassian's scheme for scripts) or BearerToken (an OAuth
// 2.0 access token) is needed.
type Config struct {
	// BaseURL is the site, e.g. https://acme.atlassian.net (JIRA_BASE_URL).
	BaseURL     string
	Email       string // JIRA_EMAIL
	APIToken    string // JIRA_API_TOKEN
	BearerToken string // JIRA_BEARER_TOKEN
	HTTPClient  *http.Client
	// Version is ccc's version, sent as User-Agent: ccc/<version>.
	Version string
	// Project, when set, is the one Jira project ccc comments in
	// (sinks.jira.project): an issue key of another project (a Linear key
	// found in the branch name) is skipped, not sent.
	Project string
	sinks.Tuning
}

// ConfigFromEnv reads JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN and
// JIRA_BEARER_TOKEN.
func ConfigFromEnv(env config.JiraEnv) Config {
	return Config{
		BaseURL:     strings.TrimSpace(env.BaseURL),
		Email:       strings.TrimSpace(env.Email),
		APIToken:    strings.TrimSpace(env.APIToken),
		BearerToken: strings.TrimSpace(env.BearerToken),
	}
}

// credentials says whether cfg can authenticate.
func (c Config) credentials() bool {
	return c.BearerToken != "" || (c.Email != "" && c.APIToken != "")
}

// credentialName names the variables in use, for messages.
func (c Config) credentialName() string {
	if c.BearerToken != "" {
		return "JIRA_BEARER_TOKEN"
	}
	return "JIRA_EMAIL and JIRA_API_TOKEN"
}

func (c Config) authorize(req *http.Request) {
	if c.BearerToken != "" {
		req.Header.Set("Authorization", "Bearer "+c.BearerToken)
		return
	}
	req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(c.Email+":"+c.APIToken)))
}

// noCredentials is the skip reason without credentials.
const noCredentials = "JIRA_BASE_URL with JIRA_EMAIL and JIRA_API_TOKEN (or JIRA_BEARER_TOKEN) not set"

// Sink is the Jira sink. It is safe for concurrent use.
type Sink struct {
	cfg     Config
	base    *url.URL
	baseErr error

	api *httpapi.Client

	mu sync.Mutex
	// account is the accountId the credentials write as, once asked.
	account string
}

var _ sinks.Sink = (*Sink)(nil)

// New returns a sink for cfg, filling in defaults.
func New(cfg Config) *Sink {
	cfg.HTTPClient = sinks.GuardRedirects(cfg.HTTPClient)
	if cfg.Version == "" {
		cfg.Version = DefaultVersion
	}
	cfg.Tuning = cfg.Tuning.WithDefaults(DefaultMaxBody)
	s := &Sink{cfg: cfg}
	s.base, s.baseErr = httpapi.ParseBase(cfg.BaseURL, "want the site's http(s) address without credentials or query, e.g. https://acme.atlassian.net")
	s.api = s.client()
	return s
}

// Name implements sinks.Sink.
func (s *Sink) Name() string { return "jira" }

// Title implements sinks.Sink.
func (s *Sink) Title() string { return "Jira" }

// comment is a comment as Jira answers it.
type comment struct {
	ID     string `json:"id"`
	Body   Doc    `json:"body"`
	Author *struct {
		AccountID string `json:"accountId"`
	} `json:"author"`
	Created string `json:"created"`
	Updated string `json:"updated"`
}

func (c *comment) author() string {
	if c.Author == nil {
		return ""
	}
	return c.Author.AccountID
}

// page is Jira's page of comments.
type page struct {
	StartAt    int       `json:"startAt"`
	MaxResults int       `json:"maxResults"`
	Total      int       `json:"total"`
	Comments   []comment `json:"comments"`
}

// request is what a create or an update sends: the body and ccc's comment
// property.
type request struct {
	Body       Doc        `json:"body"`
	Properties []property `json:"properties,omitempty"`
}

type property struct {
	Key   string         `json:"key"`
	Value map[string]any `json:"value"`
}

// Upsert implements sinks.Sink. In the steady state it sends one request:
// PUT of d.Prev.ID (without notifying watchers: a status changes often).
// When that comment is gone (404), or nothing is stored, it reads every
// page of the issue's comments and takes the newest one whose last
// paragraph is this agent's marker and whose author is the credentials'
// account (GET /myself), and updates it; otherwise it creates one. Jira
// chooses comment ids, so a create whose answer was lost is followed by
// another marker search before any second create.
func (s *Sink) Upsert(ctx context.Context, d sinks.Delivery) (sinks.Result, error) {
	if !s.cfg.credentials() || s.cfg.BaseURL == "" {
		return sinks.Result{Action: sinks.Skipped, Ref: d.Prev}, sinks.Skip(noCredentials)
	}
	fail := func(cause string, err error) (sinks.Result, error) {
		return sinks.Result{Action: sinks.Failed, Ref: d.Prev}, &sinks.Error{Cause: cause, Permanent: true, Err: err}
	}
	key, err := ParseKey(d.Target.Issue)
	if err != nil {
		return fail("invalid target "+strconv.Quote(d.Target.Issue), err)
	}
	if p := strings.ToUpper(strings.TrimSpace(s.cfg.Project)); p != "" && !strings.HasPrefix(key, p+"-") {
		return sinks.Result{Action: sinks.Skipped, Ref: d.Prev}, sinks.Skip("%s is not an issue of Jira project %s (sinks.jira.project)", key, p)
	}
	if strings.TrimSpace(d.Target.Agent) == "" {
		return fail("no agent name", nil)
	}
	if s.baseErr != nil {
		return fail("invalid JIRA_BASE_URL", s.baseErr)
	}
	r := s.newRun(ctx)
	u := &upsert{run: r, d: d, key: key}
	u.build()
	c, action, ref, f := httpapi.Upsert[*comment](ctx, r.Run, u, d, s.cfg.NewID)
	res := sinks.Result{Requests: r.Requests, Ref: ref}
	if f != nil {
		res.Action = sinks.Failed
		return res, r.Error(f)
	}
	res.Action = action
	res.Ref = sinks.Ref{ID: c.ID, URL: s.commentURL(key, c.ID)}
	if t, err := time.Parse("2006-01-02T15:04:05.000-0700", c.Updated); err == nil {
		res.Ref.UpdatedAt = t
	}
	return res, nil
}

// commentURL is where a person sees the comment.
func (s *Sink) commentURL(key, id string) string {
	u := s.base.JoinPath("browse", key)
	u.RawQuery = url.Values{"focusedCommentId": {id}}.Encode()
	return u.String()
}

// upsert is the state of one Upsert.
type upsert struct {
	*run
	d   sinks.Delivery
	key string
	// body is the document sent.
	body Doc
}

// build converts the delivery's Markdown, cut to MaxBody with the marker
// as its last line, to the document sent, the marker tagged.
func (u *upsert) build() {
	placeholder := ""
	if u.d.Tag != nil {
		placeholder = strings.Repeat("0", tagLen)
	}
	md := statuscomment.WithMarker(u.d.Body, TaggedMarker(u.d.Target.Agent, placeholder), u.d.FullText, u.s.cfg.MaxBody, u.s.cfg.ProgressPath)
	// The marker paragraph is the converter's last block only when the
	// text above it ends every block it opened, which WithMarker ensures.
	i := strings.LastIndexByte(md, '\n')
	doc := ToADF(md[:max(i, 0)])
	content := PlainText(doc.Content)
	doc.Content = append(doc.Content, markerNode(u.d.Target.Agent, u.tag(content)))
	u.body = doc
}

// tag binds the marker to the text above it, the issue and the agent, with
// the user's key; "" without a Tag.
func (u *upsert) tag(content string) string {
	if u.d.Tag == nil {
		return ""
	}
	sum := sha256.Sum256([]byte(content))
	return u.d.Tag("ccc/jira-marker/v1", u.key, u.d.Target.Agent, hex.EncodeToString(sum[:]))[:tagLen]
}

// owns says whether c's marker is one this user's ccc wrote for this
// agent: its tag verifies (any marker when the delivery has no Tag).
func (u *upsert) owns(c *comment) bool {
	tag, content, ok := markerTag(c.Body.Content, u.d.Target.Agent)
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

// Stored is d.Prev.ID when it can name a comment of this issue: not an
// Unverified one (a committed state may name anyone's comment), and not
// one stored for another issue.
func (u *upsert) Stored() (string, bool) {
	if u.d.Unverified || u.d.Prev.ID == "" {
		return "", false
	}
	if _, err := strconv.ParseUint(u.d.Prev.ID, 10, 64); err != nil {
		return "", false
	}
	if u.d.Prev.URL != "" && keyOfURL(u.d.Prev.URL) != u.key {
		return "", false
	}
	return u.d.Prev.ID, true
}

func (u *upsert) request() request {
	return request{Body: u.body, Properties: []property{{Key: PropertyKey, Value: map[string]any{"agent": u.d.Target.Agent}}}}
}

// ID and Holds: Jira may restructure a stored document (ids,
// attributes) but keeps its text.
func (u *upsert) ID(c *comment) string { return c.ID }
func (u *upsert) Holds(c *comment) bool {
	return PlainText(c.Body.Content) == PlainText(u.body.Content)
}

// Update writes the body on comment id, without mailing the watchers.
func (u *upsert) Update(ctx context.Context, id string) (*comment, *failure) {
	var c *comment
	f := u.Retry(ctx, func() *failure {
		var got comment
		target := u.endpoint(url.Values{"notifyUsers": {"false"}}, "rest", "api", "3", "issue", u.key, "comment", id)
		if f := u.Call(ctx, "update comment", http.MethodPut, target, u.request(), &got); f != nil {
			return f
		}
		c = &got
		return nil
	})
	return c, f
}

// Post creates the agent's comment, once.
func (u *upsert) Post(ctx context.Context) (*comment, *failure) {
	var got comment
	target := u.endpoint(nil, "rest", "api", "3", "issue", u.key, "comment")
	if f := u.Call(ctx, "create comment", http.MethodPost, target, u.request(), &got); f != nil {
		if f.NotFound {
			f.Cause = u.key + " not found (or not visible to " + u.s.cfg.credentialName() + ")"
		}
		return nil, f
	}
	if got.ID == "" {
		return nil, &failure{Op: "create comment", Cause: "unexpected answer from Jira", Ambiguous: true}
	}
	if a := got.author(); a != "" {
		u.s.setAccount(a)
	}
	return &got, nil
}

// FindOwn returns the newest comment on the issue whose last paragraph is
// the agent's marker and whose author is the credentials' account, nil when
// there is none. It reads every page, oldest first.
func (u *upsert) FindOwn(ctx context.Context, retrying bool) (*comment, *failure) {
	var marked []comment
	for start, pages := 0, 0; pages < maxPages; pages++ {
		var p page
		fetch := func() *failure {
			p = page{}
			q := url.Values{"startAt": {strconv.Itoa(start)}, "maxResults": {strconv.Itoa(perPage)}, "orderBy": {"created"}}
			return u.Call(ctx, "list comments", http.MethodGet, u.endpoint(q, "rest", "api", "3", "issue", u.key, "comment"), nil, &p)
		}
		var f *failure
		if retrying {
			f = u.Retry(ctx, fetch)
		} else {
			f = fetch()
		}
		if f != nil {
			if f.NotFound {
				f.Cause = u.key + " not found (or not visible to " + u.s.cfg.credentialName() + ")"
				f.NotFound = false
			}
			return nil, f
		}
		for _, c := range p.Comments {
			if HasMarker(c.Body.Content, u.d.Target.Agent) {
				marked = append(marked, c)
			}
		}
		start = p.StartAt + len(p.Comments)
		if len(p.Comments) == 0 || start >= p.Total {
			break
		}
	}
	if len(marked) == 0 {
		return nil, nil
	}
	me, f := u.whoAmI(ctx, retrying)
	if f != nil {
		return nil, f
	}
	var best *comment
	for i := range marked {
		// Oldest first: the last one that qualifies is the newest.
		if marked[i].author() == me && u.owns(&marked[i]) {
			best = &marked[i]
		}
	}
	return best, nil
}

// whoAmI is the accountId the credentials write as (GET /myself), asked
// once per Sink.
func (r *run) whoAmI(ctx context.Context, retrying bool) (string, *failure) {
	if a := r.s.knownAccount(); a != "" {
		return a, nil
	}
	var me struct {
		AccountID   string `json:"accountId"`
		DisplayName string `json:"displayName"`
	}
	fetch := func() *failure {
		return r.Call(ctx, "get myself", http.MethodGet, r.endpoint(nil, "rest", "api", "3", "myself"), nil, &me)
	}
	var f *failure
	if retrying {
		f = r.Retry(ctx, fetch)
	} else {
		f = fetch()
	}
	if f != nil {
		return "", f
	}
	if me.AccountID == "" {
		return "", &failure{Op: "get myself", Cause: "unexpected answer from Jira", Fatal: true}
	}
	r.s.setAccount(me.AccountID)
	return me.AccountID, nil
}

func (s *Sink) knownAccount() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.account
}

func (s *Sink) setAccount(a string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.account = a
}
