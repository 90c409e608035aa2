package github_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/fake/githubfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/github"
)

// actionsEnv is a GitHub Actions environment for repository octo/app with
// the event payload testdata/events/<event>.json.
func actionsEnv(eventName, event string, kv ...string) map[string]string {
	env := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "octo/app", "GITHUB_EVENT_NAME": eventName,
		"GITHUB_EVENT_PATH": filepath.Join("testdata", "events", event+".json"),
	}
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return env
}

func TestForkFromActions(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"pull request from a fork", actionsEnv("pull_request", "pull_request_fork"), true},
		{"pull request from a deleted fork", actionsEnv("pull_request", "pull_request_deleted_fork"), true},
		{"review of a fork's pull request", actionsEnv("pull_request_review", "pull_request_fork"), true},
		{"pull request between branches", actionsEnv("pull_request", "pull_request"), false},
		// head.repo.fork is true there: the repository is a fork, the
		// pull request is not from one.
		{"pull request inside a repository that is a fork", actionsEnv("pull_request", "pull_request_in_fork"), false},
		// The token has the base repository's permissions.
		{"pull_request_target from a fork", actionsEnv("pull_request_target", "pull_request_target"), false},
		{"issue_comment on a pull request", actionsEnv("issue_comment", "issue_comment"), false},
		{"push", actionsEnv("push", "push"), false},
		{"unreadable event", actionsEnv("pull_request", "missing"), false},
		{"not an event", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_PATH": filepath.Join("testdata", "events", "garbage.txt")}, false},
		{"outside Actions", map[string]string{"GITHUB_EVENT_PATH": filepath.Join("testdata", "events", "pull_request_fork.json")}, false},
		{"no event", map[string]string{"GITHUB_ACTIONS": "true"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, github.ForkFromActions(config.EnvOf(tt.env).GitHub))
		})
	}
}

// Payloads that name less: without base.repo the head is compared with
// GITHUB_REPOSITORY; without any name, head.repo.fork decides; without
// head.repo at all nothing says fork.
func TestForkFromSparseEvents(t *testing.T) {
	tests := []struct {
		name, payload string
		want          bool
	}{
		{"head differs from GITHUB_REPOSITORY", `{"pull_request": {"number": 1, "head": {"repo": {"full_name": "someone/app"}}}}`, true},
		{"head is GITHUB_REPOSITORY", `{"pull_request": {"number": 1, "head": {"repo": {"full_name": "Octo/App"}}}}`, false},
		{"only the fork flag", `{"pull_request": {"number": 1, "head": {"repo": {"fork": true}}}}`, true},
		{"no head repo", `{"pull_request": {"number": 1, "head": {"ref": "feature"}}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "event.json")
			require.NoError(t, writeFile(path, tt.payload))
			env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "octo/app", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": path}
			assert.Equal(t, tt.want, github.ForkFromActions(config.EnvOf(env).GitHub))
		})
	}
}

// The refusal GitHub sends a fork's read-only token is also what a
// same-repository workflow gets when it did not grant issues or
// pull-requests write: only the fork is a skip; the rest is a failure that
// says what to grant. The sink learns which from the event, through
// ConfigFromEnv.
func TestReadOnlyRefusalOutsideAForkFails(t *testing.T) {
	const hint = "token may not write (add permissions: issues: write, pull-requests: write)"
	tests := []struct {
		name string
		env  map[string]string
		skip string
	}{
		{"fork pull request", actionsEnv("pull_request", "pull_request_fork"), "read-only token (fork pull request): Resource not accessible by integration"},
		{"same-repository pull request", actionsEnv("pull_request", "pull_request"), ""},
		{"pull_request_target from a fork", actionsEnv("pull_request_target", "pull_request_target"), ""},
		{"issue_comment", actionsEnv("issue_comment", "issue_comment"), ""},
		{"outside Actions", map[string]string{}, ""},
	}
	for _, tt := range tests {
		for _, prior := range []bool{false, true} {
			name := tt.name + "/create"
			if prior {
				name = tt.name + "/update"
			}
			t.Run(name, func(t *testing.T) {
				srv := newFake(t)
				env := map[string]string{"GITHUB_TOKEN": githubfake.ReadOnlyToken, "GITHUB_API_URL": srv.URL}
				for k, v := range tt.env {
					env[k] = v
				}
				cfg := github.ConfigFromEnv(config.EnvOf(env).GitHub)
				s := newSink(srv, func(c *github.Config) { c.Token, c.ForkPR = cfg.Token, cfg.ForkPR })
				var prev sinks.Ref
				if prior {
					c := srv.AddComment(pull, githubfake.BotLogin, "old\n\n"+github.Marker("main"))
					prev = sinks.Ref{ID: strconv.FormatInt(c.ID, 10), URL: c.HTMLURL}
				}
				res, err := sinks.Deliver(context.Background(), s, delivery(pull, "main", "x", prev))
				if prior {
					assert.Equal(t, prev, res.Ref, "the stored ref is kept")
				}
				if tt.skip != "" {
					assert.Equal(t, tt.skip, skipOf(t, err).Reason)
					assert.Equal(t, sinks.Skipped, res.Action)
					return
				}
				serr := causeOf(t, err)
				assert.Equal(t, hint, serr.Cause)
				assert.True(t, serr.Permanent, "not retried")
				assert.ErrorContains(t, err, "Resource not accessible by integration", "GitHub's own words stay in the error")
				assert.Equal(t, sinks.Failed, res.Action)
				last := srv.Requests()[len(srv.Requests())-1]
				assert.Contains(t, []string{create, patch}, last.Op)
				assert.Equal(t, 1, countOps(srv.Requests(), last.Op), "the refused write is sent once")
			})
		}
	}
}

func countOps(reqs []githubfake.Request, op string) int {
	n := 0
	for _, r := range reqs {
		if r.Op == op {
			n++
		}
	}
	return n
}

func writeFile(path, data string) error { return os.WriteFile(path, []byte(data), 0o600) }
