package linear

import "github.com/ccc-checkpoint/ccc/sinks"

// Spec registers the Linear sink: chosen by default, and on its own when
// its credentials are set. Its target is each delivery's issue.
func Spec() sinks.Factory {
	return sinks.Factory{
		Name: "linear",
		New: func(env sinks.Env) sinks.Sink {
			cfg := ConfigFromEnv(env.Getenv)
			cfg.StoredToken = StoredTokenFromEnv(env.Getenv)
			if env.HTTPClient != nil {
				cfg.HTTPClient = env.HTTPClient
			}
			cfg.MaxBody = env.MaxBody
			return New(cfg)
		},
		Auto: func(env sinks.ResolveEnv) bool {
			return env.Env.Getenv("LINEAR_API_KEY") != "" || env.Env.Getenv("LINEAR_OAUTH_TOKEN") != ""
		},
		// Nothing chosen anywhere: Linear is the default tracker, and its
		// skip says what is missing (LINEAR_API_KEY not set).
		Default: true,
	}
}
