package github_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/comment"
	"github.com/ccc-checkpoint/ccc/internal/fake/githubfake"
	"github.com/ccc-checkpoint/ccc/internal/testutil"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/github"
	"github.com/ccc-checkpoint/ccc/sinks/sinktest"
)

var (
	delivery = sinktest.Delivery
	upsert   = sinktest.Upsert
	causeOf  = sinktest.ErrorOf
)

func ops(reqs []githubfake.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Op)
	}
	return out
}

func skipOf(t *testing.T, err error) *sinks.SkipError {
	t.Helper()
	var skip *sinks.SkipError
	require.True(t, errors.As(err, &skip), "want *sinks.SkipError, got %T: %v", err, err)
	return skip
}

func commentID(t *testing.T, ref sinks.Ref) int64 {
	t.Helper()
	id, err := strconv.ParseInt(ref.ID, 10, 64)
	require.NoError(t, err)
	return id
}

const (
	list   = githubfake.OpListComments
	create = githubfake.OpCreateComment
	patch  = githubfake.OpUpdateComment
	user   = githubfake.OpGetUser
)

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want github.Config
	}{
		{"GITHUB_TOKEN wins", map[string]string{"GITHUB_TOKEN": " ghp_a\n", "GH_TOKEN": "ghp_b", "GITHUB_API_URL": "https://ghe.example.com/api/v3"},
			github.Config{Token: "ghp_a", TokenEnv: "GITHUB_TOKEN", APIURL: "https://ghe.example.com/api/v3"}},
		{"GH_TOKEN when GITHUB_TOKEN is empty", map[string]string{"GITHUB_TOKEN": "  ", "GH_TOKEN": "ghp_b"},
			github.Config{Token: "ghp_b", TokenEnv: "GH_TOKEN"}},
		{"the bot login of an app token", map[string]string{"GH_TOKEN": "ghs_b", "CCC_GITHUB_BOT_LOGIN": " my-app[bot]\n"},
			github.Config{Token: "ghs_b", TokenEnv: "GH_TOKEN", BotLogin: "my-app[bot]"}},
		{"a fork's pull request", map[string]string{"GITHUB_TOKEN": "ghs_a", "GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "octo/app",
			"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": filepath.Join("testdata", "events", "pull_request_fork.json")},
			github.Config{Token: "ghs_a", TokenEnv: "GITHUB_TOKEN", ForkPR: true}},
		{"nothing", nil, github.Config{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, github.ConfigFromEnv(config.EnvOf(tt.env).GitHub))
		})
	}
}

func TestNoTokenSkips(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv, func(c *github.Config) { c.Token = "" })
	assert.Equal(t, "github", s.Name())
	assert.Equal(t, "GitHub", s.Title())
	res, err := sinks.Deliver(context.Background(), s, delivery(pull, "main", "x", sinks.Ref{}))
	assert.Equal(t, "GITHUB_TOKEN or GH_TOKEN not set", skipOf(t, err).Reason)
	assert.Equal(t, sinks.Skipped, res.Action)
	_, err = s.Health(context.Background(), pull)
	skipOf(t, err)
	assert.Zero(t, srv.RequestCount())
}

func TestBadInput(t *testing.T) {
	srv := newFake(t)
	tests := []struct {
		name  string
		s     *github.Sink
		d     sinks.Delivery
		cause string
	}{
		{"no target", newSink(srv), delivery("", "main", "x", sinks.Ref{}), ""},
		{"bad target", newSink(srv), delivery("octo/app", "main", "x", sinks.Ref{}), `invalid target "octo/app"`},
		{"no agent", newSink(srv), delivery(pull, " ", "x", sinks.Ref{}), "no agent name"},
		{"bad API URL", newSink(srv, func(c *github.Config) { c.APIURL = "ftp://example.com" }), delivery(pull, "main", "x", sinks.Ref{}), "invalid GITHUB_API_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := upsert(t, tt.s, tt.d)
			if tt.cause == "" {
				skipOf(t, err)
				return
			}
			serr := causeOf(t, err)
			assert.Equal(t, tt.cause, serr.Cause)
			assert.True(t, serr.Permanent)
			assert.Equal(t, sinks.Failed, res.Action)
		})
	}
	assert.Zero(t, srv.RequestCount())
}

