package github_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ccc-checkpoint/ccc/internal/fake/githubfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/github"
)

// The targets every fake starts with.
const (
	pull  = "octo/app#7"
	issue = "octo/app#8"
)

// newFake starts a fake with pull request octo/app#7 and issue octo/app#8.
// When the test ends, every request the sink sent is checked for the
// headers GitHub asks for, so no request goes unchecked.
func newFake(t *testing.T, opts ...githubfake.Option) *githubfake.Server {
	t.Helper()
	srv := githubfake.New(opts...)
	srv.AddPullRequest(pull, "Add the GitHub sink")
	srv.AddIssue(issue, "Status comments from CI")
	t.Cleanup(func() {
		srv.Close()
		for _, r := range srv.Requests() {
			assert.Equal(t, "application/vnd.github+json", r.Header.Get("Accept"), "%s %s", r.Method, r.Path)
			assert.Equal(t, github.APIVersion, r.Header.Get("X-GitHub-Api-Version"), "%s %s", r.Method, r.Path)
			assert.True(t, strings.HasPrefix(r.Header.Get("User-Agent"), "ccc/"), "User-Agent %q", r.Header.Get("User-Agent"))
			assert.Empty(t, r.Header.Get("Authorization"), "the fake never records the token")
			assert.NotEmpty(t, r.Login, "every request carried a token the fake knows: %s %s", r.Method, r.Path)
			if r.Op == githubfake.OpListComments {
				q, _ := url.ParseQuery(r.RawQuery)
				assert.Equal(t, "100", q.Get("per_page"), "marker searches ask for full pages")
			}
		}
	})
	return srv
}

// newSink is a sink for srv with test-sized retries; edit adjusts the
// config.
func newSink(srv *githubfake.Server, edit ...func(*github.Config)) *github.Sink {
	cfg := github.Config{
		Token:   githubfake.Token,
		APIURL:  srv.URL,
		Version: "test",
		Tuning:  sinks.Tuning{InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond},
	}
	for _, e := range edit {
		e(&cfg)
	}
	return github.New(cfg)
}
