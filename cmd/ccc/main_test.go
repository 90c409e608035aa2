package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/internal/fake/githubfake"
	"github.com/ccc-checkpoint/ccc/internal/fake/gitlabfake"
	"github.com/ccc-checkpoint/ccc/internal/fake/jirafake"
	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks/jira"
)

func TestMain(m *testing.M) {
	cmds := map[string]func(){
		"ccc":         func() { os.Exit(run(os.Args[1:], systemFactory())) },
		"fakebrowser": func() { os.Exit(fakeBrowser()) },
	}
	// In-process tests whose Getenv names no CCC_CONFIG_DIR fall back to
	// os.UserConfigDir: keep the signing key they make out of the real one.
	// Not in a script's ccc (testscript runs this binary under the
	// command's name): a journey's XDG_CONFIG_HOME is the user's.
	if _, script := cmds[filepath.Base(os.Args[0])]; !script && os.Getenv("CCC_CONFIG_DIR") == "" {
		dir, err := os.MkdirTemp("", "ccc-test-config-")
		if err != nil {
			panic(err)
		}
		os.Setenv("XDG_CONFIG_HOME", dir)
	}
	testscript.Main(m, cmds)
}

// TestScripts runs the end-to-end CLI scripts in testdata/script: each is a
// scratch project in which ccc is run as a user would.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup:               func(env *testscript.Env) error { return setupScript(env, false) },
		Cmds:                scriptCmds(),
	})
}

// TestJourneys runs the user journeys in testdata/journeys exactly as README
// and docs/ tell a new user to do them: each script starts on a fresh
// machine (an empty $HOME with its own XDG config and cache directories, no
// CCC_CONFIG_DIR) and a fresh git repository in $WORK/repo, with the
// project's fakes as the only servers.
func TestJourneys(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/journeys",
		RequireExplicitExec: true,
		Setup:               func(env *testscript.Env) error { return setupScript(env, true) },
		Cmds:                scriptCmds(),
	})
}

// setupScript gives a script its environment and its own fakes. A fresh
// machine (journeys) has an empty $HOME whose XDG directories hold the
// user's config, and a new git repository in $WORK/repo; otherwise $HOME is
// the project and the user's config is a temporary CCC_CONFIG_DIR.
func setupScript(env *testscript.Env, fresh bool) error {
	if fresh {
		home := filepath.Join(env.WorkDir, "home")
		repo := filepath.Join(env.WorkDir, "repo")
		for _, d := range []string{home, repo} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		isolateGit(env.Setenv, home)
		env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
		env.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
		env.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
		env.Setenv("CCC_CONFIG_DIR", "")
		init := exec.Command("git", "init", "-q", "-b", "main", repo)
		init.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := init.CombinedOutput(); err != nil {
			return fmt.Errorf("git init: %v: %s", err, out)
		}
	} else {
		isolateGit(env.Setenv, env.WorkDir)
	}
	env.Setenv("CCC_NOW", "2026-11-21T13:45:00Z")
	if !fresh {
		// The user's config (its signing key) lives outside the
		// project, as a real user's does: $HOME is the project here.
		conf, err := os.MkdirTemp("", "ccc-userconf-")
		if err != nil {
			return err
		}
		env.Defer(func() { os.RemoveAll(conf) })
		env.Setenv("CCC_CONFIG_DIR", conf)
	}
	// Every script gets its own fake Linear; LINEAR_API_KEY stays
	// unset until a script sets it from FAKE_LINEAR_KEY.
	lin := linearfake.New()
	env.Defer(lin.Close)
	env.Values["linear"] = fake(linearFake{lin})
	env.Setenv("LINEAR_API_URL", lin.URL)
	env.Setenv("LINEAR_AUTHORIZE_URL", lin.AuthorizeURL())
	env.Setenv("LINEAR_TOKEN_URL", lin.TokenURL())
	env.Setenv("LINEAR_REVOKE_URL", lin.RevokeURL())
	env.Setenv("FAKE_LINEAR_CLIENT_ID", linearfake.ClientID)
	env.Setenv("FAKE_LINEAR_KEY", linearfake.APIKey)
	env.Setenv("FAKE_LINEAR_OAUTH", linearfake.OAuthToken)
	gh := githubfake.New()
	env.Defer(gh.Close)
	env.Values["github"] = fake(githubFake{gh})
	env.Setenv("GITHUB_API_URL", gh.URL)
	env.Setenv("FAKE_GITHUB_TOKEN", githubfake.InstallationToken)
	env.Setenv("FAKE_GITHUB_READONLY_TOKEN", githubfake.ReadOnlyToken)
	// Jira stays off until a script sets JIRA_BASE_URL and credentials
	// from these.
	jf := jirafake.New()
	env.Defer(jf.Close)
	env.Values["jira"] = fake(jiraFake{jf})
	env.Setenv("FAKE_JIRA_URL", jf.URL)
	env.Setenv("FAKE_JIRA_EMAIL", jirafake.Email)
	env.Setenv("FAKE_JIRA_TOKEN", jirafake.APIToken)
	gl := gitlabfake.New()
	env.Defer(gl.Close)
	env.Values["gitlab"] = fake(gitlabFake{gl})
	env.Setenv("FAKE_GITLAB_URL", gl.URL)
	env.Setenv("FAKE_GITLAB_TOKEN", gitlabfake.Token)
	env.Setenv("FAKE_GITLAB_JOB_TOKEN", gitlabfake.JobToken)
	return nil
}

