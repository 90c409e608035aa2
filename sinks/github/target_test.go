package github_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/sinks/github"
)

func TestParseTarget(t *testing.T) {
	octo := func(n int) github.Target { return github.Target{Owner: "octo", Repo: "app", Number: n} }
	tests := []struct {
		in   string
		want github.Target
		err  string
	}{
		{in: "octo/app#123", want: octo(123)},
		{in: "  octo/app#1\n", want: octo(1)},
		{in: "my-org/my.repo_2#9", want: github.Target{Owner: "my-org", Repo: "my.repo_2", Number: 9}},
		{in: "https://github.com/octo/app/pull/123", want: octo(123)},
		{in: "https://github.com/octo/app/issues/123", want: octo(123)},
		{in: "https://github.com/octo/app/pull/123/files#diff-1", want: octo(123)},
		{in: "https://github.com/octo/app/issues/5#issuecomment-1900000001", want: octo(5)},
		{in: "https://ghe.example.com/octo/app/pull/4", want: octo(4)},
		{in: "octo/app", err: "want owner/repo#123"},
		{in: "octo/app#", err: "want owner/repo#123"},
		{in: "octo/app#0", err: "positive integer"},
		{in: "octo/app#-1", err: "want owner/repo#123"},
		{in: "octo/app#12a", err: "want owner/repo#123"},
		{in: "octo/app#99999999999999999999", err: "positive integer"},
		{in: "-octo/app#1", err: "owner is not"},
		{in: "octo/..#1", err: "repo is not"},
		{in: "octo/a b#1", err: "want owner/repo#123"},
		{in: "https://github.com/octo/app/commit/abc", err: "want https://"},
		{in: "https://github.com/octo/app", err: "want https://"},
		{in: "ftp://github.com/octo/app/pull/1", err: "not an http(s) address"},
		{in: "", err: "want owner/repo#123"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := github.ParseTarget(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Contains(t, err.Error(), "github: invalid target")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := github.ParseTarget(got.String())
			require.NoError(t, err)
			assert.Equal(t, got, again, "String reads back")
		})
	}
	assert.Equal(t, "octo/app#123", octo(123).String())
}

func TestTargetFromActions(t *testing.T) {
	event := func(name string) string { return filepath.Join("testdata", "events", name+".json") }
	actions := func(kv ...string) map[string]string {
		env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "octo/app"}
		for i := 0; i < len(kv); i += 2 {
			env[kv[i]] = kv[i+1]
		}
		return env
	}
	tests := []struct {
		name   string
		env    map[string]string
		want   int
		reason string
	}{
		{"pull_request", actions("GITHUB_EVENT_NAME", "pull_request", "GITHUB_EVENT_PATH", event("pull_request"),
			"GITHUB_REF", "refs/pull/42/merge"), 42, ""},
		{"pull_request_target", actions("GITHUB_EVENT_NAME", "pull_request_target", "GITHUB_EVENT_PATH", event("pull_request_target"),
			"GITHUB_REF", "refs/heads/main"), 43, ""},
		{"issues", actions("GITHUB_EVENT_NAME", "issues", "GITHUB_EVENT_PATH", event("issues"), "GITHUB_REF", "refs/heads/main"), 17, ""},
		{"issue_comment on a pull request", actions("GITHUB_EVENT_NAME", "issue_comment", "GITHUB_EVENT_PATH", event("issue_comment"),
			"GITHUB_REF", "refs/heads/main"), 44, ""},
		{"GITHUB_REF merge fallback", actions("GITHUB_EVENT_NAME", "pull_request", "GITHUB_REF", "refs/pull/77/merge"), 77, ""},
		{"GITHUB_REF head fallback", actions("GITHUB_EVENT_PATH", event("push"), "GITHUB_REF", "refs/pull/78/head"), 78, ""},
		{"push", actions("GITHUB_EVENT_NAME", "push", "GITHUB_EVENT_PATH", event("push"), "GITHUB_REF", "refs/heads/main"), 0,
			"the push event names no issue or pull request"},
		{"unreadable event file", actions("GITHUB_EVENT_NAME", "pull_request", "GITHUB_EVENT_PATH", event("missing")), 0,
			"cannot read GITHUB_EVENT_PATH"},
		{"unreadable event file, ref fallback", actions("GITHUB_EVENT_PATH", event("missing"), "GITHUB_REF", "refs/pull/5/merge"), 5, ""},
		{"not JSON", actions("GITHUB_EVENT_PATH", filepath.Join("testdata", "events", "garbage.txt")), 0, "is not an event payload"},
		{"not in Actions", map[string]string{"GITHUB_REPOSITORY": "octo/app", "GITHUB_REF": "refs/pull/1/merge"}, 0,
			"not running in GitHub Actions"},
		{"no repository", map[string]string{"GITHUB_ACTIONS": "true"}, 0, "GITHUB_REPOSITORY not set"},
		{"bad repository", actions("GITHUB_REPOSITORY", "octo"), 0, `GITHUB_REPOSITORY "octo" is not owner/repo`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason, ok := github.TargetFromActions(config.EnvOf(tt.env).GitHub)
			if tt.want == 0 {
				assert.False(t, ok)
				assert.Contains(t, reason, tt.reason)
				assert.Zero(t, got)
				return
			}
			require.True(t, ok, reason)
			assert.Empty(t, reason)
			assert.Equal(t, github.Target{Owner: "octo", Repo: "app", Number: tt.want}, got)
		})
	}
}
