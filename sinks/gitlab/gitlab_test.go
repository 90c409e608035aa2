package gitlab_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/fake/gitlabfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/gitlab"
	"github.com/ccc-checkpoint/ccc/sinks/sinktest"
)

func delivery(target, agent, next string, prev sinks.Ref) sinks.Delivery {
	return sinks.Delivery{Target: sinks.Target{Issue: target, Agent: agent}, Body: sinktest.Body(next), Prev: prev}
}

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]string{
		"acme/app#12":         "acme/app#12",
		"acme/sub/app!34":     "acme/sub/app!34",
		" acme/my.app_x-1#1 ": "acme/my.app_x-1#1",
		"https://gitlab.com/acme/sub/app/-/merge_requests/34":         "acme/sub/app!34",
		"https://gitlab.example.com/acme/app/-/issues/12#note_1":      "acme/app#12",
		"https://gitlab.example.com/acme/app/-/issues/12/designs?x=1": "acme/app#12",
	} {
		got, err := gitlab.ParseTarget(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got.String(), in)
	}
	for _, bad := range []string{"", "app#12", "acme/app#0", "acme/app#x", "acme/app", "acme/-app#1", "acme//app#1",
		"https://gitlab.com/acme/app/issues/12", "ftp://gitlab.com/acme/app/-/issues/1", "acme/app#+1"} {
		_, err := gitlab.ParseTarget(bad)
		assert.Error(t, err, bad)
	}
}

// In GitLab CI the merge request pipeline names the target; without
// GITLAB_TOKEN the skip says why the job's own token will not do.
func TestCI(t *testing.T) {
	env := config.EnvOf(map[string]string{"GITLAB_CI": "true", "CI_PROJECT_PATH": "acme/app", "CI_MERGE_REQUEST_IID": "34",
		"CI_SERVER_URL": "https://gitlab.example.com"}).GitLab
	target, skip := gitlab.ResolveTarget("", config.SinkPrefs{}, env)
	assert.Equal(t, "acme/app!34", target)
	assert.Empty(t, skip)
	assert.Equal(t, "https://gitlab.example.com", gitlab.ConfigFromEnv(env).URL)

	_, err := sinks.Deliver(context.Background(), gitlab.New(gitlab.ConfigFromEnv(env)), delivery(target, "ci", "x", sinks.Ref{}))
	var skipErr *sinks.SkipError
	require.ErrorAs(t, err, &skipErr)
	assert.Contains(t, skipErr.Reason, "CI_JOB_TOKEN cannot write notes")

	env.MRIID = ""
	_, skip = gitlab.ResolveTarget("", config.SinkPrefs{}, env)
	assert.Contains(t, skip, "not a merge request pipeline")
	target, _ = gitlab.ResolveTarget("", config.SinkPrefs{Repo: "acme/app", Issue: 5}, env)
	assert.Equal(t, "acme/app#5", target)
}

// The job token reads but may not write notes: a clear permanent failure.
func TestJobTokenCannotWrite(t *testing.T) {
	srv := newFake(t)
	_, err := sinks.Deliver(context.Background(), newSink(srv, func(c *gitlab.Config) { c.Token = gitlabfake.JobToken }), delivery(mr, "ci", "x", sinks.Ref{}))
	var serr *sinks.Error
	require.ErrorAs(t, err, &serr)
	assert.True(t, serr.Permanent)
	assert.Equal(t, "permission denied: 403 Forbidden", serr.Cause)
	assert.Empty(t, srv.Notes(mr))
}