// scriptCmds are the commands scripts add to testscript's own.
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"linear":       cmdFake("linear"),
		"github":       cmdFake("github"),
		"jira":         cmdFake("jira"),
		"gitlab":       cmdFake("gitlab"),
		"fault":        cmdFault,
		"exits":        cmdExits,
		"oauth":        cmdOAuth,
		"zstd":         cmdZstd,
		"linear-agent": cmdLinearAgent,
		"waitfile":     cmdWaitFile(true),
		"waitgone":     cmdWaitFile(false),
	}
}

// cmdExits runs a program and checks its exact exit status, keeping its
// stdout and stderr for the next checks: exits 3 ccc checkpoint ...
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// fake is what the scripts need of a fake tracker.
type fake interface {
	addTarget(target, title string)
	bodies(target string) []string
	requestCount() int
	fail(status, n int)
	slow(d time.Duration, n int)
	heal()
	deleteAll(target string)
	// addComment writes a comment as the credential's own account (who
	// "me") or another person ("other"); id is Linear's (GitHub chooses
	// its own).
	addComment(target, id, who, body string)
}

type linearFake struct{ *linearfake.Server }

func (f linearFake) addTarget(target, title string) { f.AddIssue(target, title) }
func (f linearFake) requestCount() int              { return f.RequestCount() }
func (f linearFake) heal()                          { f.ClearFaults() }
func (f linearFake) fail(status, n int) {
	f.Inject(linearfake.Repeat(n, linearfake.Unavailable(status))...)
}
func (f linearFake) slow(d time.Duration, n int) {
	f.Inject(linearfake.Repeat(n, linearfake.Slow(d))...)
}
func (f linearFake) bodies(target string) []string {
	var out []string
	for _, c := range f.Comments(target) {
		out = append(out, c.Body)
	}
	return out
}
func (f linearFake) addComment(target, id, who, body string) {
	user := linearfake.ViewerID
	if who == "other" {
		user = linearfake.OtherUserID
	}
	f.AddCommentWithID(target, user, id, body)
}
func (f linearFake) deleteAll(target string) {
	for _, c := range f.Comments(target) {
		f.DeleteComment(c.ID)
	}
}

type githubFake struct{ *githubfake.Server }

func (f githubFake) addTarget(target, title string) { f.AddPullRequest(target, title) }
func (f githubFake) requestCount() int              { return f.RequestCount() }
func (f githubFake) heal()                          { f.ClearFaults() }
func (f githubFake) fail(status, n int) {
	f.Inject(githubfake.Repeat(n, githubfake.Unavailable(status))...)
}
func (f githubFake) slow(d time.Duration, n int) {
	f.Inject(githubfake.Repeat(n, githubfake.Slow(d))...)
}
func (f githubFake) bodies(target string) []string {
	var out []string
	for _, c := range f.Comments(target) {
		out = append(out, c.Body)
	}
	return out
}
func (f githubFake) addComment(target, _, who, body string) {
	login := githubfake.BotLogin
	if who == "other" {
		login = githubfake.OtherLogin
	}
	f.AddComment(target, login, body)
}
func (f githubFake) deleteAll(target string) {
	for _, c := range f.Comments(target) {
		f.DeleteComment(c.ID)
	}
}

