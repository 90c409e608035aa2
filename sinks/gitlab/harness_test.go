package gitlab_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ccc-checkpoint/ccc/internal/fake/gitlabfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/gitlab"
)

// The targets every fake starts with; the project sits in a subgroup, so
// its path holds two slashes to encode.
const (
	mr    = "acme/tools/app!7"
	issue = "acme/tools/app#8"
)

// newFake starts a fake with merge request !7 and issue #8. When the test
// ends, every request must have been one GitLab takes as sent, with the
// token it knows and ccc's User-Agent, and every marker search asked for
// full pages, oldest first.
func newFake(t *testing.T) *gitlabfake.Server {
	t.Helper()
	srv := gitlabfake.New()
	srv.AddMergeRequest(mr, "Add the GitLab sink")
	srv.AddIssue(issue, "Status notes from CI")
	t.Cleanup(func() {
		srv.Close()
		assert.Empty(t, srv.Invalid(), "every request is one GitLab takes")
		for _, r := range srv.Requests() {
			assert.True(t, strings.HasPrefix(r.Header.Get("User-Agent"), "ccc/"), "User-Agent %q", r.Header.Get("User-Agent"))
			assert.Empty(t, r.Header.Get("PRIVATE-TOKEN"), "the fake never records the token")
			if r.Fault == "" && r.Status != http.StatusUnauthorized {
				assert.NotZero(t, r.UserID, "every request carried a token the fake knows: %s %s", r.Method, r.Path)
			}
			if r.Op == gitlabfake.OpListNotes {
				q, _ := url.ParseQuery(r.RawQuery)
				assert.Equal(t, "100", q.Get("per_page"))
				assert.Equal(t, "asc", q.Get("sort"))
			}
			if r.Op != gitlabfake.OpGetUser && r.Op != "" {
				assert.Regexp(t, `^/api/v4/projects/acme%2F[a-z]+(%2Fapp)?/`, r.Path, "the project path is one encoded segment")
			}
		}
	})
	return srv
}

func newSink(srv *gitlabfake.Server, edit ...func(*gitlab.Config)) *gitlab.Sink {
	cfg := gitlab.Config{
		Token:   gitlabfake.Token,
		URL:     srv.URL,
		Version: "test",
		Tuning:  sinks.Tuning{InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond},
	}
	for _, e := range edit {
		e(&cfg)
	}
	return gitlab.New(cfg)
}
