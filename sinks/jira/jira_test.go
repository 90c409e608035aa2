package jira_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/fake/jirafake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/jira"
	"github.com/ccc-checkpoint/ccc/sinks/sinktest"
)

func delivery(issue, agent, next string, prev sinks.Ref) sinks.Delivery {
	return sinks.Delivery{Target: sinks.Target{Issue: issue, Agent: agent}, Body: sinktest.Body(next), Prev: prev}
}

func TestConfigFromEnv(t *testing.T) {
	cfg := jira.ConfigFromEnv(config.EnvOf(map[string]string{
		"JIRA_BASE_URL": " https://acme.atlassian.net ", "JIRA_EMAIL": "dev@example.com", "JIRA_API_TOKEN": "tok",
	}).Jira)
	assert.Equal(t, "https://acme.atlassian.net", cfg.BaseURL)
	assert.Equal(t, "dev@example.com", cfg.Email)
	assert.Equal(t, "tok", cfg.APIToken)
	assert.Contains(t, config.EnvOf(map[string]string{"JIRA_API_TOKEN": "s3cret-token", "JIRA_BEARER_TOKEN": "b3arer-token"}).Secrets(),
		"s3cret-token", "the API token is redacted like every credential")
}

func TestSkipsWithoutCredentials(t *testing.T) {
	for name, cfg := range map[string]jira.Config{
		"nothing":         {},
		"no token":        {BaseURL: "https://acme.atlassian.net", Email: "dev@example.com"},
		"no email":        {BaseURL: "https://acme.atlassian.net", APIToken: "tok"},
		"no site":         {Email: "dev@example.com", APIToken: "tok"},
		"bearer, no site": {BearerToken: "tok"},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := sinks.Deliver(context.Background(), jira.New(cfg), delivery(key, "main", "x", sinks.Ref{}))
			var skip *sinks.SkipError
			require.ErrorAs(t, err, &skip)
			assert.Contains(t, skip.Reason, "JIRA_BASE_URL")
			assert.Equal(t, sinks.Skipped, res.Action)
		})
	}
}

func TestFirstDelivery(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv)
	res, err := sinks.Deliver(context.Background(), s, delivery("proj-7", "main", "first", sinks.Ref{}))
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	assert.Equal(t, 2, res.Requests, "a first delivery to an issue without comments: list, nothing found, create")
	assert.Equal(t, srv.URL+"/browse/PROJ-7?focusedCommentId="+res.Ref.ID, res.Ref.URL)

	cs := srv.Comments(key)
	require.Len(t, cs, 1)
	assert.JSONEq(t, `{"agent":"main"}`, string(cs[0].Properties[jira.PropertyKey]), "ccc's comment property")
	var doc jira.Doc
	require.NoError(t, json.Unmarshal(cs[0].Body, &doc))
	assert.Equal(t, "heading", doc.Content[0].Type)
	last := doc.Content[len(doc.Content)-1]
	assert.Equal(t, "ccc checkpoint · agent: main", jira.PlainText([]jira.Node{last}), "the marker is the last paragraph")

	reqs := srv.Requests()
	assert.Equal(t, jirafake.OpAddComment, reqs[len(reqs)-1].Op)
	for _, r := range reqs {
		if r.Op == jirafake.OpGetComments {
			assert.Contains(t, r.RawQuery, "maxResults=100")
		}
	}
	// The next update sends one PUT that notifies nobody.
	res, err = sinks.Deliver(context.Background(), s, delivery(key, "main", "second", res.Ref))
	require.NoError(t, err)
	assert.Equal(t, sinks.Updated, res.Action)
	assert.Equal(t, 1, res.Requests)
	put := srv.Requests()[len(srv.Requests())-1]
	assert.Equal(t, jirafake.OpUpdateComment, put.Op)
	assert.Equal(t, "notifyUsers=false", put.RawQuery)
}

func TestFailures(t *testing.T) {
	now := time.Now().Truncate(time.Minute)
	tests := []struct {
		name     string
		faults   []jirafake.Fault
		deadline time.Duration
		want     sinktest.Want
	}{
		{"503 twice then success", jirafake.Repeat(2, jirafake.Unavailable(503)), 0,
			sinktest.Want{OK: true, Requests: 3}},
		{"429 waits Retry-After", []jirafake.Fault{jirafake.RateLimited(now, 3*time.Second, "jira-per-issue-on-write")}, 0,
			sinktest.Want{OK: true, Requests: 2, MinWaits: []time.Duration{3 * time.Second}}},
		{"429 past the deadline fails at once and carries the wait",
			[]jirafake.Fault{jirafake.RateLimited(now, 2*time.Minute, "jira-quota-tenant-based")}, 10 * time.Second,
			sinktest.Want{Cause: "rate limited (jira-quota-tenant-based), retry after 2m", Requests: 1, NoWait: true, RetryAfter: 2 * time.Minute}},
		{"401 is permanent", []jirafake.Fault{jirafake.BadCredentials()}, 0,
			sinktest.Want{Cause: "authentication failed: check JIRA_EMAIL and JIRA_API_TOKEN", Permanent: true, Requests: 1}},
		{"403 is permanent and says why", []jirafake.Fault{jirafake.Forbidden()}, 0,
			sinktest.Want{Cause: "permission denied: You do not have permission to create comments for this issue", Permanent: true, Requests: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t, jirafake.WithClock(func() time.Time { return now }))
			var w sinktest.Waits
			s := newSink(srv, func(c *jira.Config) { c.Sleep = w.Sleep; c.Now = func() time.Time { return now } })
			first, err := sinks.Deliver(context.Background(), s, delivery(key, "main", "first", sinks.Ref{}))
			require.NoError(t, err)
			srv.Inject(tt.faults...)
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			res, err := s.Upsert(ctx, delivery(key, "main", "second", first.Ref))
			tt.want.Check(t, first.Ref, res, err, w.All())
		})
	}
}

