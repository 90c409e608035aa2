package github

import (
	"fmt"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// Spec registers the GitHub sink: chosen inside GitHub Actions or when
// --github names its target.
func Spec() sinks.Factory {
	return sinks.Factory{
		Name: "github",
		New: func(env sinks.Env) sinks.Sink {
			cfg := ConfigFromEnv(env.Settings.Env.GitHub)
			if env.HTTPClient != nil {
				cfg.HTTPClient = env.HTTPClient
			}
			cfg.Version = env.Version
			if env.MaxBody > 0 {
				// GitHub refuses longer bodies.
				cfg.MaxBody = min(env.MaxBody, DefaultMaxBody)
			}
			return New(cfg)
		},
		Target: func(env sinks.ResolveEnv) (target, skip string) {
			return ResolveTarget(env.Flag, env.Prefs, env.Env.Settings.Env.GitHub)
		},
		Auto: func(env sinks.ResolveEnv) bool {
			return env.Env.Settings.Env.GitHub.Actions || env.Flag != ""
		},
		CheckFlag: func(flag string) error {
			_, err := ParseTarget(flag)
			return err
		},
		FlagTarget: "a pull request or issue",
		Unlisted: func(env sinks.ResolveEnv) string {
			if !env.Env.Settings.Env.GitHub.Actions {
				return ""
			}
			return fmt.Sprintf("%s lists sinks without github: not commenting on the pull request (add github: {} to its sinks:, or pass --github)", config.PrefsFile)
		},
	}
}

// ResolveTarget finds the issue or pull request to comment on: flag
// (--github), else the GitHub Actions event, else the preferences' repo
// and issue.
func ResolveTarget(flag string, p config.SinkPrefs, env config.GitHubEnv) (target, skip string) {
	if flag != "" {
		t, err := ParseTarget(flag)
		if err != nil {
			return "", fmt.Sprintf("--github %q: %v", flag, err)
		}
		return t.String(), ""
	}
	t, reason, ok := TargetFromActions(env)
	if ok {
		return t.String(), ""
	}
	if p.Repo != "" && p.Issue > 0 {
		t, err := ParseTarget(fmt.Sprintf("%s#%d", p.Repo, p.Issue))
		if err != nil {
			return "", fmt.Sprintf("%s sinks.github: %v", config.PrefsFile, err)
		}
		return t.String(), ""
	}
	skip = "no GitHub issue or pull request (pass --github owner/repo#N)"
	if env.Actions && reason != "" {
		skip += ": " + reason
	}
	return "", skip
}