// The first delivery sends the search (one page, no comment to check, so
// no GET /user) and the create, with GitHub's headers and the ccc version.
func TestFirstDeliveryAndHeaders(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv, func(c *github.Config) { c.Version = "1.2.3" })
	res, err := upsert(t, s, delivery(pull, "main", "first", sinks.Ref{}))
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	assert.Equal(t, 2, res.Requests)
	reqs := srv.Requests()
	assert.Equal(t, []string{list, create}, ops(reqs))
	for _, r := range reqs {
		assert.Equal(t, "ccc/1.2.3", r.Header.Get("User-Agent"))
		assert.Equal(t, githubfake.Login, r.Login, "the token went as a Bearer token")
	}
	assert.Equal(t, "application/json", reqs[1].Header.Get("Content-Type"))
	var sent map[string]string
	require.NoError(t, json.Unmarshal([]byte(reqs[1].Body), &sent))
	assert.Equal(t, s.Body(sinktest.Body("first"), "main"), sent["body"])

	c := srv.Comments(pull)[0]
	assert.Equal(t, strconv.FormatInt(c.ID, 10), res.Ref.ID)
	assert.Equal(t, "https://github.com/octo/app/pull/7#issuecomment-"+res.Ref.ID, res.Ref.URL)
	assert.True(t, strings.HasSuffix(c.Body, "\n\n"+github.Marker("main")), c.Body)
	assert.False(t, res.Ref.UpdatedAt.IsZero())
}

// An Enterprise base keeps its path in every request, the Link pages
// included.
func TestEnterpriseBaseKeepsItsPrefix(t *testing.T) {
	for _, base := range []string{"", "/"} {
		t.Run("trailing "+base, func(t *testing.T) {
			srv := newFake(t, githubfake.WithPrefix("/api/v3"))
			srv.PageSize = 1
			srv.AddComment(pull, githubfake.OtherLogin, "one")
			srv.AddComment(pull, githubfake.OtherLogin, "two")
			require.True(t, strings.HasSuffix(srv.URL, "/api/v3"))
			s := newSink(srv, func(c *github.Config) { c.APIURL = srv.URL + base })
			first, err := upsert(t, s, delivery(pull, "main", "first", sinks.Ref{}))
			require.NoError(t, err)
			_, err = upsert(t, s, delivery(pull, "main", "second", first.Ref))
			require.NoError(t, err)
			_, err = s.Health(context.Background(), pull)
			require.NoError(t, err)
			reqs := srv.Requests()
			assert.Equal(t, []string{list, list, create, patch, user, githubfake.OpGetIssue}, ops(reqs))
			for _, r := range reqs {
				assert.True(t, strings.HasPrefix(r.Path, "/api/v3/"), r.Path)
			}
			assert.Equal(t, "/api/v3/repos/octo/app/issues/7/comments", reqs[1].Path)
			q, _ := url.ParseQuery(reqs[1].RawQuery)
			assert.Equal(t, "2", q.Get("page"), "the next page came from the Link header")
		})
	}
}

// The search reads all three pages and takes the newest of the agent's own
// comments, skipping other agents, other users and a marker that is not
// the last line.
func TestSearchPaginates(t *testing.T) {
	srv := newFake(t)
	srv.PageSize = 2
	marker := "\n\n" + github.Marker("main")
	srv.AddComment(pull, githubfake.Login, "older own"+marker)
	srv.AddComment(pull, githubfake.OtherLogin, "chatter")
	want := srv.AddComment(pull, githubfake.Login, "newer own"+marker)
	srv.AddComment(pull, githubfake.Login, "other agent\n\n"+github.Marker("main-2"))
	srv.AddComment(pull, githubfake.OtherLogin, "copied"+marker)
	srv.AddComment(pull, githubfake.Login, github.Marker("main")+"\n\nmarker not last")

	res, err := upsert(t, newSink(srv), delivery(pull, "main", "x", sinks.Ref{}))
	require.NoError(t, err)
	assert.Equal(t, sinks.Updated, res.Action)
	assert.Equal(t, want.ID, commentID(t, res.Ref))
	reqs := srv.Requests()
	assert.Equal(t, []string{list, list, list, user, patch}, ops(reqs))
	for i, page := range []string{"", "2", "3"} {
		q, _ := url.ParseQuery(reqs[i].RawQuery)
		assert.Equal(t, page, q.Get("page"), "request %d", i)
	}
	assert.Len(t, srv.Comments(pull), 6)
	got, _ := srv.Comment(want.ID)
	assert.Contains(t, got.Body, "**Next:** x\n")
}