type gitlabFake struct{ *gitlabfake.Server }

func (f gitlabFake) addTarget(target, title string) { f.AddMergeRequest(target, title) }
func (f gitlabFake) requestCount() int              { return f.RequestCount() }
func (f gitlabFake) heal()                          { f.ClearFaults() }
func (f gitlabFake) fail(status, n int) {
	f.Inject(gitlabfake.Repeat(n, gitlabfake.Unavailable(status))...)
}
func (f gitlabFake) slow(d time.Duration, n int) {
	f.Inject(gitlabfake.Repeat(n, gitlabfake.Slow(d))...)
}
func (f gitlabFake) bodies(target string) []string {
	var out []string
	for _, n := range f.Notes(target) {
		out = append(out, n.Body)
	}
	return out
}
func (f gitlabFake) addComment(target, _, who, body string) {
	user := int64(gitlabfake.UserID)
	if who == "other" {
		user = gitlabfake.OtherUserID
	}
	f.AddNote(target, user, body)
}
func (f gitlabFake) deleteAll(target string) {
	for _, n := range f.Notes(target) {
		f.DeleteNote(n.ID)
	}
}

type jiraFake struct{ *jirafake.Server }

func (f jiraFake) addTarget(target, title string) { f.AddIssue(target, title) }
func (f jiraFake) requestCount() int              { return f.RequestCount() }
func (f jiraFake) heal()                          { f.ClearFaults() }
func (f jiraFake) fail(status, n int) {
	f.Inject(jirafake.Repeat(n, jirafake.Unavailable(status))...)
}
func (f jiraFake) slow(d time.Duration, n int) {
	f.Inject(jirafake.Repeat(n, jirafake.Slow(d))...)
}

// bodies are the comments as Markdown, read back from their ADF.
func (f jiraFake) bodies(target string) []string {
	var out []string
	for _, c := range f.Comments(target) {
		out = append(out, jirafake.Markdown(c.Body))
	}
	return out
}
func (f jiraFake) addComment(target, _, who, body string) {
	account := jirafake.AccountID
	if who == "other" {
		account = jirafake.OtherAccountID
	}
	doc, err := json.Marshal(jira.ToADF(body))
	if err != nil {
		panic(err)
	}
	f.AddComment(target, account, doc)
}
func (f jiraFake) deleteAll(target string) {
	for _, c := range f.Comments(target) {
		f.DeleteComment(c.ID)
	}
}

// faulty is what the newer trackers' fakes (Jira, GitLab) script beyond
// fake: a rate limit, a lost create, and how many requests the service
// would not have taken as sent.
type faulty interface {
	rateLimit(d time.Duration, reason string)
	loseCreate()
	invalid() []string
}

func (f jiraFake) rateLimit(d time.Duration, reason string) {
	f.Inject(jirafake.RateLimited(time.Now(), d, reason))
}
func (f jiraFake) loseCreate()       { f.Inject(jirafake.LostResponse(jirafake.OpAddComment)) }
func (f jiraFake) invalid() []string { return f.Invalid() }
func (f gitlabFake) rateLimit(d time.Duration, _ string) {
	f.Inject(gitlabfake.RateLimited(time.Now(), d))
}
func (f gitlabFake) loseCreate()       { f.Inject(gitlabfake.LostResponse(gitlabfake.OpCreateNote)) }
func (f gitlabFake) invalid() []string { return f.Invalid() }

// cmdFault scripts what only the Jira and GitLab fakes do:
//
//	fault NAME ratelimit SECONDS REASON   the next request gets a 429 with Retry-After (REASON: Jira's RateLimit-Reason)
//	fault NAME lose                       the next create lands, its answer is lost
//	fault NAME invalid N                  exactly N requests were ones the service would not take as sent
func cmdFault(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: fault jira|gitlab ratelimit SECONDS REASON | lose | invalid N")
	}
	f, ok := ts.Value(args[0]).(faulty)
	if !ok {
		ts.Fatalf("fault: %s's fake scripts no such faults", args[0])
	}
	switch op := args[1:]; {
	case op[0] == "ratelimit" && len(op) == 3:
		secs, err := strconv.Atoi(op[1])
		ts.Check(err)
		f.rateLimit(time.Duration(secs)*time.Second, op[2])
	case op[0] == "lose" && len(op) == 1:
		f.loseCreate()
	case op[0] == "invalid" && len(op) == 2:
		if got := fmt.Sprint(len(f.invalid())); got != op[1] {
			ts.Fatalf("%s: %s requests were not taken as sent, want %s: %q", args[0], got, op[1], f.invalid())
		}
	default:
		ts.Fatalf("fault: unknown %q", args)
	}
}

