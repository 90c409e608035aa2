package linear

import "github.com/ccc-checkpoint/ccc/sinks"

// Spec registers the Linear sink: chosen by default, and on its own when
// its credentials are set. Its target is each delivery's issue.
func Spec() sinks.Factory {
	return sinks.Factory{
		Name: "linear",
		New: func(env sinks.Env) sinks.Sink {
			cfg := ConfigFromEnv(env.Settings.Env.Linear)
			cfg.StoredToken = StoredTokenFromEnv(env.Settings)
			if env.HTTPClient != nil {
				cfg.HTTPClient = env.HTTPClient
			}
			cfg.MaxBody = env.MaxBody
			return New(cfg)
		},
		Auto: func(env sinks.ResolveEnv) bool {
			lin := env.Env.Settings.Env.Linear
			return lin.APIKey != "" || lin.OAuthToken != ""
		},
		// Nothing chosen anywhere: Linear is the default tracker, and its
		// skip says what is missing (LINEAR_API_KEY not set).
		Default: true,
	}
}
