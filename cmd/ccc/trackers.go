package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/all"
	"github.com/ccc-checkpoint/ccc/sinks/file"
	"github.com/ccc-checkpoint/ccc/sinks/github"
)

// minMaxBody is the smallest body limit a user may set: room for the
// status's header, task, blockers and next action after truncation.
const minMaxBody = 1000

// TrackerFlags are the flags that choose sinks and their targets.
type TrackerFlags struct {
	// Sinks lists the sinks to use (--sinks), overriding the environment
	// (CCC_SINKS) and the preferences' sinks: section.
	Sinks []string
	// GitHub is --github owner/repo#N.
	GitHub string
}

// validateTargets checks the flags that name where a status goes: --issue
// (a KEY-123 in any case, made upper-case in place: cia-12 is CIA-12) and
// the tracker flags.
func validateTargets(issue *string, t TrackerFlags) error {
	if *issue != "" {
		k, ok := progress.NormalIssue(*issue)
		if !ok {
			return &usageError{fmt.Errorf("--issue %q is not an issue key like CIA-123", *issue)}
		}
		*issue = k
	}
	return t.validate()
}

// validate refuses what cannot be meant: an unknown sink, a --github that
// is no owner/repo#N, --github with a --sinks list that leaves GitHub out.
func (t TrackerFlags) validate() error {
	known := all.Registry().Names()
	for _, name := range t.Sinks {
		if !slices.Contains(known, name) {
			return &usageError{fmt.Errorf("--sinks: unknown sink %q (known: %s)", name, strings.Join(known, ", "))}
		}
	}
	if t.GitHub == "" {
		return nil
	}
	if _, err := github.ParseTarget(t.GitHub); err != nil {
		return &usageError{fmt.Errorf("--github %q: %w", t.GitHub, err)}
	}
	if len(t.Sinks) > 0 && !slices.Contains(t.Sinks, "github") {
		return &usageError{fmt.Errorf("--github names a pull request or issue, but --sinks %s leaves GitHub out", strings.Join(t.Sinks, ","))}
	}
	return nil
}

// trackers decides which sinks run and where each writes. Precedence:
// --sinks, CCC_SINKS, the preferences' sinks: section; without any, Linear
// when its credentials are set and GitHub inside GitHub Actions or with
// --github. Problems that concern one sink become that sink's skip; what
// the user should fix comes back as warnings.
func (f *Factory) trackers(root string, prefs config.Prefs, fl TrackerFlags) ([]checkpoint.Tracker, []string) {
	reg := all.Registry()
	var warnings []string
	names := fl.Sinks
	if len(names) == 0 {
		names = splitList(f.Getenv("CCC_SINKS"))
	}
	if len(names) == 0 && prefs.Sinks != nil {
		for _, name := range reg.Names() {
			if p, ok := prefs.Sinks[name]; ok && p.On() {
				names = append(names, name)
			}
		}
		// A flag overrides the preferences: --github turns GitHub on.
		if fl.GitHub != "" && !slices.Contains(names, "github") {
			names = append(names, "github")
		}
		if _, listed := prefs.Sinks["github"]; !listed && fl.GitHub == "" && f.Getenv("GITHUB_ACTIONS") == "true" {
			warnings = append(warnings, fmt.Sprintf("%s lists sinks without github: not commenting on the pull request (add github: {} to its sinks:, or pass --github)", config.PrefsFile))
		}
		for name := range prefs.Sinks {
			if !slices.Contains(reg.Names(), name) {
				warnings = append(warnings, fmt.Sprintf("%s: unknown sink %q ignored (known: %s)", config.PrefsFile, name, strings.Join(reg.Names(), ", ")))
			}
		}
	}
	if len(names) == 0 && prefs.Sinks == nil {
		if f.Getenv("LINEAR_API_KEY") != "" || f.Getenv("LINEAR_OAUTH_TOKEN") != "" {
			names = append(names, "linear")
		}
		if f.Getenv("GITHUB_ACTIONS") == "true" || fl.GitHub != "" {
			names = append(names, "github")
		}
		if len(names) == 0 {
			// Nothing chosen anywhere: Linear is the default tracker, and
			// its skip says what is missing (LINEAR_API_KEY not set).
			names = append(names, "linear")
		}
	}

	var out []checkpoint.Tracker
	for _, name := range dedupe(names) {
		env, warning := f.sinkEnv(root, prefs, name)
		if warning != "" {
			warnings = append(warnings, warning)
		}
		s, err := reg.New(name, env)
		if err != nil {
			warnings = append(warnings, err.Error()+"; ignored")
			continue
		}
		tr := checkpoint.Tracker{Sink: s}
		switch name {
		case "github":
			tr.Target, tr.Skip = githubTarget(fl.GitHub, prefs.Sinks["github"], f.Getenv)
		case file.Name:
			tr.Target = cmp.Or(strings.TrimSpace(prefs.Sinks[file.Name].Path), file.DefaultPath)
			if err := file.CheckTarget(root, tr.Target); err != nil {
				tr.Skip = err.Error()
			}
		}
		out = append(out, tr)
	}
	return out, warnings
}

// sinkEnv is what the sink name is built with: the environment (with the
// preferences' bot_login under it), the project root and the preferences'
// body limit (one below minMaxBody is ignored, with a warning).
func (f *Factory) sinkEnv(root string, prefs config.Prefs, name string) (sinks.Env, string) {
	p := prefs.Sinks[name]
	env := sinks.Env{Getenv: f.Getenv, HTTPClient: f.HTTPClient, Version: version, Root: root, MaxBody: p.MaxBody}
	if p.BotLogin != "" {
		// The environment overrides the preference.
		env.Getenv = func(k string) string {
			if v := f.Getenv(k); v != "" || k != "CCC_GITHUB_BOT_LOGIN" {
				return v
			}
			return p.BotLogin
		}
	}
	if env.MaxBody != 0 && env.MaxBody < minMaxBody {
		w := fmt.Sprintf("%s: sinks.%s.max_body %d is below %d; using the sink's default", config.PrefsFile, name, env.MaxBody, minMaxBody)
		env.MaxBody = 0
		return env, w
	}
	return env, ""
}

// githubTarget finds the issue or pull request to comment on: --github,
// else the GitHub Actions event, else the preferences' repo and issue.
func githubTarget(flag string, p config.SinkPrefs, getenv func(string) string) (target, skip string) {
	if flag != "" {
		t, err := github.ParseTarget(flag)
		if err != nil {
			return "", fmt.Sprintf("--github %q: %v", flag, err)
		}
		return t.String(), ""
	}
	t, reason, ok := github.TargetFromActions(getenv)
	if ok {
		return t.String(), ""
	}
	if p.Repo != "" && p.Issue > 0 {
		t, err := github.ParseTarget(fmt.Sprintf("%s#%d", p.Repo, p.Issue))
		if err != nil {
			return "", fmt.Sprintf("%s sinks.github: %v", config.PrefsFile, err)
		}
		return t.String(), ""
	}
	skip = "no GitHub issue or pull request (pass --github owner/repo#N)"
	if getenv("GITHUB_ACTIONS") == "true" && reason != "" {
		skip += ": " + reason
	}
	return "", skip
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		out = append(out, strings.ToLower(f))
	}
	return out
}

func dedupe(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
