// Package github is the GitHub sink: it keeps one status comment per agent
// on a GitHub issue or pull request through GitHub's REST API, found again
// by a hidden marker and by its author, with retries that respect GitHub's
// primary and secondary rate limits, so that a delivery never leaves a
// duplicate comment and never silently loses an update.
package github

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ccc-checkpoint/ccc/config"
	statuscomment "github.com/ccc-checkpoint/ccc/internal/comment"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// Defaults for Config (the others are sinks.Tuning's).
const (
	DefaultAPIURL      = "https://api.github.com"
	DefaultMaxBody     = 65536
	DefaultBotLogin    = "github-actions[bot]"
	DefaultTokenEnv    = "GITHUB_TOKEN"
	DefaultVersion     = "dev"
	DefaultMaxAttempts = sinks.DefaultMaxAttempts
)

// APIVersion is the REST API version the sink speaks
// (X-GitHub-Api-Version).
const APIVersion = "2022-11-28"

// perPage is the largest page GitHub serves; the marker search reads every
// page, so fewer round trips.
const perPage = 100

// maxPages bounds the marker search (10,000 comments).
const maxPages = 100

// Config says how to reach GitHub. The zero value of every field but Token
// means its default.
type Config struct {
	// Token (GITHUB_TOKEN, else GH_TOKEN) is sent as "Bearer <token>".
	Token string
	// TokenEnv names the variable Token came from, for error messages.
	TokenEnv string
	// APIURL is the REST API base (GITHUB_API_URL); an Enterprise base
	// such as https://ghe.example.com/api/v3 keeps its path.
	APIURL     string
	HTTPClient *http.Client
	// Version is ccc's version, sent as User-Agent: ccc/<version>.
	Version string
	// BotLogin is the author of what an installation token writes, used
	// when GET /user is not allowed for the token: "github-actions[bot]"
	// for an Actions GITHUB_TOKEN, "<app-slug>[bot]" for another GitHub
	// App's token (CCC_GITHUB_BOT_LOGIN). Empty: learnt from the comments
	// (see Upsert), else "github-actions[bot]".
	BotLogin string
	// ForkPR says the job runs for a pull request from a fork (read from
	// the Actions event by ConfigFromEnv). Its token is read-only whatever
	// the workflow asks for, so a write refused as "Resource not
	// accessible by integration" is a skip; without ForkPR that refusal is
	// a failure, since the workflow can grant the permission.
	ForkPR bool

	sinks.Tuning
}

// ConfigFromEnv reads GITHUB_TOKEN (else GH_TOKEN), GITHUB_API_URL,
// CCC_GITHUB_BOT_LOGIN, and in GitHub Actions whether the event is a pull
// request from a fork (ForkFromActions).
func ConfigFromEnv(env config.GitHubEnv) Config {
	var cfg Config
	for _, t := range []struct{ name, value string }{{"GITHUB_TOKEN", env.Token}, {"GH_TOKEN", env.GHToken}} {
		if v := strings.TrimSpace(t.value); v != "" {
			cfg.Token, cfg.TokenEnv = v, t.name
			break
		}
	}
	cfg.APIURL = strings.TrimSpace(env.APIURL)
	cfg.BotLogin = strings.TrimSpace(env.BotLogin)
	cfg.ForkPR = ForkFromActions(env)
	return cfg
}

// Sink is the GitHub sink. It is safe for concurrent use.
type Sink struct {
	cfg     Config
	base    *url.URL
	baseErr error

	mu sync.Mutex
	// login is who the token writes as, once known for sure (GET /user,
	// or the author of a comment this Sink created).
	login string
	// installation: GET /user refused the token, which is an installation
	// token; its login is BotLogin or learnt from the comments.
	installation bool
}

var _ sinks.Sink = (*Sink)(nil)

// New returns a sink for cfg, filling in defaults.
func New(cfg Config) *Sink {
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	if cfg.TokenEnv == "" {
		cfg.TokenEnv = DefaultTokenEnv
	}
	// The key goes to the API's own origin only, whatever a server's
	// redirect says.
	cfg.HTTPClient = sinks.GuardRedirects(cfg.HTTPClient)
	if cfg.Version == "" {
		cfg.Version = DefaultVersion
	}
	cfg.Tuning = cfg.Tuning.WithDefaults(DefaultMaxBody)
	s := &Sink{cfg: cfg}
	s.base, s.baseErr = parseBase(cfg.APIURL)
	return s
}