// A comment by someone else that carries our marker is never adopted, even
// when it is the only marked comment; with an installation token the bot
// is the author that counts.
func TestAnotherAuthorsMarkerIsNotAdopted(t *testing.T) {
	tests := []struct {
		name    string
		token   string
		foreign string
	}{
		{"personal token, other user", githubfake.Token, githubfake.OtherLogin},
		{"personal token, the bot", githubfake.Token, githubfake.BotLogin},
		{"installation token, a user", githubfake.InstallationToken, githubfake.Login},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			body := "copied\n\n" + github.Marker("main")
			foreign := srv.AddComment(pull, tt.foreign, body)
			res, err := upsert(t, newSink(srv, func(c *github.Config) { c.Token = tt.token }), delivery(pull, "main", "x", sinks.Ref{}))
			require.NoError(t, err)
			assert.Equal(t, sinks.Created, res.Action)
			assert.NotEqual(t, foreign.ID, commentID(t, res.Ref))
			got, _ := srv.Comment(foreign.ID)
			assert.Equal(t, body, got.Body, "never touched")
			assert.Len(t, srv.Comments(pull), 2)
		})
	}
}

// With an Actions token GET /user answers 403: the author is the bot.
func TestInstallationTokenAuthorIsTheBot(t *testing.T) {
	srv := newFake(t)
	marker := "\n\n" + github.Marker("main")
	srv.AddComment(pull, githubfake.Login, "a person's"+marker)
	bot := srv.AddComment(pull, githubfake.BotLogin, "the bot's"+marker)
	s := newSink(srv, func(c *github.Config) { c.Token = githubfake.InstallationToken })
	res, err := upsert(t, s, delivery(pull, "main", "x", sinks.Ref{}))
	require.NoError(t, err)
	assert.Equal(t, bot.ID, commentID(t, res.Ref))
	reqs := srv.Requests()
	assert.Equal(t, []string{list, user, patch}, ops(reqs))
	assert.Equal(t, http.StatusForbidden, reqs[1].Status)

	// Asked once per Sink.
	_, err = upsert(t, s, delivery(pull, "main", "y", sinks.Ref{}))
	require.NoError(t, err)
	assert.Equal(t, []string{list, patch}, ops(srv.Requests()[3:]))
}

// Another GitHub App's token writes as "<slug>[bot]": when BotLogin is not
// set to it, the author of the comment this Sink created is learnt from the
// create's answer.
func TestAuthorLearntFromCreate(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv, func(c *github.Config) { c.Token = githubfake.InstallationToken; c.BotLogin = "other-app[bot]" })
	first, err := upsert(t, s, delivery(pull, "main", "first", sinks.Ref{}))
	require.NoError(t, err)
	res, err := upsert(t, s, delivery(pull, "main", "second", sinks.Ref{}))
	require.NoError(t, err)
	assert.Equal(t, sinks.Updated, res.Action)
	assert.Equal(t, first.Ref.ID, res.Ref.ID)
	assert.Len(t, srv.Comments(pull), 1)
}

// A pull request from a fork gets a read-only token: its writes are a
// skip, not a failure; its reads still work.
func TestForkReadOnlySkips(t *testing.T) {
	const reason = "read-only token (fork pull request): Resource not accessible by integration"
	fork := func(c *github.Config) { c.ForkPR = true }
	t.Run("create", func(t *testing.T) {
		srv := newFake(t)
		s := newSink(srv, fork, func(c *github.Config) { c.Token = githubfake.ReadOnlyToken })
		res, err := sinks.Deliver(context.Background(), s, delivery(pull, "main", "x", sinks.Ref{}))
		assert.Equal(t, reason, skipOf(t, err).Reason)
		assert.Equal(t, sinks.Skipped, res.Action)
		assert.Equal(t, 2, res.Requests)
		assert.Equal(t, []string{list, create}, ops(srv.Requests()))
		assert.Empty(t, srv.Comments(pull))
	})
	t.Run("update", func(t *testing.T) {
		srv := newFake(t)
		c := srv.AddComment(pull, githubfake.BotLogin, "old\n\n"+github.Marker("main"))
		s := newSink(srv, fork, func(c *github.Config) { c.Token = githubfake.ReadOnlyToken })
		prev := sinks.Ref{ID: strconv.FormatInt(c.ID, 10), URL: c.HTMLURL}
		res, err := sinks.Deliver(context.Background(), s, delivery(pull, "main", "x", prev))
		assert.Equal(t, reason, skipOf(t, err).Reason)
		assert.Equal(t, sinks.Skipped, res.Action)
		assert.Equal(t, prev, res.Ref, "a skip keeps the stored ref")
		assert.Equal(t, 1, res.Requests, "not retried")
	})
	t.Run("scripted", func(t *testing.T) {
		srv := newFake(t)
		srv.Inject(githubfake.ForkReadOnly().On(create))
		_, err := upsert(t, newSink(srv, fork), delivery(pull, "main", "x", sinks.Ref{}))
		assert.Equal(t, reason, skipOf(t, err).Reason)
	})
	t.Run("a read refused is a failure", func(t *testing.T) {
		srv := newFake(t)
		srv.Inject(githubfake.ForkReadOnly().On(list))
		_, err := upsert(t, newSink(srv, fork), delivery(pull, "main", "x", sinks.Ref{}))
		serr := causeOf(t, err)
		assert.Equal(t, "permission denied: Resource not accessible by integration", serr.Cause)
		assert.True(t, serr.Permanent)
	})
}

