package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks/linear/linearfake"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ccc": func() { os.Exit(run(os.Args[1:], systemFactory())) },
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script: each is a
// scratch project in which ccc is run as a user would.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			isolateGit(env.Setenv, env.WorkDir)
			env.Setenv("CCC_NOW", "2026-11-21T13:45:00Z")
			// Every script gets its own fake Linear; LINEAR_API_KEY stays
			// unset until a script sets it from FAKE_LINEAR_KEY.
			srv := linearfake.New()
			env.Defer(srv.Close)
			env.Values[linearKey{}] = srv
			env.Setenv("LINEAR_API_URL", srv.URL)
			env.Setenv("FAKE_LINEAR_KEY", linearfake.APIKey)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"linear": cmdLinear,
			"exits":  cmdExits,
		},
	})
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

type linearKey struct{}

// cmdLinear drives and inspects the script's fake Linear:
//
//	linear issue KEY TITLE      add an issue
//	linear fail STATUS N        answer the next N requests with HTTP STATUS
//	linear heal                 drop the failures not used yet
//	linear reset                forget the requests seen so far
//	linear requests N           exactly N requests since the last reset
//	linear comments KEY N       KEY has exactly N comments
//	linear body KEY             print KEY's newest comment body
//	linear delete KEY           delete KEY's comments
func cmdLinear(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("linear does not support !")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: linear issue|fail|reset|requests|comments|body|delete ...")
	}
	srv := ts.Value(linearKey{}).(*linearfake.Server)
	atoi := func(s string) int {
		n, err := strconv.Atoi(s)
		ts.Check(err)
		return n
	}
	switch args[0] {
	case "issue":
		srv.AddIssue(args[1], args[2])
	case "fail":
		srv.Inject(linearfake.Repeat(atoi(args[2]), linearfake.Unavailable(atoi(args[1])))...)
	case "heal":
		srv.ClearFaults()
	case "reset":
		ts.Setenv("LINEAR_SEEN", strconv.Itoa(srv.RequestCount()))
	case "requests":
		seen, _ := strconv.Atoi(ts.Getenv("LINEAR_SEEN"))
		if got := srv.RequestCount() - seen; got != atoi(args[1]) {
			ts.Fatalf("linear: %d requests, want %s", got, args[1])
		}
	case "comments":
		if got := len(srv.Comments(args[1])); got != atoi(args[2]) {
			ts.Fatalf("linear: %s has %d comments, want %s", args[1], got, args[2])
		}
	case "body":
		cs := srv.Comments(args[1])
		if len(cs) == 0 {
			ts.Fatalf("linear: %s has no comments", args[1])
		}
		fmt.Fprint(ts.Stdout(), cs[len(cs)-1].Body)
	case "delete":
		for _, c := range srv.Comments(args[1]) {
			srv.DeleteComment(c.ID)
		}
	default:
		ts.Fatalf("linear: unknown subcommand %q", args[0])
	}
}

// isolateGit keeps the developer's git configuration out of the tests and
// gives commits an identity.
func isolateGit(setenv func(k, v string), home string) {
	for k, v := range map[string]string{
		"HOME":                home,
		"GIT_CONFIG_GLOBAL":   os.DevNull,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Test Agent",
		"GIT_AUTHOR_EMAIL":    "agent@example.com",
		"GIT_COMMITTER_NAME":  "Test Agent",
		"GIT_COMMITTER_EMAIL": "agent@example.com",
		"LINEAR_API_KEY":      "",
		"LINEAR_OAUTH_TOKEN":  "",
		"CCC_AGENT":           "",
		"CCC_PROJECT_ROOT":    "",
		"NO_COLOR":            "1",
	} {
		setenv(k, v)
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

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		42 * time.Second:            "42s",
		12 * time.Minute:            "12m",
		3*time.Hour + 5*time.Minute: "3h5m",
		26 * time.Hour:              "26h",
		50 * time.Hour:              "2d2h",
		72 * time.Hour:              "3d",
	} {
		assert.Equal(t, want, age(d))
	}
}
