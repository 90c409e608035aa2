package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/testutil"
	"github.com/ccc-checkpoint/ccc/sinks"
)

func TestTrackerSelection(t *testing.T) {
	t.Parallel()
	on, off := true, false
	event := filepath.Join(t.TempDir(), "event.json")
	require.NoError(t, os.WriteFile(event, []byte(`{"pull_request": {"number": 9}}`), 0o644))
	actions := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "acme/app", "GITHUB_EVENT_PATH": event}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name     string
		env      map[string]string
		sinks    map[string]config.SinkPrefs
		flags    TrackerFlags
		want     []string // name=target or name!skip
		warnings int
	}{
		{"nothing configured: Linear, to say its key is missing", nil, nil, TrackerFlags{}, []string{"linear="}, 0},
		{"linear key", map[string]string{"LINEAR_API_KEY": "k"}, nil, TrackerFlags{}, []string{"linear="}, 0},
		{"inside actions", actions, nil, TrackerFlags{}, []string{"github=acme/app#9"}, 0},
		{"--github outside actions", nil, nil, TrackerFlags{GitHub: "acme/app#3"}, []string{"github=acme/app#3"}, 0},
		{"bad --github", nil, nil, TrackerFlags{GitHub: "acme"}, []string{"github!--github \"acme\""}, 0},
		{"preferences list", nil, map[string]config.SinkPrefs{"linear": {}, "github": {Repo: "acme/app", Issue: 4}}, TrackerFlags{},
			[]string{"linear=", "github=acme/app#4"}, 0},
		{"preferences disable", map[string]string{"LINEAR_API_KEY": "k"}, map[string]config.SinkPrefs{"linear": {Enabled: &off}, "github": {Enabled: &on}}, TrackerFlags{},
			[]string{"github!no GitHub issue or pull request (pass --github owner/repo#N)"}, 0},
		{"empty sinks section means none", map[string]string{"LINEAR_API_KEY": "k"}, map[string]config.SinkPrefs{}, TrackerFlags{}, nil, 0},
		{"unknown sink warned", nil, map[string]config.SinkPrefs{"trello": {}}, TrackerFlags{}, nil, 1},
		{"environment over preferences", map[string]string{"CCC_SINKS": "github"}, map[string]config.SinkPrefs{"linear": {}}, TrackerFlags{GitHub: "a/b#1"},
			[]string{"github=a/b#1"}, 0},
		{"flag over environment", with(actions, "CCC_SINKS", "github"), nil, TrackerFlags{Sinks: []string{"linear", "github", "linear"}},
			[]string{"linear=", "github=acme/app#9"}, 0},
		{"unknown flag sink warned", nil, nil, TrackerFlags{Sinks: []string{"trello"}}, nil, 1},
		{"file sink listed", nil, map[string]config.SinkPrefs{"file": {}}, TrackerFlags{}, []string{"file=STATUS.md"}, 0},
		{"file sink path", nil, map[string]config.SinkPrefs{"file": {Path: "docs/STATUS.md"}, "linear": {Enabled: &off}}, TrackerFlags{},
			[]string{"file=docs/STATUS.md"}, 0},
		{"file sink from the environment", map[string]string{"CCC_SINKS": "file,linear"}, nil, TrackerFlags{}, []string{"file=STATUS.md", "linear="}, 0},
		{"--github over a sinks: section without it", nil, map[string]config.SinkPrefs{"linear": {}}, TrackerFlags{GitHub: "a/b#2"},
			[]string{"linear=", "github=a/b#2"}, 0},
		{"actions with a sinks: section without github warns", actions, map[string]config.SinkPrefs{"linear": {}}, TrackerFlags{},
			[]string{"linear="}, 1},
		{"actions with github disabled on purpose", actions, map[string]config.SinkPrefs{"linear": {}, "github": {Enabled: &off}}, TrackerFlags{},
			[]string{"linear="}, 0},
		{"max_body too small", nil, map[string]config.SinkPrefs{"linear": {MaxBody: 10}}, TrackerFlags{}, []string{"linear="}, 1},
		{"file sink is never on by default", map[string]string{"LINEAR_API_KEY": "k"}, nil, TrackerFlags{}, []string{"linear="}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &Factory{Getenv: func(k string) string { return tt.env[k] }}
			prefs := config.Default()
			prefs.Sinks = tt.sinks
			trs, warnings := f.trackers(t.TempDir(), prefs, tt.flags)
			require.Len(t, trs, len(tt.want))
			for i, tr := range trs {
				if tr.Skip != "" {
					// A skip is compared by the beginning of its reason.
					assert.True(t, strings.HasPrefix(tr.Sink.Name()+"!"+tr.Skip, tt.want[i]), "%s!%s", tr.Sink.Name(), tr.Skip)
				} else {
					assert.Equal(t, tt.want[i], tr.Sink.Name()+"="+tr.Target)
				}
			}
			assert.Len(t, warnings, tt.warnings, "%v", warnings)
		})
	}
}