// Scripted failures on the steady-state update: what is retried, how long
// it waits, and what the report will say.
func TestFailures(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	tests := []struct {
		name     string
		faults   []githubfake.Fault
		deadline time.Duration
		cfg      func(*github.Config)
		want     sinktest.Want
	}{
		{
			name:   "503 three times then success",
			faults: githubfake.Repeat(3, githubfake.Unavailable(503)),
			want:   sinktest.Want{OK: true, Requests: 4},
		},
		{
			name:   "5xx of every kind is retried",
			faults: []githubfake.Fault{githubfake.Unavailable(500), githubfake.Unavailable(502), githubfake.Unavailable(504)},
			want:   sinktest.Want{OK: true, Requests: 4},
		},
		{
			name:   "503 until the attempts run out",
			faults: githubfake.Repeat(10, githubfake.Unavailable(503)),
			cfg:    func(c *github.Config) { c.MaxAttempts = 3 },
			want:   sinktest.Want{Cause: "HTTP 503", Requests: 3},
		},
		{
			name:   "dropped connection is retried",
			faults: []githubfake.Fault{githubfake.Dropped()},
			want:   sinktest.Want{OK: true, Requests: 2},
		},
		{
			name:   "primary rate limit (403) waits until the reset",
			faults: []githubfake.Fault{githubfake.RateLimited(403, now.Add(3*time.Second))},
			want:   sinktest.Want{OK: true, Requests: 2, MinWaits: []time.Duration{3 * time.Second}},
		},
		{
			name:   "primary rate limit (429) waits until the reset",
			faults: []githubfake.Fault{githubfake.RateLimited(429, now.Add(7*time.Second))},
			want:   sinktest.Want{OK: true, Requests: 2, MinWaits: []time.Duration{7 * time.Second}},
		},
		{
			name:     "a reset past the deadline fails at once",
			faults:   []githubfake.Fault{githubfake.RateLimited(403, now.Add(40*time.Second))},
			deadline: 5 * time.Second,
			want:     sinktest.Want{Cause: "rate limited, retry after 40s", Requests: 1, NoWait: true, RetryAfter: 40 * time.Second},
		},
		{
			name:   "without a deadline a long reset is not waited for",
			faults: []githubfake.Fault{githubfake.RateLimited(403, now.Add(2*time.Minute))},
			want:   sinktest.Want{Cause: "rate limited, retry after 2m", Requests: 1, NoWait: true, RetryAfter: 2 * time.Minute},
		},
		{
			name:   "503 honours Retry-After",
			faults: []githubfake.Fault{githubfake.UnavailableRetryAfter(503, 5*time.Second)},
			want:   sinktest.Want{OK: true, Requests: 2, MinWaits: []time.Duration{5 * time.Second}},
		},
		{
			name:     "503 with a Retry-After past the deadline fails at once and carries the wait",
			faults:   []githubfake.Fault{githubfake.UnavailableRetryAfter(503, time.Hour)},
			deadline: 10 * time.Second,
			want:     sinktest.Want{Cause: "HTTP 503", Requests: 1, NoWait: true, RetryAfter: time.Hour},
		},
		{
			name:   "secondary rate limit honours Retry-After",
			faults: []githubfake.Fault{githubfake.SecondaryRateLimit(403, 5*time.Second)},
			want:   sinktest.Want{OK: true, Requests: 2, MinWaits: []time.Duration{5 * time.Second}},
		},
		{
			name:   "secondary rate limit without headers waits a minute",
			faults: []githubfake.Fault{githubfake.SecondaryRateLimit(403, 0)},
			want:   sinktest.Want{OK: true, Requests: 2, MinWaits: []time.Duration{time.Minute}},
		},
		{
			name:   "secondary rate limit as 429",
			faults: []githubfake.Fault{githubfake.SecondaryRateLimit(429, 0)},
			want:   sinktest.Want{OK: true, Requests: 2, MinWaits: []time.Duration{time.Minute}},
		},
		{
			name:     "secondary rate limit inside a short deadline fails at once",
			faults:   []githubfake.Fault{githubfake.SecondaryRateLimit(403, 0)},
			deadline: 10 * time.Second,
			want:     sinktest.Want{Cause: "rate limited, retry after 60s", Requests: 1, NoWait: true, RetryAfter: time.Minute},
		},
		{
			name:     "a backoff past the deadline fails at once with the last cause",
			faults:   []githubfake.Fault{githubfake.Unavailable(503)},
			deadline: time.Second,
			cfg:      func(c *github.Config) { c.InitialInterval, c.MaxInterval = 10*time.Second, 10*time.Second },
			want:     sinktest.Want{Cause: "HTTP 503", Requests: 1, NoWait: true},
		},
		{
			name:   "401 is permanent",
			faults: []githubfake.Fault{githubfake.BadCredentials()},
			want:   sinktest.Want{Cause: "authentication failed: check GITHUB_TOKEN", Permanent: true, Requests: 1},
		},
		{
			name:   "401 names GH_TOKEN when that is the token",
			faults: []githubfake.Fault{githubfake.BadCredentials()},
			cfg:    func(c *github.Config) { c.TokenEnv = "GH_TOKEN" },
			want:   sinktest.Want{Cause: "authentication failed: check GH_TOKEN", Permanent: true, Requests: 1},
		},
		{
			name:   "422 is permanent and says why",
			faults: []githubfake.Fault{githubfake.Invalid("body is too long (maximum is 65536 characters)")},
			want:   sinktest.Want{Cause: "rejected by GitHub: Validation Failed: body is too long (maximum is 65536 characters)", Permanent: true, Requests: 1},
		},
		{
			name:   "another 403 is permanent",
			faults: []githubfake.Fault{{Name: "admin", Status: 403, Body: `{"message":"Must have admin rights to Repository.","documentation_url":"https://docs.github.com/rest","status":"403"}`}},
			want:   sinktest.Want{Cause: "permission denied: Must have admin rights to Repository", Permanent: true, Requests: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t, githubfake.WithClock(func() time.Time { return now }))
			var w sinktest.Waits
			s := newSink(srv, func(c *github.Config) {
				c.Sleep = w.Sleep
				c.Now = func() time.Time { return now }
				if tt.cfg != nil {
					tt.cfg(c)
				}
			})
			first, err := upsert(t, s, delivery(pull, "main", "first", sinks.Ref{}))
			require.NoError(t, err)
			srv.Inject(tt.faults...)

			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			res, err := s.Upsert(ctx, delivery(pull, "main", "second", first.Ref))
			tt.want.Check(t, first.Ref, res, err, w.All())
			if tt.want.OK {
				assert.Zero(t, srv.PendingFaults(), "every fault was met")
			}
		})
	}
}

