package githubfake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/githubfake"
)

type answer struct {
	status int
	header http.Header
	raw    string
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(a.raw), &m), a.raw)
	return m
}

func (a answer) list(t *testing.T) []map[string]any {
	t.Helper()
	var l []map[string]any
	require.NoError(t, json.Unmarshal([]byte(a.raw), &l), a.raw)
	return l
}

func send(t *testing.T, method, target, token, body string) answer {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, target, r)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", githubfake.APIVersion)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
}

func newServer(t *testing.T, opts ...githubfake.Option) *githubfake.Server {
	t.Helper()
	srv := githubfake.New(opts...)
	t.Cleanup(srv.Close)
	srv.AddPullRequest("octo/app#7", "A pull request")
	return srv
}

// Errors carry GitHub's document: message, documentation_url and status.
func TestErrorsLikeGitHub(t *testing.T) {
	srv := newServer(t)
	comments := srv.URL + "/repos/octo/app/issues/7/comments"
	tests := []struct {
		name    string
		method  string
		target  string
		token   string
		body    string
		status  int
		message string
	}{
		{"no token", "GET", comments, "", "", 401, "Requires authentication"},
		{"bad token", "GET", comments, "ghp_nope", "", 401, "Bad credentials"},
		{"installation token reads /user", "GET", srv.URL + "/user", githubfake.InstallationToken, "", 403, "Resource not accessible by integration"},
		{"fork token writes", "POST", comments, githubfake.ReadOnlyToken, `{"body":"x"}`, 403, "Resource not accessible by integration"},
		{"missing issue", "GET", srv.URL + "/repos/octo/app/issues/8/comments", githubfake.Token, "", 404, "Not Found"},
		{"missing repo", "POST", srv.URL + "/repos/octo/other/issues/7/comments", githubfake.Token, `{"body":"x"}`, 404, "Not Found"},
		{"unknown route", "GET", srv.URL + "/nope", githubfake.Token, "", 404, "Not Found"},
		{"missing comment", "PATCH", srv.URL + "/repos/octo/app/issues/comments/1", githubfake.Token, `{"body":"x"}`, 404, "Not Found"},
		{"empty body", "POST", comments, githubfake.Token, `{"body":" "}`, 422, "Validation Failed"},
		{"too long", "POST", comments, githubfake.Token, `{"body":"` + strings.Repeat("é", githubfake.MaxBody+1) + `"}`, 422, "Validation Failed"},
		{"not JSON", "POST", comments, githubfake.Token, `{`, 400, "Problems parsing JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := send(t, tt.method, tt.target, tt.token, tt.body)
			assert.Equal(t, tt.status, a.status)
			assert.Equal(t, "application/json; charset=utf-8", a.header.Get("Content-Type"))
			m := a.json(t)
			assert.Equal(t, tt.message, m["message"])
			assert.Equal(t, strconv.Itoa(tt.status), m["status"])
			assert.True(t, strings.HasPrefix(m["documentation_url"].(string), "https://docs.github.com/"))
		})
	}
	long := send(t, "POST", comments, githubfake.Token, `{"body":"`+strings.Repeat("é", githubfake.MaxBody+1)+`"}`).json(t)
	assert.Equal(t, "body is too long (maximum is 65536 characters)", long["errors"].([]any)[0].(map[string]any)["message"])
	exact := send(t, "POST", comments, githubfake.Token, `{"body":"`+strings.Repeat("é", githubfake.MaxBody)+`"}`)
	assert.Equal(t, http.StatusCreated, exact.status, "the limit counts characters, not bytes")

	me := send(t, "GET", srv.URL+"/user", githubfake.Token, "")
	assert.Equal(t, githubfake.APIVersion, me.header.Get("X-GitHub-Api-Version-Selected"))
	assert.Equal(t, githubfake.Login, me.json(t)["login"])
	req, _ := http.NewRequest("GET", srv.URL+"/user", nil)
	req.Header.Set("Authorization", "token "+githubfake.Token)
	req.Header.Set("X-GitHub-Api-Version", "1999-01-01")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "an unknown API version is refused")
}

