package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// DoctorOptions is `ccc doctor` as parsed.
type DoctorOptions struct {
	Dir      string
	Issue    string
	Agent    string
	Timeout  time.Duration
	JSON     bool
	Trackers TrackerFlags
}

// Check is one line of the doctor's findings.
type Check struct {
	Name    string `json:"name"`
	Status  string `json:"status"` // ok, warn, fail
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	Path    string `json:"path,omitempty"` // the file or folder checked, relative to the root when inside it
}

// NewCmdDoctor builds `ccc doctor`.
func NewCmdDoctor(f *Factory, dir *string, runF func(*DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the local files, configuration and tracker connectivity",
		Long: `Check what a checkpoint needs, one line each (✓ ok, ! warning, X failed, with
the path, the line where known, and a hint):

  local   the project root; the progress document parses (the check ccc
          validate makes); .ccc-state.json is a JSON object; the agent's
          record and every queued update in .ccc/outbox decode; the project
          root (where the progress and state files are replaced), .ccc and
          its folders are writable; temp files left by a write that was killed;
          the lock files (a lock dies with its process, so none is ever
          stale: doctor says which are held now, and which cannot be opened)
  network the preferences, and for every tracker whether its credentials are
          set and authenticate, whether the target issue exists, and how
          much of the rate limit is left. A tracker without credentials is
          a warning, and nothing is sent: doctor works offline.

Doctor changes nothing (it creates and removes a file to test that a folder
is writable), with one exception it reports: temp files of an interrupted
write (older than a minute and held by no process) are removed, as the next
checkpoint would.` + exitStatusHelp(
			"0  no problem (warnings allowed, e.g. no tracker configured)",
			"1  at least one check failed: a local file that is corrupt or cannot be\n     written, or a tracker that refuses the credentials or the target",
			"2  usage error",
			jsonErrorHelp),
		Example: `  ccc doctor
  LINEAR_API_KEY=lin_api_... ccc doctor --issue CIA-12
  ccc doctor --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Dir = *dir
			if err := validateTargets(&opts.Issue, opts.Trackers); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return doctorRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Issue, "issue", "", "the issue to look up (default: as checkpoint finds it)")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "the agent whose record to check (default: $CCC_AGENT, else main)")
	durationVar(cmd.Flags(), &opts.Timeout, "timeout", 15*time.Second, "deadline for each tracker's checks")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the checks as JSON")
	addTrackerFlags(cmd.Flags(), &opts.Trackers)
	return cmd
}

func doctorRun(ctx context.Context, f *Factory, opts *DoctorOptions) error {
	var checks []Check
	add := func(name, status, msg, hint string) {
		checks = append(checks, Check{Name: name, Status: status, Message: msg, Hint: hint})
	}
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		add("project", "fail", err.Error(), "pass --dir or run ccc inside the project")
		return reportDoctor(f, opts, checks)
	}
	add("project", "ok", root, "")
	now := f.Now()

	checks = append(checks, runLocalChecks(ctx, root, config.Agent(opts.Agent, f.env()))...)
	if _, err := config.LoadPrefs(root); err != nil {
		add("preferences", "fail", err.Error(), "fix it; meanwhile checkpoints use the defaults without the repository's git hooks")
	} else {
		add("preferences", "ok", "loaded", "")
	}
	if _, err := f.settings().UserPrefs(); err != nil {
		add("user preferences", "fail", err.Error(), "fix it; meanwhile checkpoints use the defaults without the repository's git hooks")
	}
	checks = append(checks, linearSignInCheck(ctx, f, opts.Timeout)...)

	issue, from := checkpoint.FindIssue(ctx, root, opts.Issue, now)
	if issue == "" {
		add("issue", "warn", "no issue found", "pass --issue KEY-123, or set linearIssue in .ccc-state.json")
	} else {
		add("issue", "ok", fmt.Sprintf("%s (from %s)", issue, from), "")
	}

	prefs, _ := config.LoadPrefs(root)
	trackers, warnings := f.trackers(root, prefs, opts.Trackers)
	for _, w := range warnings {
		add("sinks", "warn", w, "")
	}
	if len(trackers) == 0 {
		add("sinks", "warn", "no tracker configured", "set LINEAR_API_KEY, pass --github owner/repo#N, or list sinks in "+config.PrefsFile)
	}
	for _, tr := range trackers {
		checks = append(checks, trackerChecks(ctx, tr, issue, opts.Timeout)...)
	}
	return reportDoctor(f, opts, checks)
}

// trackerChecks are doctor's checks of one tracker: credentials, target,
// rate limit.
func trackerChecks(ctx context.Context, tr checkpoint.Tracker, issue string, timeout time.Duration) []Check {
	var checks []Check
	add := func(name, status, msg, hint string) {
		checks = append(checks, Check{Name: name, Status: status, Message: msg, Hint: hint})
	}
	s := tr.Sink
	if tr.Skip != "" {
		add(s.Name(), "warn", s.Title()+": "+tr.Skip, "")
		return checks
	}
	target := tr.Target
	if target == "" {
		target = issue
	}
	hc, ok := s.(sinks.HealthChecker)
	if !ok {
		add(s.Name(), "ok", "configured (no health check)", "")
		return checks
	}
	cctx, cancel := sinks.WithTimeout(ctx, timeout)
	h, err := hc.Health(cctx, target)
	cancel()
	var skip *sinks.SkipError
	var serr *sinks.Error
	switch {
	case errors.As(err, &skip):
		add(s.Name(), "warn", s.Title()+" not configured: "+skip.Reason, "")
		return checks
	case errors.As(err, &serr):
		add(s.Name(), "fail", s.Title()+": "+serr.Cause, hintFor(s, serr))
	case err != nil:
		add(s.Name(), "fail", s.Title()+": "+err.Error(), "")
	}
	if h.Account != "" {
		add(s.Name(), "ok", fmt.Sprintf("authenticated as %s (%s)", h.Account, h.Credential), "")
	}
	if h.Target != "" {
		add(s.Name(), "ok", h.Target+" found "+h.TargetURL, "")
	}
	if rl := h.RateLimit; rl.Low() {
		hint := "checkpoints now may wait for the reset or be queued for ccc sync"
		if !rl.Reset.IsZero() {
			hint = "requests resume at " + rl.Reset.UTC().Format(time.RFC3339) + "; " + hint
		}
		add(s.Name(), "warn", "rate limit nearly spent: "+rl.String(), hint)
	} else if rl.Known {
		add(s.Name(), "ok", "rate limit: "+rl.String(), "")
	}
	return checks
}

func hintFor(s sinks.Sink, e *sinks.Error) string {
	switch {
	case s.Name() == "linear" && e.Permanent:
		return "check the key at Linear → Settings → API, and the issue key"
	case s.Name() == "github" && e.Permanent:
		return "check GITHUB_TOKEN (scopes: issues and pull requests, write) and owner/repo#N"
	case e.Permanent:
		return ""
	default:
		return "a transient failure (network, server or rate limit): try again shortly"
	}
}

func reportDoctor(f *Factory, opts *DoctorOptions, checks []Check) error {
	failed := false
	for _, c := range checks {
		failed = failed || c.Status == "fail"
	}
	if opts.JSON {
		if err := ui.JSON(f.IO.Out, struct {
			OK     bool    `json:"ok"`
			Checks []Check `json:"checks"`
		}{!failed, checks}); err != nil {
			return err
		}
	} else {
		marks := map[string]string{"ok": "✓", "warn": "!", "fail": "X"}
		for _, c := range checks {
			fmt.Fprintf(f.IO.Out, "%s %s: %s\n", marks[c.Status], c.Name, c.Message)
			if c.Hint != "" && c.Status != "ok" {
				fmt.Fprintf(f.IO.Out, "    hint: %s\n", c.Hint)
			}
		}
	}
	if failed {
		return &exitError{code: ExitFailed}
	}
	return nil
}