func TestTargetNotFound(t *testing.T) {
	srv := newFake(t)
	res, err := upsert(t, newSink(srv), delivery("octo/app#404", "main", "x", sinks.Ref{}))
	serr := causeOf(t, err)
	assert.Equal(t, "octo/app#404 not found", serr.Cause)
	assert.True(t, serr.Permanent)
	assert.Equal(t, 1, res.Requests, "a 404 is not retried")
	assert.Equal(t, []string{list}, ops(srv.Requests()))
}

// A deleted comment answers 404 to the PATCH: the sink searches, then
// creates.
func TestDeletedCommentIsRecreated(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv)
	first, err := upsert(t, s, delivery(pull, "main", "first", sinks.Ref{}))
	require.NoError(t, err)
	srv.DeleteComment(commentID(t, first.Ref))
	before := srv.RequestCount()
	res, err := upsert(t, s, delivery(pull, "main", "second", first.Ref))
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	assert.Equal(t, []string{patch, list, create}, ops(srv.Requests()[before:]))
	assert.Equal(t, http.StatusNotFound, srv.Requests()[before].Status)
}

// GitHub has no client-chosen ids: a create that may have landed is
// followed by a search, never straight by a second create.
func TestUnansweredCreateSearchesFirst(t *testing.T) {
	tests := []struct {
		name  string
		fault githubfake.Fault
		ops   []string
	}{
		{"lost answer", githubfake.LostResponse(create), []string{list, create, list, user}},
		{"5xx after the write", githubfake.Landed(githubfake.Unavailable(502)).On(create), []string{list, create, list, user}},
		{"5xx before the write", githubfake.Unavailable(503).On(create), []string{list, create, list, create}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			srv.Inject(tt.fault)
			res, err := upsert(t, newSink(srv), delivery(pull, "main", "x", sinks.Ref{}))
			require.NoError(t, err)
			assert.Equal(t, sinks.Created, res.Action)
			assert.Equal(t, tt.ops, ops(srv.Requests()))
			cs := srv.Comments(pull)
			require.Len(t, cs, 1)
			assert.Equal(t, cs[0].ID, commentID(t, res.Ref))
		})
	}
}

