package linearagent

import (
	"context"
	"strings"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
	"github.com/ccc-checkpoint/ccc/sinks/linear/oauth"
)

// appToken is the Linear app actor's OAuth token, and whether there is
// one: LINEAR_OAUTH_TOKEN, else the app sign-in of `ccc linear login`
// (token "": the sink reads and refreshes it when it sends).
// viewer is who the stored sign-in acts as, as Linear said at login (nil:
// LINEAR_OAUTH_TOKEN, or a store older than it).
func appToken(s config.Settings) (token string, app bool, viewer *Viewer) {
	if token = strings.TrimSpace(s.Env.Linear.OAuthToken); token != "" {
		return token, true, nil
	}
	o, err := oauth.OptionsFrom(s)
	if err != nil {
		return "", false, nil
	}
	t, err := oauth.Load(o.Dir)
	if err != nil || t.Actor != "app" {
		return "", false, nil
	}
	if t.ViewerID != "" && t.SupportsAgentSessions != nil {
		viewer = &Viewer{ID: t.ViewerID, App: true, SupportsAgentSessions: *t.SupportsAgentSessions}
	}
	return "", true, viewer
}

// Available says whether an app token is at hand: the linear-agent sink
// is then chosen instead of the linear one when nothing lists the sinks.
func Available(env sinks.Env) bool {
	_, app, _ := appToken(env.Settings)
	return app
}

// FromEnv builds the sink from a sink environment.
func FromEnv(env sinks.Env) *Sink {
	cfg := linear.ConfigFromEnv(env.Settings.Env.Linear)
	// The app's token; without one a personal key is tried, which Linear
	// refuses agent sessions to: the delivery then falls back to the
	// status comment.
	token, app, viewer := appToken(env.Settings)
	if app {
		cfg.APIKey, cfg.OAuthToken = "", token
		if token == "" {
			cfg.StoredToken = linear.StoredTokenFromEnv(env.Settings)
		}
	}
	if env.HTTPClient != nil {
		cfg.HTTPClient = env.HTTPClient
	}
	cfg.MaxBody = env.MaxBody
	r, err := redact.New(env.Settings.Env.Secrets(), nil)
	if err != nil {
		r = nil // redact.Default
	}
	key, err := config.UserKey(env.Settings.Env)
	if err != nil {
		key = nil // no memo is trusted: each delivery says everything again
	}
	return New(Config{Linear: cfg, Root: env.Root, StartIssue: env.Prefs.Starts(), Delegate: env.Prefs.Delegates(), Redactor: r, Viewer: viewer, Key: key,
		RepliesFrom: repliesFrom(env)})
}

// repliesFrom is whose replies reach the agent: the user's own preference,
// narrowed by the repository's. A user file ccc cannot read counts as the
// defaults, as everywhere.
func repliesFrom(env sinks.Env) []string {
	user, _ := env.Settings.UserPrefs()
	var repo []string
	if env.Root != "" {
		repo = env.Settings.Project(env.Root).Prefs.Sinks[Name].RepliesFrom
	}
	return RepliesFrom(user.Sinks[Name].RepliesFrom, repo)
}

// Spec registers the linear-agent sink: on its own when an app token is
// available. Its target is each delivery's issue, as for the linear sink.
func Spec() sinks.Factory {
	return sinks.Factory{
		Name: Name,
		New:  func(env sinks.Env) sinks.Sink { return FromEnv(env) },
		Auto: func(env sinks.ResolveEnv) bool { return Available(env.Env) },
	}
}

// Health implements sinks.HealthChecker: the token's account and the
// issue, as the linear sink checks them.
func (s *Sink) Health(ctx context.Context, target string) (sinks.Health, error) {
	return s.gql.Health(ctx, target)
}
