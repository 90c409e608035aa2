package gitlab

import (
	"fmt"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// Spec registers the GitLab sink: chosen inside GitLab CI (where, without
// GITLAB_TOKEN, its skip says which token to add) or when --gitlab names
// its target.
func Spec() sinks.Factory {
	return sinks.Factory{
		Name: "gitlab",
		New: func(env sinks.Env) sinks.Sink {
			cfg := ConfigFromEnv(env.Settings.Env.GitLab)
			if env.HTTPClient != nil {
				cfg.HTTPClient = env.HTTPClient
			}
			cfg.Version = env.Version
			if env.MaxBody > 0 {
				cfg.MaxBody = min(env.MaxBody, DefaultMaxBody)
			}
			return New(cfg)
		},
		Target: func(env sinks.ResolveEnv) (target, skip string) {
			return ResolveTarget(env.Flag, env.Prefs, env.Env.Settings.Env.GitLab)
		},
		Auto: func(env sinks.ResolveEnv) bool {
			return env.Flag != "" || env.Env.Settings.Env.GitLab.CI
		},
		CheckFlag: func(flag string) error {
			_, err := ParseTarget(flag)
			return err
		},
		FlagTarget: "a merge request or issue",
	}
}

// ResolveTarget finds the issue or merge request to write on: flag
// (--gitlab), else the merge request of a GitLab CI merge request
// pipeline, else the preferences' repo and issue (sinks.gitlab: {repo:
// group/project, issue: 12}).
func ResolveTarget(flag string, p config.SinkPrefs, env config.GitLabEnv) (target, skip string) {
	if flag != "" {
		t, err := ParseTarget(flag)
		if err != nil {
			return "", fmt.Sprintf("--gitlab %q: %v", flag, err)
		}
		return t.String(), ""
	}
	if env.CI && env.Project != "" && env.MRIID != "" {
		t, err := ParseTarget(env.Project + "!" + env.MRIID)
		if err == nil {
			return t.String(), ""
		}
	}
	if p.Repo != "" && p.Issue > 0 {
		t, err := ParseTarget(fmt.Sprintf("%s#%d", p.Repo, p.Issue))
		if err != nil {
			return "", fmt.Sprintf("%s sinks.gitlab: %v", config.PrefsFile, err)
		}
		return t.String(), ""
	}
	skip = "no GitLab issue or merge request (pass --gitlab group/project#N or group/project!N)"
	if env.CI {
		skip += ": not a merge request pipeline"
	}
	return "", skip
}