// The PendingID is stored before the create is sent; a later run that
// finds the comment reports it as created.
func TestPendingCreate(t *testing.T) {
	t.Run("persisted before the create", func(t *testing.T) {
		srv := newFake(t)
		var persisted []sinks.Ref
		creates := 0
		d := delivery(pull, "main", "x", sinks.Ref{})
		d.Persist = func(r sinks.Ref) error {
			persisted = append(persisted, r)
			for _, req := range srv.Requests() {
				if req.Op == create {
					creates++
				}
			}
			return nil
		}
		s := newSink(srv, func(c *github.Config) { c.NewID = func() string { return "pending-1" } })
		res, err := upsert(t, s, d)
		require.NoError(t, err)
		assert.Equal(t, []sinks.Ref{{PendingID: "pending-1"}}, persisted)
		assert.Zero(t, creates, "stored before the create was sent")
		assert.Empty(t, res.Ref.PendingID)
	})
	t.Run("persist failure sends no create", func(t *testing.T) {
		srv := newFake(t)
		d := delivery(pull, "main", "x", sinks.Ref{})
		d.Persist = func(sinks.Ref) error { return errors.New("disk full") }
		_, err := upsert(t, newSink(srv), d)
		assert.True(t, causeOf(t, err).Permanent)
		assert.ErrorContains(t, err, "disk full")
		assert.Equal(t, []string{list}, ops(srv.Requests()))
	})
	t.Run("landed", func(t *testing.T) {
		srv := newFake(t)
		c := srv.AddComment(pull, githubfake.Login, "old\n\n"+github.Marker("main"))
		res, err := upsert(t, newSink(srv), delivery(pull, "main", "x", sinks.Ref{PendingID: "pending-1"}))
		require.NoError(t, err)
		assert.Equal(t, sinks.Created, res.Action)
		assert.Equal(t, c.ID, commentID(t, res.Ref))
		assert.Equal(t, []string{list, user, patch}, ops(srv.Requests()))
	})
	t.Run("never landed", func(t *testing.T) {
		srv := newFake(t)
		res, err := upsert(t, newSink(srv), delivery(pull, "main", "x", sinks.Ref{PendingID: "pending-1"}))
		require.NoError(t, err)
		assert.Equal(t, sinks.Created, res.Action)
		assert.Equal(t, []string{list, create}, ops(srv.Requests()))
	})
}

// With nothing stored (a CI run), a search that finds our comment already
// holding the body sends no PATCH and says so: unchanged, or created when
// it is a create of an earlier run that landed.
func TestFoundIdenticalIsUnchanged(t *testing.T) {
	tests := []struct {
		name string
		prev sinks.Ref
		want sinks.Action
	}{
		{"nothing stored", sinks.Ref{}, sinks.Unchanged},
		{"a pending create landed", sinks.Ref{PendingID: "pending-1"}, sinks.Created},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			first, err := upsert(t, newSink(srv), delivery(pull, "main", "same", sinks.Ref{}))
			require.NoError(t, err)
			before := srv.RequestCount()
			res, err := sinks.Deliver(context.Background(), newSink(srv), delivery(pull, "main", "same", tt.prev))
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Action)
			assert.Equal(t, first.Ref.ID, res.Ref.ID)
			assert.NotEmpty(t, res.Ref.BodyHash, "stored, so the next run sends nothing")
			assert.Equal(t, []string{list, user}, ops(srv.Requests()[before:]), "no PATCH")
			assert.Len(t, srv.Comments(pull), 1)
		})
	}
}

// A stored ref whose address names another issue is not patched: comment
// ids are global, and GitHub would edit that other comment.
func TestStoredRefOfAnotherTarget(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv)
	other, err := upsert(t, s, delivery(issue, "main", "on the issue", sinks.Ref{}))
	require.NoError(t, err)
	before := srv.RequestCount()
	res, err := upsert(t, s, delivery(pull, "main", "on the pull request", other.Ref))
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	assert.Equal(t, []string{list, create}, ops(srv.Requests()[before:]))
	c, _ := srv.Comment(commentID(t, other.Ref))
	assert.Contains(t, c.Body, "**Next:** on the issue\n", "left alone")
}