func TestAnnotations(t *testing.T) {
	t.Parallel()
	r := checkpoint.Report{Total: 2, Steps: []checkpoint.Result{
		{Name: "Persist progress", Status: checkpoint.Failed, Message: "disk full: 100%\nreally"},
		{Name: "Tracker update", Status: checkpoint.Failed, Sinks: []checkpoint.SinkResult{
			{Title: "Linear", Action: sinks.Updated},
			{Title: "GitHub", Action: sinks.Skipped, Error: "read-only token, fork"},
			{Title: "Other", Action: sinks.Failed, Error: "HTTP 503"},
		}},
	}}
	var buf bytes.Buffer
	annotate(&buf, r)
	assert.Equal(t, "::error title=ccc%3A Persist progress failed::disk full: 100%25%0Areally\n"+
		"::warning title=ccc%3A GitHub skipped::read-only token, fork\n"+
		"::error title=ccc%3A Other failed::HTTP 503\n", buf.String())
}

func TestStepSummaryAppends(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "summary.md")
	require.NoError(t, os.WriteFile(path, []byte("before\n"), 0o644))
	r := checkpoint.Report{Total: 1, Succeeded: 1, StatusBody: "## Checkpoint Status\n\nbody", Steps: []checkpoint.Result{
		{Name: "Tracker update", Status: checkpoint.OK, Sinks: []checkpoint.SinkResult{
			{Title: "GitHub", Target: "acme/app#9", Action: sinks.Created, URL: "https://github.com/acme/app/pull/9#issuecomment-1"},
			{Title: "File", Target: "STATUS.md", Action: sinks.Updated, URL: "file:///runner/work/app/STATUS.md", Wrote: "updated section in STATUS.md"},
		}},
	}}
	require.NoError(t, appendSummary(path, "ccc post", r))
	require.NoError(t, appendSummary(path, "ccc post", r))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	want := "### ccc post\n\n```\nCheckpoint complete: 1/1 steps succeeded.\n" +
		"  GitHub: created comment on acme/app#9 https://github.com/acme/app/pull/9#issuecomment-1.\n" +
		"  File: updated section in STATUS.md file:///runner/work/app/STATUS.md.\n```\n" +
		"\n- GitHub: [acme/app#9](https://github.com/acme/app/pull/9#issuecomment-1) (created)" +
		"\n- File: STATUS.md (updated)" +
		"\n\n<details><summary>Status body</summary>\n\n## Checkpoint Status\n\nbody\n\n</details>\n\n"
	assert.Equal(t, "before\n"+want+want, string(got), "earlier content kept, each run appended")
}