// The injected clock stamps comments, in GitHub's whole seconds, and sets
// the budget's reset an hour after New.
func TestClock(t *testing.T) {
	now := time.Date(2026, 11, 21, 13, 45, 0, 700_000_000, time.UTC)
	srv := newServer(t, githubfake.WithClock(func() time.Time { return now }))
	a := send(t, "POST", srv.URL+"/repos/octo/app/issues/7/comments", githubfake.Token, `{"body":"hello"}`)
	require.Equal(t, http.StatusCreated, a.status, a.raw)
	assert.Equal(t, "2026-11-21T13:45:00Z", a.json(t)["created_at"])
	assert.Equal(t, strconv.FormatInt(now.Add(time.Hour).Unix(), 10), a.header.Get("X-Ratelimit-Reset"))
	c := srv.Comments("octo/app#7")
	require.NotEmpty(t, c)
	assert.Equal(t, now.Truncate(time.Second), c[len(c)-1].UpdatedAt)
}

// Writes answer the comment as GitHub does; the author is the token's
// account, the bot for an installation token; only the author may edit.
func TestCommentsLifecycle(t *testing.T) {
	srv := newServer(t)
	comments := srv.URL + "/repos/octo/app/issues/7/comments"
	a := send(t, "POST", comments, githubfake.InstallationToken, `{"body":"hello"}`)
	require.Equal(t, http.StatusCreated, a.status, a.raw)
	c := a.json(t)
	id := strconv.FormatInt(int64(c["id"].(float64)), 10)
	assert.Equal(t, githubfake.BotLogin, c["user"].(map[string]any)["login"])
	assert.Equal(t, "Bot", c["user"].(map[string]any)["type"])
	assert.Equal(t, "https://github.com/octo/app/pull/7#issuecomment-"+id, c["html_url"])
	assert.Equal(t, srv.URL+"/repos/octo/app/issues/comments/"+id, a.header.Get("Location"))
	_, err := time.Parse(time.RFC3339, c["created_at"].(string))
	require.NoError(t, err)

	one := srv.URL + "/repos/octo/app/issues/comments/" + id
	assert.Equal(t, http.StatusForbidden, send(t, "PATCH", one, githubfake.Token, `{"body":"mine now"}`).status)
	assert.Equal(t, http.StatusForbidden, send(t, "PATCH", one, githubfake.ReadOnlyToken, `{"body":"x"}`).status)
	assert.Equal(t, http.StatusNotFound, send(t, "PATCH", srv.URL+"/repos/octo/other/issues/comments/"+id, githubfake.InstallationToken, `{"body":"x"}`).status,
		"a comment is found only under its own repository")
	upd := send(t, "PATCH", one, githubfake.InstallationToken, `{"body":"edited"}`)
	require.Equal(t, http.StatusOK, upd.status)
	assert.Equal(t, "edited", upd.json(t)["body"])

	n, _ := strconv.ParseInt(id, 10, 64)
	require.True(t, srv.DeleteComment(n))
	assert.Equal(t, http.StatusNotFound, send(t, "PATCH", one, githubfake.InstallationToken, `{"body":"x"}`).status)
	assert.Empty(t, srv.Comments("octo/app#7"))
	got, ok := srv.Comment(n)
	assert.True(t, ok)
	assert.True(t, got.Deleted)
}