func TestTimeoutCause(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv)
	first, err := upsert(t, s, delivery(pull, "main", "first", sinks.Ref{}))
	require.NoError(t, err)
	srv.Inject(githubfake.Slow(10 * time.Second))
	// The budget is measured from the sink's clock when the delivery starts;
	// freeze it at the context's start so a slow machine reads the same.
	start := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), start.Add(300*time.Millisecond))
	defer cancel()
	s = newSink(srv, func(c *github.Config) { c.Now = func() time.Time { return start } })
	res, err := s.Upsert(ctx, delivery(pull, "main", "second", first.Ref))
	serr := causeOf(t, err)
	assert.Equal(t, "timeout after 300ms", serr.Cause)
	assert.True(t, errors.Is(err, context.DeadlineExceeded))
	assert.Equal(t, 1, res.Requests)
}

func TestCanceled(t *testing.T) {
	srv := newFake(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newSink(srv).Upsert(ctx, delivery(pull, "main", "x", sinks.Ref{}))
	assert.Equal(t, "canceled", causeOf(t, err).Cause)
	assert.Empty(t, srv.Comments(pull))
}

func TestUnreachable(t *testing.T) {
	srv := githubfake.New()
	base := srv.URL
	srv.Close()
	s := github.New(github.Config{Token: githubfake.Token, APIURL: base, Tuning: sinks.Tuning{InitialInterval: time.Millisecond, MaxAttempts: 3}})
	res, err := upsert(t, s, delivery(pull, "main", "x", sinks.Ref{}))
	serr := causeOf(t, err)
	assert.True(t, strings.HasPrefix(serr.Cause, "network error: "), serr.Cause)
	assert.NotContains(t, serr.Cause, "/repos/", "the URL stays out of the report")
	assert.False(t, serr.Permanent)
	assert.Equal(t, 3, res.Requests)
}

// A Link to another host is not followed: the token goes only to the API
// it was meant for.
func TestLinkToAnotherHostIsNotFollowed(t *testing.T) {
	var elsewhere int
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere++
		_, _ = w.Write([]byte("[]"))
	}))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", fmt.Sprintf(`<%s/repos/octo/app/issues/7/comments?page=2>; rel="next"`, other.URL))
		_, _ = w.Write([]byte("[]"))
	}))
	defer api.Close()
	s := github.New(github.Config{Token: githubfake.Token, APIURL: api.URL, Tuning: sinks.Tuning{InitialInterval: time.Millisecond}})
	_, err := upsert(t, s, delivery(pull, "main", "x", sinks.Ref{}))
	serr := causeOf(t, err)
	assert.Equal(t, "GitHub sent a page link to another host", serr.Cause)
	assert.Zero(t, elsewhere)
}

// Bodies over GitHub's limit are cut as the Linear sink cuts them, with a
// note naming the progress file, and the marker stays the last line.
func TestLongBodyIsTruncated(t *testing.T) {
	body := comment.Render(comment.Status{
		Updated: time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC), TaskN: 1, TaskM: 2, Task: "long", Next: "ship it",
		Decisions: []string{strings.Repeat("because ", 200)},
	})
	t.Run("golden", func(t *testing.T) {
		srv := newFake(t)
		s := newSink(srv, func(c *github.Config) { c.MaxBody = 600; c.ProgressPath = "notes/progress.md" })
		_, err := upsert(t, s, sinks.Delivery{Target: sinks.Target{Issue: pull, Agent: "main"}, Body: body})
		require.NoError(t, err)
		got := srv.Comments(pull)[0].Body
		assert.LessOrEqual(t, utf8.RuneCountInString(got), 600)
		assert.Contains(t, got, "\n**Next:** ship it\n")
		assert.Contains(t, got, "\n"+comment.TruncateNote("notes/progress.md")+"\n")
		assert.True(t, strings.HasSuffix(got, "\n"+github.Marker("main")), "the marker survives truncation")
		assert.True(t, github.HasMarker(got, "main"))
		testutil.Golden(t, filepath.Join("testdata", "truncated.golden"), got)
	})
	t.Run("GitHub's limit", func(t *testing.T) {
		srv := newFake(t)
		huge := comment.Render(comment.Status{
			TaskN: 1, TaskM: 2, Task: "huge", Next: "ship it",
			Decisions: []string{strings.Repeat("é", 70000)},
		})
		_, err := upsert(t, newSink(srv), sinks.Delivery{Target: sinks.Target{Issue: pull, Agent: "main"}, Body: huge})
		require.NoError(t, err, "the fake rejects bodies over 65,536 characters")
		got := srv.Comments(pull)[0].Body
		assert.Equal(t, githubfake.MaxBody, utf8.RuneCountInString(got), "cut to the limit, counted in characters")
		assert.True(t, github.HasMarker(got, "main"))
		assert.Contains(t, got, comment.TruncateNote(sinks.DefaultProgressPath))
	})
}

