package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/ccc-checkpoint/ccc/internal/fake/githubfake"
	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks/github"
)

// actionFile is the composite action as far as the tests read it.
type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name string            `yaml:"name"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) actionFile {
	t.Helper()
	data, err := os.ReadFile("../../action.yml")
	require.NoError(t, err)
	var action actionFile
	require.NoError(t, yaml.Unmarshal(data, &action))
	return action
}

// postStep is the step that runs ccc post: its env: and run: script.
func postStep(t *testing.T, action actionFile) (env map[string]string, script string) {
	t.Helper()
	for _, s := range action.Runs.Steps {
		if strings.Contains(s.Run, "post") {
			env, script = s.Env, s.Run
		}
	}
	require.NotEmpty(t, script, "action.yml has a step that runs ccc post")
	return env, script
}

// TestActionYAML checks the composite action: it parses, every input it
// declares reaches ccc through the environment (never spliced into the
// script), and every flag it passes exists on ccc post.
func TestActionYAML(t *testing.T) {
	t.Parallel()
	action := readAction(t)
	assert.Equal(t, "composite", action.Runs.Using)
	for _, in := range []string{"body-file", "linear-issue", "github-issue", "sinks", "agent"} {
		assert.Contains(t, action.Inputs, in)
	}
	env, script := postStep(t, action)
	assert.NotContains(t, script, "${{", "inputs are passed through env, not spliced into the script")
	used := map[string]bool{}
	for _, v := range env {
		for _, m := range regexp.MustCompile(`inputs\.([a-z-]+)`).FindAllStringSubmatch(v, -1) {
			used[m[1]] = true
		}
	}
	for in := range action.Inputs {
		assert.True(t, used[in], "input %s reaches ccc", in)
	}

	post := NewCmdPost(&Factory{}, new(string), nil)
	for _, m := range regexp.MustCompile(`--([a-z-]+)`).FindAllStringSubmatch(script, -1) {
		assert.NotNil(t, post.Flags().Lookup(m[1]), "ccc post has --%s", m[1])
	}
}

// TestActionRunsPost runs the action's `ccc post` step as the runner does:
// its run: script under bash -eo pipefail, with the env: it declares
// (expressions in both evaluated for the inputs given), RUNNER_TEMP
// holding ccc,
// and a GitHub Actions environment pointing at fake GitHub and Linear
// servers.
func TestActionRunsPost(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found: the action's run: step is a bash script")
	}
	// TestMain put this test binary on PATH as ccc: run under that name it
	// is ccc.
	ccc, err := exec.LookPath("ccc")
	require.NoError(t, err)
	action := readAction(t)
	stepEnv, script := postStep(t, action)

	gh := githubfake.New()
	defer gh.Close()
	gh.AddPullRequest("acme/app#34", "Add the parser")
	lin := linearfake.New()
	defer lin.Close()
	lin.AddIssue("CIA-7", "Parser")

	work, runnerTemp, home := t.TempDir(), t.TempDir(), t.TempDir()
	require.NoError(t, os.Symlink(ccc, filepath.Join(runnerTemp, "ccc")))
	scriptPath := filepath.Join(runnerTemp, "step.sh")
	write := func(name, text string) {
		t.Helper()
		require.NoError(t, os.WriteFile(filepath.Join(work, name), []byte(text), 0o600))
	}
	write("event.json", `{"action": "synchronize", "number": 34, "pull_request": {"number": 34,
		"head": {"ref": "parser", "repo": {"full_name": "acme/app"}}, "base": {"ref": "main", "repo": {"full_name": "acme/app"}}}}`)
	write("summary.md", "Earlier step output.\n")

	// run runs the step with the inputs given (the others at their
	// defaults) and github.token the workflow's own token.
	run := func(t *testing.T, inputs map[string]string) (stdout, stderr string, code int) {
		t.Helper()
		ctx := map[string]string{"github.token": githubfake.InstallationToken}
		for name, in := range action.Inputs {
			ctx["inputs."+name] = evalAction(t, in.Default, ctx)
		}
		for name, v := range inputs {
			require.Contains(t, action.Inputs, name)
			ctx["inputs."+name] = v
		}
		env := []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
			"NO_COLOR=1", "CCC_NOW=2026-11-21T13:45:00Z",
			"GITHUB_ACTIONS=true", "GITHUB_JOB=status", "GITHUB_REPOSITORY=acme/app", "GITHUB_EVENT_NAME=pull_request",
			"GITHUB_EVENT_PATH=" + filepath.Join(work, "event.json"), "GITHUB_REF=refs/pull/34/merge",
			"GITHUB_STEP_SUMMARY=" + filepath.Join(work, "summary.md"), "RUNNER_TEMP=" + runnerTemp,
			"GITHUB_OUTPUT=" + filepath.Join(work, "output.txt"),
			"GITHUB_API_URL=" + gh.URL, "LINEAR_API_URL=" + lin.URL,
		}
		for k, v := range stepEnv {
			env = append(env, k+"="+evalAction(t, v, ctx))
		}
		// The runner expands expressions in run: too.
		require.NoError(t, os.WriteFile(scriptPath, []byte(evalAction(t, script, ctx)), 0o600))
		cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", scriptPath)
		cmd.Dir, cmd.Env = work, env
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			code = ee.ExitCode()
		default:
			require.NoError(t, err)
		}
		return out.String(), errOut.String(), code
	}
	fresh := func(t *testing.T) {
		t.Helper()
		require.NoError(t, os.RemoveAll(filepath.Join(work, ".ccc")))
		require.NoError(t, os.RemoveAll(filepath.Join(work, ".ccc-state.json")))
	}
	ours := func(agent string) []githubfake.Comment {
		var out []githubfake.Comment
		for _, c := range gh.Comments("acme/app#34") {
			if github.HasMarker(c.Body, agent) {
				out = append(out, c)
			}
		}
		return out
	}

	t.Run("posts, then updates, one comment on each tracker", func(t *testing.T) {
		inputs := map[string]string{"body-file": "report.md", "linear-issue": "CIA-7", "linear-api-key": linearfake.APIKey}
		write("report.md", "Build 41 passed.\n")
		_, stderr, code := run(t, inputs)
		require.Equal(t, 0, code, stderr)
		// The outputs: the report as JSON and the comments' URLs.
		outputs := readOutputs(t, filepath.Join(work, "output.txt"))
		assert.Equal(t, map[string]string{"github acme/app#34": "created", "linear CIA-7": "created"},
			sinkActions(t, outputs["report"]))
		if _, err := exec.LookPath("jq"); err == nil {
			assert.Equal(t, []string{"https://github.com/acme/app/pull/34#issuecomment-1900000001",
				"https://linear.app/fake/issue/CIA-7/parser#comment-8a5c08c3"},
				strings.Split(outputs["comment-urls"], "\n"))
		}

		write("report.md", "Build 42 passed.\n")
		_, stderr, code = run(t, inputs)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, "updated", sinkActions(t, readOutputs(t, filepath.Join(work, "output.txt"))["report"])["github acme/app#34"])
		cs := ours("status")
		require.Len(t, cs, 1, "the agent input's default: the job's id")
		assert.Contains(t, cs[0].Body, "Build 42 passed.")
		assert.Equal(t, githubfake.BotLogin, cs[0].Login)
		lcs := lin.Comments("CIA-7")
		require.Len(t, lcs, 1)
		assert.Contains(t, lcs[0].Body, "Build 42 passed.")
		summary, err := os.ReadFile(filepath.Join(work, "summary.md"))
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(summary), "Earlier step output.\n"), "the summary keeps what was there")
		assert.Contains(t, string(summary), "Build 42 passed.")
		assert.NotContains(t, stderr+string(summary), "ghs_fake", "no token in the output")
	})

	t.Run("inputs are data, never shell", func(t *testing.T) {
		write("report.md", "Build 43 passed.\n")
		// Each would run if spliced into the script, quoted or not.
		_, stderr, _ := run(t, map[string]string{"body-file": "report.md`touch pwned`", "agent": "$(touch pwned2)",
			"github-issue": "acme/app#34$(touch pwned3)", "sinks": "github;touch pwned4"})
		for _, f := range []string{"pwned", "pwned2", "pwned3", "pwned4"} {
			assert.NoFileExists(t, filepath.Join(work, f), stderr)
		}
	})

	t.Run("another app's token: three fresh runs leave one comment", func(t *testing.T) {
		for _, in := range []map[string]string{
			{"github-token": githubfake.AppToken},
			{"github-token": githubfake.AppToken, "github-bot-login": githubfake.AppLogin},
		} {
			agent := "app"
			if in["github-bot-login"] != "" {
				agent = "app-login"
			}
			in["agent"], in["body-file"] = agent, "report.md"
			for i, body := range []string{"one", "two", "three"} {
				fresh(t)
				write("report.md", "Run "+body+".\n")
				_, stderr, code := run(t, in)
				require.Equal(t, 0, code, "run %d: %s", i, stderr)
			}
			cs := ours(agent)
			require.Len(t, cs, 1, "agent %s", agent)
			assert.Equal(t, githubfake.AppLogin, cs[0].Login)
			assert.Contains(t, cs[0].Body, "Run three.")
		}
	})
}

// readOutputs parses a $GITHUB_OUTPUT file (name<<DELIMITER lines); a later
// value of a name wins, as on the runner.
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	out := map[string]string{}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			if name, v, ok := strings.Cut(lines[i], "="); ok {
				out[name] = v
			}
			continue
		}
		var value []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			value = append(value, lines[i])
		}
		require.Less(t, i, len(lines), "%s: the delimiter closes %s", path, name)
		out[name] = strings.Join(value, "\n")
	}
	return out
}

// sinkActions is what the report says each sink did: "sink target" → action.
func sinkActions(t *testing.T, report string) map[string]string {
	t.Helper()
	var r struct {
		Steps []struct {
			Sinks []struct{ Sink, Target, Action string } `json:"sinks"`
		} `json:"steps"`
	}
	require.NoError(t, json.Unmarshal([]byte(report), &r), report)
	out := map[string]string{}
	for _, st := range r.Steps {
		for _, s := range st.Sinks {
			out[s.Sink+" "+s.Target] = s.Action
		}
	}
	return out
}

// TestActionBotLogin checks the expression that tells ccc who the token
// writes as: the workflow's own token is github-actions[bot]; another
// app's is left to learn unless the input names it.
func TestActionBotLogin(t *testing.T) {
	t.Parallel()
	action := readAction(t)
	env, _ := postStep(t, action)
	expr, ok := env["CCC_GITHUB_BOT_LOGIN"]
	require.True(t, ok)
	tests := []struct {
		token, login, want string
	}{
		{"own", "", "github-actions[bot]"},
		{"app", "", ""},
		{"app", "my-app[bot]", "my-app[bot]"},
		{"own", "my-app[bot]", "my-app[bot]"},
	}
	for _, tt := range tests {
		ctx := map[string]string{"github.token": "own", "inputs.github-token": tt.token, "inputs.github-bot-login": tt.login}
		assert.Equal(t, tt.want, evalAction(t, expr, ctx), "token %s, input %q", tt.token, tt.login)
	}
}

// evalAction expands the ${{ }} expressions in v the way the runner does,
// for the part of the expression language the action uses: context values
// (ctx, by "inputs.x" or "github.token"), 'literals', ==, !=, &&, || and
// parentheses. Anything else fails the test, so an action that starts
// using more is noticed.
func evalAction(t *testing.T, v string, ctx map[string]string) string {
	t.Helper()
	var out strings.Builder
	for {
		start := strings.Index(v, "${{")
		if start < 0 {
			out.WriteString(v)
			return out.String()
		}
		end := strings.Index(v[start:], "}}")
		require.GreaterOrEqual(t, end, 0, "unclosed expression in %q", v)
		out.WriteString(v[:start])
		p := &exprParser{t: t, ctx: ctx, toks: lexExpr(t, v[start+3:start+end])}
		val := p.or()
		require.Equal(t, len(p.toks), p.pos, "trailing tokens in %q", v)
		out.WriteString(val)
		v = v[start+end+2:]
	}
}

func lexExpr(t *testing.T, s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := rune(s[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '\'':
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						j++
						continue
					}
					break
				}
			}
			require.Less(t, j, len(s), "unclosed string in %q", s)
			toks = append(toks, s[i:j+1])
			i = j + 1
		case strings.HasPrefix(s[i:], "==") || strings.HasPrefix(s[i:], "!=") ||
			strings.HasPrefix(s[i:], "&&") || strings.HasPrefix(s[i:], "||"):
			toks = append(toks, s[i:i+2])
			i += 2
		case c == '(' || c == ')':
			toks = append(toks, string(c))
			i++
		case unicode.IsLetter(c) || c == '_':
			j := i
			for j < len(s) && (unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j])) || strings.ContainsRune("._-", rune(s[j]))) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			t.Fatalf("evalAction: %q is not supported in %q", s[i:], s)
		}
	}
	return toks
}

// exprParser evaluates tokens; values are strings, "" is false.
type exprParser struct {
	t    *testing.T
	ctx  map[string]string
	toks []string
	pos  int
}

func (p *exprParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *exprParser) or() string {
	v := p.and()
	for p.peek() == "||" {
		p.pos++
		w := p.and()
		if v == "" {
			v = w
		}
	}
	return v
}

func (p *exprParser) and() string {
	v := p.eq()
	for p.peek() == "&&" {
		p.pos++
		w := p.eq()
		if v != "" {
			v = w
		}
	}
	return v
}

func (p *exprParser) eq() string {
	v := p.primary()
	if op := p.peek(); op == "==" || op == "!=" {
		p.pos++
		// The runner compares strings ignoring case.
		same := strings.EqualFold(v, p.primary())
		if same == (op == "==") {
			return "true"
		}
		return ""
	}
	return v
}

func (p *exprParser) primary() string {
	tok := p.peek()
	p.pos++
	switch {
	case tok == "(":
		v := p.or()
		require.Equal(p.t, ")", p.peek(), "unbalanced parentheses")
		p.pos++
		return v
	case strings.HasPrefix(tok, "'"):
		return strings.ReplaceAll(tok[1:len(tok)-1], "''", "'")
	}
	v, ok := p.ctx[tok]
	require.True(p.t, ok, "evalAction: unknown context value %q", tok)
	return v
}