// A body that ends inside a fence is closed inside its <details>: the
// details end, and the next step's summary is a heading again, not code.
func TestStepSummaryClosesTheBody(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "summary.md")
	r := checkpoint.Report{Total: 1, Succeeded: 1, StatusBody: "## Build\n\n```\nstep 1 ok"}
	require.NoError(t, appendSummary(path, "ccc post", r))
	require.NoError(t, appendSummary(path, "ccc post", r))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	var headings, closings int
	for _, b := range testutil.Blocks(string(got)) {
		switch {
		case b == "Heading: ccc post":
			headings++
		case strings.HasPrefix(b, "HTMLBlock: </details>"):
			closings++
		}
	}
	assert.Equal(t, 2, headings, "%s", got)
	assert.Equal(t, 2, closings, "%s", got)
}

// sinks.<name>.max_body reaches the sink: a long status is cut to it.
func TestMaxBodyPreference(t *testing.T) {
	t.Parallel()
	f := &Factory{Getenv: func(string) string { return "" }}
	prefs := config.Default()
	prefs.Sinks = map[string]config.SinkPrefs{"linear": {MaxBody: 2000}, "github": {Repo: "a/b", Issue: 1, MaxBody: 100000}}
	trs, warnings := f.trackers(t.TempDir(), prefs, TrackerFlags{})
	require.Empty(t, warnings)
	require.Len(t, trs, 2)
	long := "## Checkpoint Status\n\n**Next:** x\n\n**Decisions:** " + strings.Repeat("d", 70000) + "\n"
	type bodier interface {
		Body(status, agent string) string
	}
	lin := trs[0].Sink.(bodier).Body(long, "main")
	assert.Equal(t, 2000, utf8.RuneCountInString(lin), "cut to the preference")
	gh := trs[1].Sink.(bodier).Body(long, "main")
	assert.Equal(t, 65536, utf8.RuneCountInString(gh), "never above GitHub's own limit")
}

func TestTrackerFlagsValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		flags TrackerFlags
		err   string
	}{
		{TrackerFlags{}, ""},
		{TrackerFlags{Sinks: []string{"linear", "file"}, GitHub: ""}, ""},
		{TrackerFlags{Sinks: []string{"github"}, GitHub: "acme/app#3"}, ""},
		{TrackerFlags{GitHub: "acme/app#3"}, ""},
		{TrackerFlags{Sinks: []string{"trello"}}, `--sinks: unknown sink "trello" (known: linear, linear-agent, github, jira, gitlab, file)`},
		{TrackerFlags{GitHub: "acme"}, `--github "acme": `},
		{TrackerFlags{Sinks: []string{"linear"}, GitHub: "acme/app#3"}, "--github names a pull request or issue, but --sinks linear leaves GitHub out"},
	}
	for _, tt := range tests {
		err := tt.flags.validate()
		if tt.err == "" {
			assert.NoError(t, err, "%+v", tt.flags)
			continue
		}
		var uerr *usageError
		require.ErrorAs(t, err, &uerr, "%+v", tt.flags)
		assert.True(t, strings.HasPrefix(err.Error(), tt.err), err.Error())
	}
}

func TestSinkEnvBotLogin(t *testing.T) {
	t.Parallel()
	prefs := config.Default()
	prefs.Sinks = map[string]config.SinkPrefs{"github": {BotLogin: "pref-app[bot]"}}
	env := map[string]string{"GITHUB_TOKEN": "t"}
	f := &Factory{Getenv: func(k string) string { return env[k] }}
	e, _ := f.sinkEnv("/r", prefs, "github")
	assert.Equal(t, "pref-app[bot]", e.Settings.Env.GitHub.BotLogin, "the preference")
	assert.Equal(t, "t", e.Settings.Env.GitHub.Token)
	f = &Factory{Getenv: func(k string) string { return map[string]string{"CCC_GITHUB_BOT_LOGIN": "env-app[bot]"}[k] }}
	e, _ = f.sinkEnv("/r", prefs, "github")
	assert.Equal(t, "env-app[bot]", e.Settings.Env.GitHub.BotLogin, "the environment wins")
	f = &Factory{Getenv: func(string) string { return "" }}
	e, _ = f.sinkEnv("/r", prefs, "linear")
	assert.Empty(t, e.Settings.Env.GitHub.BotLogin, "only the github sink's preference")
}
