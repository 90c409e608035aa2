package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/all"
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
	// Jira is --jira PROJ-123.
	Jira string
	// GitLab is --gitlab group/project#N or group/project!N.
	GitLab string
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
// is no owner/repo#N, a --jira that is no issue key or a --gitlab that is no
// group/project#N or !N, a target flag with a
// --sinks list that leaves its sink out.
func (t TrackerFlags) validate() error {
	if err := all.Registry().CheckListed(t.Sinks, t.targets()); err != nil {
		return &usageError{err}
	}
	return nil
}

// trackers decides which sinks run and where each writes (sinks.Registry:
// each sink chooses itself and resolves its own target). Precedence:
// --sinks, CCC_SINKS, the preferences' sinks: section; without any, Linear
// when its credentials are set and GitHub inside GitHub Actions or with
// --github. Problems that concern one sink become that sink's skip; what
// the user should fix comes back as warnings.
func (f *Factory) trackers(root string, prefs config.Prefs, fl TrackerFlags) ([]checkpoint.Tracker, []string) {
	reg := all.Registry()
	listed := fl.Sinks
	if len(listed) == 0 {
		listed = splitList(f.env().Sinks)
	}
	flags := fl.targets()
	names, warnings := reg.Choose(sinks.Choice{Listed: listed, Prefs: prefs.Sinks, Flags: flags,
		Env: sinks.ResolveEnv{Env: sinks.Env{Settings: f.settings(), Root: root}}})

	var out []checkpoint.Tracker
	for _, name := range dedupe(names) {
		env, warning := f.sinkEnv(root, prefs, name)
		if warning != "" {
			warnings = append(warnings, warning)
		}
		s, target, skip, err := reg.Resolve(name, sinks.ResolveEnv{Env: env, Prefs: prefs.Sinks[name], Flag: flags[name]})
		if err != nil {
			warnings = append(warnings, err.Error()+"; ignored")
			continue
		}
		out = append(out, checkpoint.Tracker{Sink: s, Target: target, Skip: skip})
	}
	return out, warnings
}

// targets are the sinks' targets the command line names.
func (t TrackerFlags) targets() map[string]string {
	return map[string]string{"github": t.GitHub, "jira": t.Jira, "gitlab": t.GitLab}
}

// sinkEnv is what the sink name is built with: the environment (with the
// preferences' bot_login under it), the project root and the preferences'
// body limit (one below minMaxBody is ignored, with a warning).
func (f *Factory) sinkEnv(root string, prefs config.Prefs, name string) (sinks.Env, string) {
	p := prefs.Sinks[name]
	env := sinks.Env{Settings: f.settings(), HTTPClient: f.HTTPClient, Version: version, Root: root, MaxBody: p.MaxBody, Prefs: p}
	if p.BotLogin != "" && env.Settings.Env.GitHub.BotLogin == "" {
		// The environment overrides the preference.
		env.Settings.Env.GitHub.BotLogin = p.BotLogin
	}
	if env.MaxBody != 0 && env.MaxBody < minMaxBody {
		w := fmt.Sprintf("%s: sinks.%s.max_body %d is below %d; using the sink's default", config.PrefsFile, name, env.MaxBody, minMaxBody)
		env.MaxBody = 0
		return env, w
	}
	return env, ""
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
