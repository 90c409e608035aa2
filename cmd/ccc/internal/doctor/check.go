// Package doctor is `ccc doctor`: a table of named checks (Checks), run in
// order by one loop (Run), each returning its findings as values — OK,
// WARN or FAIL with a message and a hint — and the report of them (Print).
// The command resolves the project and hands over what the checks cannot
// find themselves (the trackers, the Linear sign-in); the checks change
// nothing but what they say they do.
package doctor

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// Status is how a finding went.
type Status string

const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Result is one line of the doctor's findings.
type Result struct {
	// Name is the check's, filled in by Run; a check sets it only for a
	// finding about something else (a tracker's lines carry its name).
	Name    string `json:"name"`
	Status  Status `json:"status"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	Path    string `json:"path,omitempty"` // the file or folder checked, relative to the root when inside it
}

// Check is one named check. Run returns its findings: usually one; none
// when there is nothing to say; one per item where the items are the news
// (each queued update that does not decode, each lock held).
type Check struct {
	Name string
	Run  func(context.Context, *Env) []Result
	// Gate ends the run when the check fails: the later checks need what
	// it found.
	Gate bool
}

// Checks are the doctor's checks, in the order they run and print: first
// the local files a checkpoint reads and writes (what makes checkpoints
// fail while every tracker answers), then the configuration and the
// network. Adding a check is one line here.
var Checks = []Check{
	{Name: "project", Run: checkProject, Gate: true}, // every other check reads the root
	{Name: "progress", Run: checkProgress},           // the check ccc validate makes
	{Name: "state", Run: checkState},                 // .ccc-state.json is a JSON object
	{Name: "record", Run: checkRecord},               // the agent's record, and every other one
	{Name: "outbox", Run: checkOutbox},               // every queued update decodes
	{Name: "writable", Run: checkWritable},           // where every checkpoint writes
	{Name: "temp files", Run: checkTempFiles},        // left by writes killed before their rename
	{Name: "locks", Run: checkLocks},                 // which are held, which cannot be opened
	{Name: "hooks", Run: checkHooks},                 // each agent's ccc hooks, where its config is
	{Name: "preferences", Run: checkPrefs},           // the repository's .ccc-preferences.yaml
	{Name: "user preferences", Run: checkUserPrefs},  // said only when broken
	{Name: "linear sign-in", Run: checkSignIn},       // said only when signed in
	{Name: "issue", Run: checkIssue},                 // the target the trackers are asked about
	{Name: "sinks", Run: checkSinks},                 // each tracker: credentials, target, rate limit
	{Name: "checkpoint branch", Run: checkHandoff},   // when on: the remote, .ccc-signers, the last push
}

// Env is what the checks look at: the project and the command's flags,
// and what the command resolves for them.
type Env struct {
	// Root is the project root; RootErr says why there is none.
	Root    string
	RootErr error
	Agent   string
	Now     time.Time
	// Settings read the project's preferences (Project).
	Settings config.Settings
	// UserPrefs reads the user's own preferences (their error only).
	UserPrefs func() error
	// Issue is the --issue flag; Timeout bounds each tracker's checks.
	Issue   string
	Timeout time.Duration
	// SignIn is the Linear sign-in's finding; none when not signed in.
	SignIn func(context.Context) []Result
	// Trackers resolves the sinks to check, and the warnings of choosing
	// them.
	Trackers func(root string, prefs config.Prefs) ([]checkpoint.Tracker, []string)

	dirOnce sync.Once
	dir     string
	dirErr  error

	issueOnce       sync.Once
	issue, issueSrc string
}

// recordsDir is the repository's records directory ("" and why when it
// cannot be found), looked up once.
func (e *Env) recordsDir(ctx context.Context) (string, error) {
	e.dirOnce.Do(func() { e.dir, e.dirErr = records.Dir(ctx, e.Root) })
	return e.dir, e.dirErr
}

// target is the issue the trackers are asked about, and where it was
// found, as a checkpoint finds it.
func (e *Env) target(ctx context.Context) (issue, from string) {
	e.issueOnce.Do(func() { e.issue, e.issueSrc = checkpoint.FindIssue(ctx, e.Root, e.Issue, e.Now) })
	return e.issue, e.issueSrc
}

// rel names p relative to the root when it is inside it.
func (e *Env) rel(p string) string {
	if r, err := filepath.Rel(e.Root, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return r
	}
	return p
}

// Run runs checks in order and returns their findings, each named.
func Run(ctx context.Context, e *Env, checks []Check) []Result {
	var out []Result
	for _, c := range checks {
		failed := false
		for _, r := range c.Run(ctx, e) {
			if r.Name == "" {
				r.Name = c.Name
			}
			failed = failed || r.Status == Fail
			out = append(out, r)
		}
		if failed && c.Gate {
			break
		}
	}
	return out
}

func one(s Status, msg, hint string) []Result {
	return []Result{{Status: s, Message: msg, Hint: hint}}
}

func at(s Status, path, msg, hint string) Result {
	return Result{Status: s, Path: path, Message: msg, Hint: hint}
}

// Print writes the results to w, as JSON or one line each (✓ ! X, with the
// hint of a line that is not ok), and reports whether one failed.
func Print(w io.Writer, asJSON bool, results []Result) (failed bool, err error) {
	for _, c := range results {
		failed = failed || c.Status == Fail
	}
	if asJSON {
		return failed, ui.JSON(w, struct {
			OK     bool     `json:"ok"`
			Checks []Result `json:"checks"`
		}{!failed, results})
	}
	marks := map[Status]string{OK: "✓", Warn: "!", Fail: "X"}
	for _, c := range results {
		fmt.Fprintf(w, "%s %s: %s\n", marks[c.Status], c.Name, c.Message)
		if c.Hint != "" && c.Status != OK {
			fmt.Fprintf(w, "    hint: %s\n", c.Hint)
		}
	}
	return failed, nil
}