// cmdFake drives and inspects one of the script's fake trackers:
//
//	NAME target TARGET TITLE   add an issue (Linear) or a pull request (GitHub)
//	NAME fail STATUS N         answer the next N requests with HTTP STATUS
//	NAME slow DURATION N       hold the next N answers back for DURATION
//	NAME heal                  drop the failures not used yet
//	NAME reset                 forget the requests seen so far
//	NAME requests N            exactly N requests since the last reset
//	NAME comments TARGET N     TARGET has exactly N comments
//	NAME body TARGET           print TARGET's newest comment body
//	NAME first TARGET          print TARGET's oldest comment body
//	NAME delete TARGET         delete TARGET's comments
//	NAME comment TARGET ID WHO BODY  add a comment by me or other (ID: Linear's)
func cmdFake(name string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) == 0 {
			ts.Fatalf("usage: %s target|fail|slow|heal|reset|requests|comments|body|first|delete ...", name)
		}
		arity := map[string]int{"target": 3, "fail": 3, "slow": 3, "heal": 1, "reset": 1, "requests": 2, "comments": 3, "body": 2, "first": 2, "delete": 2, "comment": 5}
		if n, ok := arity[args[0]]; ok && len(args) != n {
			ts.Fatalf("%s %s: want %d arguments, got %q (quote targets with #)", name, args[0], n-1, args[1:])
		}
		f := ts.Value(name).(fake)
		atoi := func(s string) int {
			n, err := strconv.Atoi(s)
			ts.Check(err)
			return n
		}
		seenKey := "SEEN_" + strings.ToUpper(name)
		switch args[0] {
		case "target":
			f.addTarget(args[1], args[2])
		case "fail":
			f.fail(atoi(args[1]), atoi(args[2]))
		case "slow":
			d, err := time.ParseDuration(args[1])
			ts.Check(err)
			f.slow(d, atoi(args[2]))
		case "heal":
			f.heal()
		case "reset":
			ts.Setenv(seenKey, strconv.Itoa(f.requestCount()))
		case "requests":
			seen, _ := strconv.Atoi(ts.Getenv(seenKey))
			if got := f.requestCount() - seen; got != atoi(args[1]) {
				ts.Fatalf("%s: %d requests, want %s", name, got, args[1])
			}
		case "comments":
			if got := len(f.bodies(args[1])); got != atoi(args[2]) {
				ts.Fatalf("%s: %s has %d comments, want %s", name, args[1], got, args[2])
			}
		case "body":
			bodies := f.bodies(args[1])
			if len(bodies) == 0 {
				ts.Fatalf("%s: %s has no comments", name, args[1])
			}
			fmt.Fprint(ts.Stdout(), bodies[len(bodies)-1])
		case "first":
			bodies := f.bodies(args[1])
			if len(bodies) == 0 {
				ts.Fatalf("%s: %s has no comments", name, args[1])
			}
			fmt.Fprint(ts.Stdout(), bodies[0])
		case "delete":
			f.deleteAll(args[1])
		case "comment":
			f.addComment(args[1], args[2], args[3], args[4])
		default:
			ts.Fatalf("%s: unknown subcommand %q", name, args[0])
		}
	}
}

// parse runs a command line through flag parsing only.
func parseCheckpoint(t *testing.T, args ...string) (*CheckpointOptions, int, string) {
	t.Helper()
	var got *CheckpointOptions
	var stderr bytes.Buffer
	f := &Factory{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &stderr}, Getenv: func(string) string { return "" }}
	root := NewCmdRoot(f)
	for _, c := range root.Commands() {
		if c.Name() == "checkpoint" {
			root.RemoveCommand(c)
		}
	}
	dir := ""
	root.AddCommand(NewCmdCheckpoint(f, &dir, func(o *CheckpointOptions) error { got = o; return nil }))
	root.SetArgs(args)
	err := root.Execute()
	code := 0
	if err != nil {
		code = 1
		var u *usageError
		if asUsage(err, &u) || isCobraUsage(err) {
			code = 2
		}
		stderr.WriteString(err.Error())
	}
	return got, code, stderr.String()
}