func parseBase(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" {
		return nil, &url.Error{Op: "parse", URL: u.Redacted(), Err: errNotAPIBase}
	}
	return u, nil
}

type constError string

func (e constError) Error() string { return string(e) }

const errNotAPIBase = constError("want an http(s) address without credentials or query")

// Name implements sinks.Sink.
func (s *Sink) Name() string { return "github" }

// Title implements sinks.Sink.
func (s *Sink) Title() string { return "GitHub" }

// Body is what Upsert sends for a status body: the body cut to MaxBody
// (less the marker) with a note naming the progress file, then the agent's
// marker as the last line, so that the marker always survives.
func (s *Sink) Body(status, agent string) string {
	return statuscomment.WithMarker(status, Marker(agent), "", s.cfg.MaxBody, s.cfg.ProgressPath)
}

// Upsert implements sinks.Sink. In the steady state it sends one request:
// PATCH of d.Prev.ID. When that comment is gone (404), or nothing is
// stored, it reads every page of the issue's comments and takes the newest
// one whose last line is this agent's marker and whose author is the
// token's account, and updates it (or reports it unchanged when it already
// holds the body). Otherwise it creates the comment. The account is GET
// /user's login; an installation token may not read /user, and its account
// is the author of a comment this Sink created, else BotLogin, else the one
// GitHub App bot whose comments carry the marker, else github-actions[bot].
// GitHub does not let the client choose comment ids, so a create whose
// answer was lost (a dropped connection, a 5xx) is followed by another
// marker search before any second create; a PendingID persisted
// (d.Persist) before the create makes a later run that finds the comment
// report it as created.
//
// Failures are *sinks.Error values with a short printable Cause. Without a
// token, and when the read-only token of a pull request from a fork
// (ForkPR) may not write, Upsert returns a sinks.SkipError.
func (s *Sink) Upsert(ctx context.Context, d sinks.Delivery) (sinks.Result, error) {
	if s.cfg.Token == "" {
		return sinks.Result{Action: sinks.Skipped, Ref: d.Prev}, sinks.Skip(noToken)
	}
	if strings.TrimSpace(d.Target.Issue) == "" {
		return sinks.Result{Action: sinks.Skipped, Ref: d.Prev}, sinks.Skip("no GitHub issue or pull request to update")
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
		return fail("invalid GITHUB_API_URL", s.baseErr)
	}
	r := s.newRun(ctx)
	u := &upsert{run: r, d: d, t: t, ref: d.Prev}
	u.body = u.tagged(statuscomment.WithMarker(d.Body, TaggedMarker(d.Target.Agent, u.placeholder()), d.FullText, s.cfg.MaxBody, s.cfg.ProgressPath))
	c, action, f := u.do(ctx)
	res := sinks.Result{Requests: r.requests, Ref: u.ref}
	switch {
	case f != nil && f.skip != "":
		res.Action = sinks.Skipped
		return res, sinks.Skip("%s", f.skip)
	case f != nil:
		res.Action = sinks.Failed
		return res, r.error(f)
	}
	res.Action = action
	res.Ref = sinks.Ref{ID: strconv.FormatInt(c.ID, 10), URL: c.HTMLURL, UpdatedAt: c.UpdatedAt}
	return res, nil
}

// noToken is the skip reason without credentials.
const noToken = "GITHUB_TOKEN or GH_TOKEN not set"

