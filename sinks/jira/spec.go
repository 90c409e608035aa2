package jira

import (
	"github.com/ccc-checkpoint/ccc/sinks"
)

// Spec registers the Jira sink: chosen on its own when its site and
// credentials are set. Its target is --jira KEY-123, else each delivery's
// issue key (--issue, the state, the progress file, the branch name).
func Spec() sinks.Factory {
	return sinks.Factory{
		Name: "jira",
		New: func(env sinks.Env) sinks.Sink {
			cfg := ConfigFromEnv(env.Settings.Env.Jira)
			if env.HTTPClient != nil {
				cfg.HTTPClient = env.HTTPClient
			}
			cfg.Version = env.Version
			cfg.Project = env.Prefs.Project
			if env.MaxBody > 0 {
				cfg.MaxBody = min(env.MaxBody, DefaultMaxBody)
			}
			return New(cfg)
		},
		Target: func(env sinks.ResolveEnv) (target, skip string) {
			if env.Flag == "" {
				return "", ""
			}
			k, err := ParseKey(env.Flag)
			if err != nil {
				return "", "--jira: " + err.Error()
			}
			return k, ""
		},
		Auto: func(env sinks.ResolveEnv) bool {
			c := ConfigFromEnv(env.Env.Settings.Env.Jira)
			return env.Flag != "" || (c.BaseURL != "" && c.credentials())
		},
		CheckFlag: func(flag string) error {
			_, err := ParseKey(flag)
			return err
		},
		FlagTarget: "an issue",
	}
}
