package github_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/fake/githubfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/github"
)

// A GitHub App's installation token (not Actions' own GITHUB_TOKEN) writes
// as "<slug>[bot]" and may not ask GET /user who it is. Each CI run is a
// fresh process with no stored ref; three runs must still leave one
// comment.
func TestBotLoginOfAnotherApp(t *testing.T) {
	marker := "\n\n" + github.Marker("main")
	tests := []struct {
		name string
		env  map[string]string
		// before runs on the fake before the first post.
		before func(*githubfake.Server)
	}{
		// Another app's marked comment makes the comments ambiguous, so
		// only the setting can say which bot is ours.
		{"CCC_GITHUB_BOT_LOGIN", map[string]string{"CCC_GITHUB_BOT_LOGIN": githubfake.AppLogin},
			func(srv *githubfake.Server) { srv.AddComment(pull, "other-app[bot]", "another app's"+marker) }},
		{"learnt from the comments", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			if tt.before != nil {
				tt.before(srv)
			}
			others := len(srv.Comments(pull))
			env := map[string]string{"GITHUB_TOKEN": githubfake.AppToken, "GITHUB_API_URL": srv.URL}
			for k, v := range tt.env {
				env[k] = v
			}
			var ids []string
			for run, next := range []string{"first", "second", "third"} {
				cfg := github.ConfigFromEnv(config.EnvOf(env).GitHub)
				s := newSink(srv, func(c *github.Config) { c.Token, c.BotLogin = cfg.Token, cfg.BotLogin })
				before := srv.RequestCount()
				res, err := upsert(t, s, delivery(pull, "main", next, sinks.Ref{}))
				require.NoError(t, err, "run %d", run)
				ids = append(ids, res.Ref.ID)
				if run > 0 {
					assert.Equal(t, sinks.Updated, res.Action, "run %d", run)
					assert.Equal(t, []string{list, user, patch}, ops(srv.Requests()[before:]), "run %d", run)
				}
			}
			assert.Equal(t, []string{ids[0], ids[0], ids[0]}, ids, "one comment, updated")
			cs := srv.Comments(pull)
			require.Len(t, cs, others+1)
			own := cs[len(cs)-1]
			assert.Equal(t, githubfake.AppLogin, own.Login)
			assert.Contains(t, own.Body, "**Next:** third\n")
			for _, c := range cs[:others] {
				assert.Equal(t, "another app's"+marker, c.Body, "another app's comment is never touched")
			}
		})
	}
}

// Without CCC_GITHUB_BOT_LOGIN an installation token's author is learnt
// only from a GitHub App's bot (user.type "Bot", performed_via_github_app
// naming the app the login is of): no person can write such a comment.
// Anything less is not adopted, and two bots leave the default,
// github-actions[bot].
func TestBotLearntOnlyFromAnAppsBot(t *testing.T) {
	marker := "\n\n" + github.Marker("main")
	tests := []struct {
		name  string
		token string
		add   func(*githubfake.Server) githubfake.Comment
		// adopted: the added comment is updated; else a new one is made.
		adopted bool
	}{
		{"the app's bot", githubfake.AppToken, func(srv *githubfake.Server) githubfake.Comment {
			return srv.AddComment(pull, githubfake.AppLogin, "ours"+marker)
		}, true},
		{"a person acting through an app", githubfake.AppToken, func(srv *githubfake.Server) githubfake.Comment {
			return srv.AddCommentVia(pull, githubfake.OtherLogin, "my-app", "a person's"+marker)
		}, false},
		{"a bot that is no app", githubfake.AppToken, func(srv *githubfake.Server) githubfake.Comment {
			return srv.AddCommentVia(pull, githubfake.AppLogin, "", "no app"+marker)
		}, false},
		{"a bot named for another app", githubfake.AppToken, func(srv *githubfake.Server) githubfake.Comment {
			return srv.AddCommentVia(pull, githubfake.AppLogin, "other-app", "mismatch"+marker)
		}, false},
		{"two apps: the default holds", githubfake.InstallationToken, func(srv *githubfake.Server) githubfake.Comment {
			srv.AddComment(pull, githubfake.AppLogin, "another app's"+marker)
			return srv.AddComment(pull, githubfake.BotLogin, "ours"+marker)
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t)
			c := tt.add(srv)
			n := len(srv.Comments(pull))
			res, err := upsert(t, newSink(srv, func(cfg *github.Config) { cfg.Token = tt.token }), delivery(pull, "main", "x", sinks.Ref{}))
			require.NoError(t, err)
			got, _ := srv.Comment(c.ID)
			if tt.adopted {
				assert.Equal(t, sinks.Updated, res.Action)
				assert.Equal(t, c.ID, commentID(t, res.Ref))
				assert.Contains(t, got.Body, "**Next:** x\n")
				assert.Len(t, srv.Comments(pull), n)
				return
			}
			assert.Equal(t, sinks.Created, res.Action)
			assert.NotEqual(t, c.ID, commentID(t, res.Ref))
			assert.Equal(t, c.Body, got.Body, "never touched")
			assert.Len(t, srv.Comments(pull), n+1)
		})
	}
}