func asUsage(err error, u **usageError) bool {
	for e := err; e != nil; {
		if v, ok := e.(*usageError); ok {
			*u = v
			return true
		}
		w, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = w.Unwrap()
	}
	return false
}

func TestCheckpointFlags(t *testing.T) {
	t.Parallel()
	o, code, _ := parseCheckpoint(t, "checkpoint", "--issue", "CIA-12", "--done", "a", "--done", "", "--current", "b — started",
		"--add-task", "c", "--add-task", "d", "--decision", "x: y", "--blocker", "b1", "--unblock", "b0",
		"--next", "n", "--profile", "automated", "--skip-linear", "--skip-git", "--agent", "w2", "--timeout", "3s",
		"--refresh-prompt", "--json")
	require.Equal(t, 0, code)
	assert.Equal(t, progress.Edits{
		Done: []string{"a", ""}, Current: "b — started", AddTasks: []string{"c", "d"}, Decisions: []string{"x: y"},
		Blockers: []string{"b1"}, Unblock: []string{"b0"}, Next: "n", Issue: "CIA-12",
	}, o.Edits)
	assert.Equal(t, checkpoint.Automated, o.Profile)
	assert.Equal(t, "--skip-linear", o.SkipTracker)
	assert.True(t, o.SkipGit)
	assert.True(t, o.RefreshPrompt)
	assert.True(t, o.JSON)
	assert.Equal(t, "w2", o.Agent)
	assert.Equal(t, 3*time.Second, o.Timeout)

	o, code, _ = parseCheckpoint(t, "checkpoint", "--skip-tracker")
	require.Equal(t, 0, code)
	assert.Equal(t, "--skip-tracker", o.SkipTracker)
	assert.Equal(t, checkpoint.Manual, o.Profile, "manual by default")
}

func TestCheckpointUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"checkpoint", "--issue", "cia 12"}, `--issue "cia 12" is not an issue key`},
		{[]string{"checkpoint", "--profile", "fast"}, `unknown profile "fast"`},
		{[]string{"checkpoint", "--no-such-flag"}, "unknown flag"},
		{[]string{"checkpoint", "stray"}, "unknown command"},
		{[]string{"checkpoint", "--timeout", "soon"}, "invalid argument"},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			o, code, stderr := parseCheckpoint(t, tt.args...)
			assert.Nil(t, o, "nothing runs")
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr, tt.msg)
		})
	}
}

// isolateGit keeps the developer's git configuration and CI's environment out
// of the tests, and gives commits an identity.
func isolateGit(setenv func(k, v string), home string) {
	for k, v := range map[string]string{
		"HOME":                 home,
		"GIT_CONFIG_GLOBAL":    os.DevNull,
		"GIT_CONFIG_NOSYSTEM":  "1",
		"GIT_AUTHOR_NAME":      "Test Agent",
		"GIT_AUTHOR_EMAIL":     "agent@example.com",
		"GIT_COMMITTER_NAME":   "Test Agent",
		"GIT_COMMITTER_EMAIL":  "agent@example.com",
		"LINEAR_API_KEY":       "",
		"LINEAR_OAUTH_TOKEN":   "",
		"CCC_AGENT":            "",
		"CCC_PROJECT_ROOT":     "",
		"CCC_SINKS":            "",
		"GITHUB_ACTIONS":       "",
		"GITHUB_TOKEN":         "",
		"GH_TOKEN":             "",
		"GITHUB_REPOSITORY":    "",
		"GITHUB_EVENT_PATH":    "",
		"GITHUB_REF":           "",
		"GITHUB_STEP_SUMMARY":  "",
		"GITHUB_EVENT_NAME":    "",
		"CCC_GITHUB_BOT_LOGIN": "",
		"NO_COLOR":             "1",
	} {
		setenv(k, v)
	}
}