// No token appears in any error, result, health report or anything the
// fake recorded (the Authorization header itself is the one place it
// goes).
func TestSecretsNeverLeak(t *testing.T) {
	scenarios := [][]githubfake.Fault{
		{githubfake.BadCredentials()},
		githubfake.Repeat(5, githubfake.Unavailable(503)),
		{githubfake.RateLimited(403, time.Now().Add(time.Hour))},
		{githubfake.SecondaryRateLimit(403, 0)},
		{githubfake.Invalid("Nope.")},
		{githubfake.NotFound(), githubfake.NotFound()},
		{githubfake.ForkReadOnly()},
		{githubfake.Dropped(), githubfake.Dropped(), githubfake.Dropped()},
		{githubfake.Slow(5 * time.Second)},
	}
	for _, token := range []string{githubfake.Token, githubfake.InstallationToken} {
		for i, faults := range scenarios {
			t.Run(fmt.Sprintf("%s/%d", token[:4], i), func(t *testing.T) {
				srv := newFake(t)
				s := newSink(srv, func(c *github.Config) { c.Token = token; c.MaxAttempts = 3 })
				first, err := upsert(t, s, delivery(pull, "main", "first", sinks.Ref{}))
				require.NoError(t, err)
				srv.Inject(faults...)
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				defer cancel()
				res, err := s.Upsert(ctx, delivery(pull, "main", "second", first.Ref))
				require.Error(t, err)
				srv.ClearFaults()
				ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				h, herr := s.Health(ctx, "octo/app#404")
				require.Error(t, herr)

				recorded, jerr := json.Marshal(srv.Requests())
				require.NoError(t, jerr)
				seen := sinktest.Shown([]error{err, herr}, res, h, recorded)
				assert.NotContains(t, seen, token)
				assert.NotContains(t, seen, token[len(token)-12:], "not even part of it")
			})
		}
	}
}

func TestHealth(t *testing.T) {
	t.Run("personal token", func(t *testing.T) {
		srv := newFake(t)
		h, err := newSink(srv).Health(context.Background(), pull)
		require.NoError(t, err)
		assert.Equal(t, "GITHUB_TOKEN", h.Credential)
		assert.Equal(t, githubfake.Login, h.Account)
		assert.Equal(t, `octo/app#7 "Add the GitHub sink"`, h.Target)
		assert.Equal(t, "https://github.com/octo/app/pull/7", h.TargetURL)
		assert.Regexp(t, `^4998 of 5000 requests left, resets \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, h.RateLimit.String())
		assert.Equal(t, 2, h.Requests)
		assert.Empty(t, srv.Comments(pull), "a check writes nothing")
	})
	t.Run("installation token", func(t *testing.T) {
		srv := newFake(t)
		h, err := newSink(srv, func(c *github.Config) { c.Token = githubfake.InstallationToken }).Health(context.Background(), issue)
		require.NoError(t, err)
		assert.Equal(t, "github-actions[bot] (installation token)", h.Account)
		assert.Equal(t, "https://github.com/octo/app/issues/8", h.TargetURL)
		assert.True(t, strings.HasPrefix(h.RateLimit.String(), "998 of 1000 requests left"), h.RateLimit.String())
	})
	t.Run("no target asked", func(t *testing.T) {
		srv := newFake(t)
		h, err := newSink(srv).Health(context.Background(), "")
		require.NoError(t, err)
		assert.Equal(t, 1, h.Requests)
		assert.Empty(t, h.Target)
	})
	t.Run("missing target", func(t *testing.T) {
		srv := newFake(t)
		h, err := newSink(srv).Health(context.Background(), "octo/app#404")
		assert.Equal(t, "octo/app#404 not found", causeOf(t, err).Cause)
		assert.Equal(t, githubfake.Login, h.Account, "what was learnt before the failure is kept")
		assert.Equal(t, 2, h.Requests)
	})
	t.Run("bad token", func(t *testing.T) {
		srv := newFake(t)
		srv.Inject(githubfake.BadCredentials())
		h, err := newSink(srv).Health(context.Background(), pull)
		assert.Equal(t, "authentication failed: check GITHUB_TOKEN", causeOf(t, err).Cause)
		assert.Equal(t, 1, h.Requests)
	})
	t.Run("invalid target", func(t *testing.T) {
		srv := newFake(t)
		h, err := newSink(srv).Health(context.Background(), "not a target")
		assert.True(t, causeOf(t, err).Permanent)
		assert.Zero(t, h.Requests)
	})
}