// Pages follow GitHub's Link header, under an Enterprise prefix too, and
// every authenticated answer carries the rate-limit headers.
func TestPaginationAndRateLimitHeaders(t *testing.T) {
	srv := newServer(t, githubfake.WithPrefix("api/v3/"))
	require.True(t, strings.HasSuffix(srv.URL, "/api/v3"))
	srv.PageSize = 2
	for i := range 5 {
		srv.AddComment("octo/app#7", githubfake.OtherLogin, "c"+strconv.Itoa(i))
	}
	var bodies []string
	var links []string
	next := srv.URL + "/repos/octo/app/issues/7/comments?per_page=100"
	remaining := githubfake.DefaultRateLimit
	for next != "" {
		a := send(t, "GET", next, githubfake.Token, "")
		require.Equal(t, http.StatusOK, a.status, a.raw)
		for _, c := range a.list(t) {
			bodies = append(bodies, c["body"].(string))
		}
		remaining--
		assert.Equal(t, strconv.Itoa(remaining), a.header.Get("X-Ratelimit-Remaining"))
		assert.Equal(t, strconv.Itoa(githubfake.DefaultRateLimit), a.header.Get("X-Ratelimit-Limit"))
		assert.NotEmpty(t, a.header.Get("X-Ratelimit-Reset"))
		assert.Equal(t, "core", a.header.Get("X-Ratelimit-Resource"))
		links = append(links, a.header.Get("Link"))
		next = ""
		for part := range strings.SplitSeq(a.header.Get("Link"), ", ") {
			if u, ok := strings.CutSuffix(part, `>; rel="next"`); ok {
				next = strings.TrimPrefix(u, "<")
			}
		}
	}
	assert.Equal(t, []string{"c0", "c1", "c2", "c3", "c4"}, bodies, "oldest first")
	require.Len(t, links, 3)
	assert.Contains(t, links[0], `rel="next"`)
	assert.Contains(t, links[0], `rel="last"`)
	assert.NotContains(t, links[0], `rel="prev"`)
	assert.Contains(t, links[1], `rel="prev"`)
	assert.Contains(t, links[1], `rel="first"`)
	assert.NotContains(t, links[2], `rel="next"`)
	assert.Contains(t, links[1], "/api/v3/repos/octo/app/issues/7/comments?")
	assert.Contains(t, links[1], "per_page=100")
	for _, r := range srv.Requests() {
		assert.Equal(t, githubfake.OpListComments, r.Op)
		assert.Empty(t, r.Header.Get("Authorization"), "the token is never recorded")
		assert.Equal(t, githubfake.Login, r.Login)
	}
	outside := send(t, "GET", strings.TrimSuffix(srv.URL, "/api/v3")+"/repos/octo/app/issues/7/comments", githubfake.Token, "")
	assert.Equal(t, http.StatusNotFound, outside.status, "only the prefix is served")

	inst := send(t, "GET", srv.URL+"/repos/octo/app/issues/7", githubfake.InstallationToken, "")
	assert.Equal(t, strconv.Itoa(githubfake.InstallationRateLimit), inst.header.Get("X-Ratelimit-Limit"))
	assert.Contains(t, inst.json(t), "pull_request", "a pull request is an issue with pull_request set")

	srv.SetRemaining(githubfake.Login, 0)
	spent := send(t, "GET", srv.URL+"/user", githubfake.Token, "")
	assert.Equal(t, http.StatusForbidden, spent.status)
	assert.Equal(t, "0", spent.header.Get("X-Ratelimit-Remaining"))
	assert.Contains(t, spent.json(t)["message"], "API rate limit exceeded")
}