func TestFailures(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	tests := []struct {
		name     string
		faults   []gitlabfake.Fault
		deadline time.Duration
		want     sinktest.Want
	}{
		{"503 twice then success", gitlabfake.Repeat(2, gitlabfake.Unavailable(503)), 0, sinktest.Want{OK: true, Requests: 3}},
		{"429 waits Retry-After", []gitlabfake.Fault{gitlabfake.RateLimited(now, 4*time.Second)}, 0,
			sinktest.Want{OK: true, Requests: 2, MinWaits: []time.Duration{4 * time.Second}}},
		{"429 without headers waits a minute", []gitlabfake.Fault{gitlabfake.RateLimited(now, 0)}, 0,
			sinktest.Want{OK: true, Requests: 2, MinWaits: []time.Duration{time.Minute}}},
		{"429 past the deadline fails at once and carries the wait", []gitlabfake.Fault{gitlabfake.RateLimited(now, 90*time.Second)}, 10 * time.Second,
			sinktest.Want{Cause: "rate limited, retry after 1m30s", Requests: 1, NoWait: true, RetryAfter: 90 * time.Second}},
		{"401 is permanent", []gitlabfake.Fault{gitlabfake.Unauthorized()}, 0,
			sinktest.Want{Cause: "authentication failed: check GITLAB_TOKEN", Permanent: true, Requests: 1}},
		{"403 is permanent", []gitlabfake.Fault{gitlabfake.Forbidden()}, 0,
			sinktest.Want{Cause: "permission denied: 403 Forbidden", Permanent: true, Requests: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			var w sinktest.Waits
			s := newSink(srv, func(c *gitlab.Config) { c.Sleep = w.Sleep; c.Now = func() time.Time { return now } })
			first, err := sinks.Deliver(context.Background(), s, delivery(mr, "main", "first", sinks.Ref{}))
			require.NoError(t, err)
			srv.Inject(tt.faults...)
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			res, err := s.Upsert(ctx, delivery(mr, "main", "second", first.Ref))
			tt.want.Check(t, first.Ref, res, err, w.All())
		})
	}
}

func TestFirstDeliveryAndURL(t *testing.T) {
	srv := newFake(t)
	res, err := sinks.Deliver(context.Background(), newSink(srv), delivery(mr, "main", "first", sinks.Ref{}))
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	assert.Equal(t, 2, res.Requests, "list (empty), create")
	assert.Equal(t, srv.URL+"/acme/tools/app/-/merge_requests/7#note_"+res.Ref.ID, res.Ref.URL)
	assert.True(t, strings.HasSuffix(srv.Notes(mr)[0].Body, "<!-- ccc:checkpoint agent=main -->"))

	// A reference stored for another target is not updated.
	res2, err := sinks.Deliver(context.Background(), newSink(srv), delivery(issue, "main", "there", res.Ref))
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res2.Action)
	assert.Contains(t, srv.Notes(mr)[0].Body, "**Next:** first")
}

func TestTargetNotFound(t *testing.T) {
	srv := newFake(t)
	for _, target := range []string{"acme/tools/app#404", "acme/nope#1"} {
		_, err := sinks.Deliver(context.Background(), newSink(srv), delivery(target, "main", "x", sinks.Ref{}))
		var serr *sinks.Error
		require.ErrorAs(t, err, &serr)
		assert.Equal(t, target+" not found", serr.Cause)
	}
}

func TestSecretsNeverLeak(t *testing.T) {
	for i, faults := range [][]gitlabfake.Fault{
		{gitlabfake.Unauthorized()}, gitlabfake.Repeat(5, gitlabfake.Unavailable(503)),
		{gitlabfake.RateLimited(time.Now(), time.Hour)}, {gitlabfake.Forbidden()}, {gitlabfake.Slow(5 * time.Second)},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			srv := newFake(t)
			s := newSink(srv, func(c *gitlab.Config) { c.MaxAttempts = 3 })
			first, err := sinks.Deliver(context.Background(), s, delivery(mr, "main", "first", sinks.Ref{}))
			require.NoError(t, err)
			srv.Inject(faults...)
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			res, err := s.Upsert(ctx, delivery(mr, "main", "second", first.Ref))
			require.Error(t, err)
			srv.ClearFaults()
			h, herr := s.Health(context.Background(), "acme/tools/app#404")
			require.Error(t, herr)
			recorded, _ := json.Marshal(srv.Requests())
			seen := sinktest.Shown([]error{err, herr}, res, h, recorded)
			assert.NotContains(t, seen, gitlabfake.Token)
			assert.NotContains(t, seen, gitlabfake.Token[len(gitlabfake.Token)-12:])
		})
	}
}

func TestHealth(t *testing.T) {
	srv := newFake(t)
	h, err := newSink(srv).Health(context.Background(), mr)
	require.NoError(t, err)
	assert.Equal(t, "GITLAB_TOKEN", h.Credential)
	assert.Equal(t, gitlabfake.Username, h.Account)
	assert.Equal(t, `acme/tools/app!7 "Add the GitLab sink"`, h.Target)
	assert.Equal(t, srv.URL+"/acme/tools/app/-/merge_requests/7", h.TargetURL)
	assert.Regexp(t, `^1998 of 2000 requests left, resets `, h.RateLimit.String())
	assert.Empty(t, srv.Notes(mr), "a check writes nothing")
}