func TestIssueNotFound(t *testing.T) {
	srv := newFake(t)
	_, err := sinks.Deliver(context.Background(), newSink(srv), delivery("PROJ-404", "main", "x", sinks.Ref{}))
	var serr *sinks.Error
	require.ErrorAs(t, err, &serr)
	assert.True(t, serr.Permanent)
	assert.Equal(t, "PROJ-404 not found (or not visible to JIRA_EMAIL and JIRA_API_TOKEN)", serr.Cause)
}

func TestProjectKeepsOtherKeysOut(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv, func(c *jira.Config) { c.Project = "proj" })
	_, err := sinks.Deliver(context.Background(), s, delivery("CIA-12", "main", "x", sinks.Ref{}))
	var skip *sinks.SkipError
	require.ErrorAs(t, err, &skip)
	assert.Equal(t, "CIA-12 is not an issue of Jira project PROJ (sinks.jira.project)", skip.Reason)
	assert.Zero(t, srv.RequestCount())
	_, err = sinks.Deliver(context.Background(), s, delivery(key, "main", "x", sinks.Ref{}))
	require.NoError(t, err)
}

// A reference stored for another issue is not updated: Jira would let the
// account edit its comment there.
func TestStoredRefOfAnotherIssue(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv)
	other, err := sinks.Deliver(context.Background(), s, delivery(otherKey, "main", "there", sinks.Ref{}))
	require.NoError(t, err)
	res, err := sinks.Deliver(context.Background(), s, delivery(key, "main", "here", other.Ref))
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	assert.NotEqual(t, other.Ref.ID, res.Ref.ID)
	assert.Contains(t, markdown(srv.Comments(otherKey)[0].Body), "**Next:** there")
}

func TestSecretsNeverLeak(t *testing.T) {
	scenarios := [][]jirafake.Fault{
		{jirafake.BadCredentials()},
		jirafake.Repeat(5, jirafake.Unavailable(503)),
		{jirafake.RateLimited(time.Now(), time.Hour, "jira-burst-based")},
		{jirafake.Forbidden()},
		{jirafake.Slow(5 * time.Second)},
	}
	for i, faults := range scenarios {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			srv := newFake(t)
			s := newSink(srv, func(c *jira.Config) { c.MaxAttempts = 3 })
			first, err := sinks.Deliver(context.Background(), s, delivery(key, "main", "first", sinks.Ref{}))
			require.NoError(t, err)
			srv.Inject(faults...)
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			res, err := s.Upsert(ctx, delivery(key, "main", "second", first.Ref))
			require.Error(t, err)
			srv.ClearFaults()
			h, herr := s.Health(context.Background(), "PROJ-404")
			require.Error(t, herr)
			recorded, _ := json.Marshal(srv.Requests())
			seen := sinktest.Shown([]error{err, herr}, res, h, recorded)
			for _, secret := range []string{jirafake.APIToken, jirafake.APIToken[len(jirafake.APIToken)-12:]} {
				assert.NotContains(t, seen, secret)
			}
		})
	}
}

func TestHealth(t *testing.T) {
	srv := newFake(t)
	h, err := newSink(srv).Health(context.Background(), key)
	require.NoError(t, err)
	assert.Equal(t, "JIRA_EMAIL and JIRA_API_TOKEN", h.Credential)
	assert.Equal(t, jirafake.DisplayName, h.Account)
	assert.Equal(t, `PROJ-7 "Ship the Jira sink"`, h.Target)
	assert.Equal(t, srv.URL+"/browse/PROJ-7", h.TargetURL)
	assert.Equal(t, "348 of 350 requests left", h.RateLimit.String())
	assert.Empty(t, srv.Comments(key), "a check writes nothing")

	_, err = newSink(srv, func(c *jira.Config) { c.APIToken = jirafake.OtherAPIToken + "x" }).Health(context.Background(), key)
	var serr *sinks.Error
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "authentication failed: check JIRA_EMAIL and JIRA_API_TOKEN", serr.Cause)
}

// The fake refuses what Jira refuses: a body that is no ADF document, a
// comment over Jira's limit.
func TestFakeRefusesWhatJiraRefuses(t *testing.T) {
	srv := jirafake.New()
	defer srv.Close()
	srv.AddIssue(key, "x")
	post := func(body string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/rest/api/3/issue/"+key+"/comment", strings.NewReader(body))
		req.SetBasicAuth(jirafake.Email, jirafake.APIToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, 400, post(`{"body": "plain text is API v2, not v3"}`))
	assert.Equal(t, 400, post(`{"body": {"version": 1, "type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": ""}]}]}}`))
	long, _ := json.Marshal(jira.ToADF(strings.Repeat("x", jirafake.MaxBody+1)))
	assert.Equal(t, 400, post(`{"body": `+string(long)+`}`))
	assert.Len(t, srv.Invalid(), 2, "the first two do not conform to the ADF schema")
	ok, _ := json.Marshal(jira.ToADF("hello"))
	assert.Equal(t, 201, post(`{"body": `+string(ok)+`}`))
}