func TestFaults(t *testing.T) {
	now := time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)
	srv := newServer(t, githubfake.WithClock(func() time.Time { return now }))
	comments := srv.URL + "/repos/octo/app/issues/7/comments"
	reset := now.Add(40 * time.Second)

	srv.Inject(githubfake.RateLimited(429, reset))
	a := send(t, "GET", comments, githubfake.Token, "")
	assert.Equal(t, 429, a.status)
	assert.Equal(t, "0", a.header.Get("X-Ratelimit-Remaining"))
	assert.Equal(t, strconv.FormatInt(reset.Unix(), 10), a.header.Get("X-Ratelimit-Reset"))

	srv.Inject(githubfake.SecondaryRateLimit(403, 0), githubfake.SecondaryRateLimit(403, 30*time.Second))
	a = send(t, "GET", comments, githubfake.Token, "")
	assert.Equal(t, 403, a.status)
	assert.Contains(t, a.json(t)["message"], "secondary rate limit")
	assert.Empty(t, a.header.Get("Retry-After"))
	assert.NotEqual(t, "0", a.header.Get("X-Ratelimit-Remaining"), "a secondary limit leaves the primary budget")
	assert.Equal(t, "30", send(t, "GET", comments, githubfake.Token, "").header.Get("Retry-After"))

	// A fault waits for its operation; other requests pass it by.
	srv.Inject(githubfake.Unavailable(502).On(githubfake.OpCreateComment))
	assert.Equal(t, http.StatusOK, send(t, "GET", comments, githubfake.Token, "").status)
	assert.Equal(t, 502, send(t, "POST", comments, githubfake.Token, `{"body":"x"}`).status)
	assert.Empty(t, srv.Comments("octo/app#7"), "a plain 5xx does not write")

	srv.Inject(githubfake.Landed(githubfake.Unavailable(502)))
	assert.Equal(t, 502, send(t, "POST", comments, githubfake.Token, `{"body":"landed"}`).status)
	assert.Len(t, srv.Comments("octo/app#7"), 1, "a landed fault wrote first")

	srv.Inject(githubfake.LostResponse(githubfake.OpCreateComment))
	req, _ := http.NewRequest("POST", comments, strings.NewReader(`{"body":"lost"}`))
	req.Header.Set("Authorization", "Bearer "+githubfake.Token)
	_, err := http.DefaultClient.Do(req)
	require.Error(t, err, "the connection drops")
	assert.Len(t, srv.Comments("octo/app#7"), 2, "but the comment was written")

	srv.Inject(githubfake.Slow(5 * time.Second))
	client := &http.Client{Timeout: 100 * time.Millisecond}
	req, _ = http.NewRequest("POST", comments, strings.NewReader(`{"body":"slow"}`))
	req.Header.Set("Authorization", "Bearer "+githubfake.Token)
	_, err = client.Do(req)
	require.Error(t, err)
	assert.Len(t, srv.Comments("octo/app#7"), 2, "a client that gave up wrote nothing")
	assert.Zero(t, srv.PendingFaults())

	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	assert.Equal(t, "slow", last.Fault)
	assert.Zero(t, last.Status)
	u, _ := url.Parse(comments)
	assert.Equal(t, u.Path, last.Path)
	assert.Equal(t, `{"body":"slow"}`, last.Body)
}

// A GitHub App's bot writes with performed_via_github_app naming the app
// its login is of; a person's comment has none, and one made through an
// app names it with the person as the author.
func TestPerformedViaGitHubApp(t *testing.T) {
	srv := newServer(t)
	comments := srv.URL + "/repos/octo/app/issues/7/comments"
	assert.Equal(t, http.StatusForbidden, send(t, "GET", srv.URL+"/user", githubfake.AppToken, "").status, "an app token may not read /user")
	for _, token := range []string{githubfake.AppToken, githubfake.InstallationToken, githubfake.Token} {
		a := send(t, "POST", comments, token, `{"body":"hello"}`)
		require.Equal(t, http.StatusCreated, a.status, a.raw)
	}
	srv.AddCommentVia("octo/app#7", githubfake.OtherLogin, "my-app", "through an app")
	srv.AddComment("octo/app#7", "other-app[bot]", "a bot")

	type seen struct{ login, typ, app string }
	var got []seen
	for _, c := range send(t, "GET", comments, githubfake.Token, "").list(t) {
		u := c["user"].(map[string]any)
		s := seen{login: u["login"].(string), typ: u["type"].(string)}
		require.Contains(t, c, "performed_via_github_app", "always present, null when none")
		if app, ok := c["performed_via_github_app"].(map[string]any); ok {
			s.app = app["slug"].(string)
		}
		got = append(got, s)
	}
	assert.Equal(t, []seen{
		{githubfake.AppLogin, "Bot", "my-app"},
		{githubfake.BotLogin, "Bot", "github-actions"},
		{githubfake.Login, "User", ""},
		{githubfake.OtherLogin, "User", "my-app"},
		{"other-app[bot]", "Bot", "other-app"},
	}, got)
}