// comment is a comment as GitHub answers it.
type comment struct {
	ID      int64  `json:"id"`
	HTMLURL string `json:"html_url"`
	Body    string `json:"body"`
	User    *struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	} `json:"user"`
	// App is set when the comment was written through a GitHub App: by
	// its bot (user.type "Bot") with an installation token, or by a
	// person through the app.
	App *struct {
		Slug string `json:"slug"`
	} `json:"performed_via_github_app"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func (c *comment) author() string {
	if c.User == nil {
		return ""
	}
	return c.User.Login
}

// upsert is the state of one Upsert.
type upsert struct {
	*run
	d    sinks.Delivery
	t    Target
	body string
	// ref is what the caller should store if the delivery fails.
	ref sinks.Ref
}

func (u *upsert) do(ctx context.Context) (*comment, sinks.Action, *failure) {
	if id, ok := u.storedID(); ok {
		c, f := u.update(ctx, id)
		if f == nil {
			return c, sinks.Updated, nil
		}
		if !f.notFound {
			return nil, "", f
		}
	}
	own, f := u.findOwn(ctx, true)
	if f != nil {
		return nil, "", f
	}
	if own != nil {
		// A create of an earlier run whose answer never came has landed.
		action := sinks.Updated
		if u.d.Prev.ID == "" && u.d.Prev.PendingID != "" {
			action = sinks.Created
		}
		if own.Body == u.body {
			// Nothing to send: only a landed create is news.
			if action != sinks.Created {
				action = sinks.Unchanged
			}
			return own, action, nil
		}
		c, f := u.update(ctx, own.ID)
		if f == nil {
			return c, action, nil
		}
		if !f.notFound {
			return nil, "", f
		}
		// Deleted between the search and the update: create afresh.
	}
	return u.create(ctx)
}

// tag binds a marker to the text above it, the target and the agent, with
// the user's key: a hand-written comment by the same account that carries
// the marker has no valid tag. "" without a Tag.
func (u *upsert) tag(content string) string {
	if u.d.Tag == nil {
		return ""
	}
	sum := sha256.Sum256([]byte(content))
	target := strings.ToLower(u.t.Owner + "/" + u.t.Repo + "#" + strconv.Itoa(u.t.Number))
	return u.d.Tag("ccc/github-marker/v1", target, u.d.Target.Agent, hex.EncodeToString(sum[:]))[:tagLen]
}

// placeholder stands for the tag while the body is cut to its limit (the
// tag's length is fixed); "" without a Tag.
func (u *upsert) placeholder() string {
	if u.d.Tag == nil {
		return ""
	}
	return strings.Repeat("0", tagLen)
}

// tagged replaces the placeholder tag of body's marker with the tag of
// the text above it.
func (u *upsert) tagged(body string) string {
	if u.d.Tag == nil {
		return body
	}
	i := strings.LastIndexByte(body, '\n')
	return body[:i+1] + TaggedMarker(u.d.Target.Agent, u.tag(tagContent(body[:max(i, 0)])))
}

// owns says whether c's marker is one this user's ccc wrote for this
// agent: its tag verifies. A bot account's marker is taken tagged or not
// (no person types as a bot, and a CI job's key is new on every run), as is
// any without a Tag.
func (u *upsert) owns(c *comment) bool {
	tag, content, ok := markerTag(c.Body, u.d.Target.Agent)
	switch {
	case !ok:
		return false
	case u.d.Tag == nil, strings.HasSuffix(c.author(), "[bot]"):
		return true
	case tag == "":
		return false
	}
	return subtle.ConstantTimeCompare([]byte(tag), []byte(u.tag(content))) == 1
}

// storedID is d.Prev.ID when it can name a comment on this target: a ref
// whose address names another issue or repository (the target changed
// since it was stored) is not patched, since GitHub would let it edit a
// comment elsewhere. An Unverified id is not patched at all: GitHub lets a
// token edit any of its account's comments in the repository, on any issue,
// and the address beside the id may be missing or forged; the marker search
// (which checks the issue, the author and the marker) finds ours instead.
func (u *upsert) storedID() (int64, bool) {
	if u.d.Unverified {
		return 0, false
	}
	id, err := strconv.ParseInt(u.d.Prev.ID, 10, 64)
	if err != nil || id <= 0 {
		return 0, false
	}
	if u.d.Prev.URL != "" {
		if t, err := ParseTarget(u.d.Prev.URL); err == nil && !sameTarget(t, u.t) {
			return 0, false
		}
	}
	return id, true
}

func sameTarget(a, b Target) bool {
	return strings.EqualFold(a.Owner, b.Owner) && strings.EqualFold(a.Repo, b.Repo) && a.Number == b.Number
}

// create posts the agent's comment. A create that may have landed is
// followed by a marker search, not by a second create.
func (u *upsert) create(ctx context.Context) (*comment, sinks.Action, *failure) {
	if f := u.persistPending(); f != nil {
		return nil, "", f
	}
	var c *comment
	landed := false
	f := u.retry(ctx, func() *failure {
		if landed {
			own, f := u.findOwn(ctx, false)
			if f != nil {
				return f
			}
			if own != nil {
				c = own
				return nil
			}
			landed = false
		}
		got, f := u.post(ctx)
		if f != nil {
			landed = f.ambiguous
			return f
		}
		c = got
		return nil
	})
	if f != nil {
		return nil, "", f
	}
	if c.Body != u.body {
		got, f := u.update(ctx, c.ID)
		if f != nil {
			return nil, "", f
		}
		c = got
	}
	return c, sinks.Created, nil
}

// persistPending stores a PendingID before a create: GitHub chooses the
// comment's id, so it only records that a create was sent, which lets the
// next run tell a landed create from an update.
func (u *upsert) persistPending() *failure {
	ref := sinks.Ref{PendingID: u.s.cfg.NewID()}
	if u.d.Persist != nil {
		if err := u.d.Persist(ref); err != nil {
			return &failure{op: "persist", cause: "could not store the pending create", permanent: true, err: err}
		}
	}
	u.ref = ref
	return nil
}

func (u *upsert) post(ctx context.Context) (*comment, *failure) {
	var c comment
	target := u.endpoint(nil, "repos", u.t.Owner, u.t.Repo, "issues", strconv.Itoa(u.t.Number), "comments")
	if _, f := u.call(ctx, "create comment", http.MethodPost, target, map[string]string{"body": u.body}, &c); f != nil {
		return nil, u.writeFailure(u.targetNotFound(f))
	}
	if c.ID <= 0 {
		return nil, &failure{op: "create comment", cause: "unexpected answer from GitHub", ambiguous: true}
	}
	// What the token writes is authored by the account it is: the one
	// sure way to learn an installation token's bot login.
	if a := c.author(); a != "" {
		u.s.setLogin(a)
	}
	return &c, nil
}

func (u *upsert) update(ctx context.Context, id int64) (*comment, *failure) {
	var c *comment
	f := u.retry(ctx, func() *failure {
		var got comment
		target := u.endpoint(nil, "repos", u.t.Owner, u.t.Repo, "issues", "comments", strconv.FormatInt(id, 10))
		if _, f := u.call(ctx, "update comment", http.MethodPatch, target, map[string]string{"body": u.body}, &got); f != nil {
			return u.writeFailure(f)
		}
		c = &got
		return nil
	})
	return c, f
}

// writeFailure words an installation token's refusal to write. In a pull
// request from a fork the token cannot write, whatever the workflow asks
// for, and that is no fault of the run: a skip. Anywhere else the token
// lacks a permission the workflow (or the app) can grant: a failure that
// says which.
func (u *upsert) writeFailure(f *failure) *failure {
	switch {
	case f.integration && u.s.cfg.ForkPR:
		f.skip = "read-only token (fork pull request): " + f.message
	case f.integration:
		if f.err == nil {
			f.err = errors.New(f.message)
		}
		f.cause = "token may not write (add permissions: issues: write, pull-requests: write)"
	}
	return f
}

// targetNotFound names the target in a 404 of a request about the issue.
func (u *upsert) targetNotFound(f *failure) *failure {
	if f.notFound {
		f.cause = u.t.String() + " not found"
		f.notFound = false
	}
	return f
}

// findOwn returns the newest comment on the target whose last line is the
// agent's marker and whose author is the token's account, nil when there
// is none. It reads every page: GitHub lists oldest first and cannot sort
// newest first. retrying says whether each request is retried on its own
// (false inside a create's retry, which retries the whole search).
func (u *upsert) findOwn(ctx context.Context, retrying bool) (*comment, *failure) {
	var marked []comment
	next := u.endpoint(url.Values{"per_page": {strconv.Itoa(perPage)}},
		"repos", u.t.Owner, u.t.Repo, "issues", strconv.Itoa(u.t.Number), "comments")
	for page := 0; next != "" && page < maxPages; page++ {
		var batch []comment
		var h http.Header
		fetch := func() *failure {
			batch = nil
			var f *failure
			h, f = u.call(ctx, "list comments", http.MethodGet, next, nil, &batch)
			return f
		}
		var f *failure
		if retrying {
			f = u.retry(ctx, fetch)
		} else {
			f = fetch()
		}
		if f != nil {
			return nil, u.targetNotFound(f)
		}
		for _, c := range batch {
			if HasMarker(c.Body, u.d.Target.Agent) {
				marked = append(marked, c)
			}
		}
		if next = nextLink(h); next != "" && !u.sameOrigin(next) {
			return nil, &failure{op: "list comments", cause: "GitHub sent a page link to another host", permanent: true}
		}
	}
	if len(marked) == 0 {
		// Most first deliveries end here, without asking who we are.
		return nil, nil
	}
	login, f := u.whoAmI(ctx, retrying, marked)
	if f != nil {
		return nil, f
	}
	var best *comment
	for i, c := range marked {
		if !strings.EqualFold(c.author(), login) || !u.owns(&marked[i]) {
			continue
		}
		if best == nil || c.CreatedAt.After(best.CreatedAt) || (c.CreatedAt.Equal(best.CreatedAt) && c.ID > best.ID) {
			best = &marked[i]
		}
	}
	return best, nil
}

// whoAmI is the login the token writes as, asked once per Sink: GET /user,
// or for an installation token, which may not read /user, the author of a
// comment this Sink created, else BotLogin, else the bot learnt from the
// marked comments (appBot), else github-actions[bot].
func (u *upsert) whoAmI(ctx context.Context, retrying bool, marked []comment) (string, *failure) {
	if login := u.s.knownLogin(); login != "" {
		return login, nil
	}
	if !u.s.isInstallation() {
		login, installation, f := u.user(ctx, retrying)
		if f != nil {
			return "", f
		}
		if !installation {
			u.s.setLogin(login)
			return login, nil
		}
		u.s.setInstallation()
		if login != "" {
			// Learnt from a create while GET /user was on its way.
			return login, nil
		}
	}
	if u.s.cfg.BotLogin != "" {
		return u.s.cfg.BotLogin, nil
	}
	if bot := appBot(marked); bot != "" {
		return bot, nil
	}
	return DefaultBotLogin, nil
}

// appBot is the login of the one GitHub App bot that wrote marked
// comments, "" when there is none or more than one. An installation token
// cannot ask which app it is (GET /app wants the app's own key), so
// without BotLogin a marked comment is the best witness: only an installed
// app's bot can write as "<slug>[bot]" with performed_via_github_app set,
// so no person can plant one, and an app that carries this agent's marker
// is a ccc writer for this agent. Two bots are ambiguous; then the
// default holds, as before. Not cached: it is a reading of one issue,
// not a fact about the token.
func appBot(marked []comment) string {
	bot := ""
	for _, c := range marked {
		if c.User == nil || c.User.Type != "Bot" || c.App == nil || c.App.Slug == "" ||
			!strings.EqualFold(c.User.Login, c.App.Slug+"[bot]") {
			continue
		}
		switch {
		case bot == "":
			bot = c.User.Login
		case !strings.EqualFold(bot, c.User.Login):
			return ""
		}
	}
	return bot
}

// user asks GET /user; installation says the token is an installation
// token, and login is then its bot when known ("" when not).
func (r *run) user(ctx context.Context, retrying bool) (login string, installation bool, f *failure) {
	var me struct {
		Login string `json:"login"`
	}
	fetch := func() *failure {
		_, f := r.call(ctx, "get user", http.MethodGet, r.endpoint(nil, "user"), nil, &me)
		return f
	}
	if retrying {
		f = r.retry(ctx, fetch)
	} else {
		f = fetch()
	}
	switch {
	case f == nil && me.Login != "":
		return me.Login, false, nil
	case f == nil:
		return "", false, &failure{op: "get user", cause: "unexpected answer from GitHub", permanent: true}
	case f.integration:
		return r.s.knownLogin(), true, nil
	}
	return "", false, f
}

func (s *Sink) knownLogin() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.login
}

func (s *Sink) setLogin(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.login = login
}

func (s *Sink) isInstallation() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.installation
}

func (s *Sink) setInstallation() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.installation = true
}
