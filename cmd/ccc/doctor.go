package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/doctor"
	"github.com/ccc-checkpoint/ccc/config"
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
type Check = doctor.Check

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

	checks = append(checks, doctor.Local(ctx, root, config.Agent(opts.Agent, f.env()))...)
	checks = append(checks, hookChecks(root)...)
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
		checks = append(checks, doctor.Tracker(ctx, tr, issue, opts.Timeout)...)
	}
	return reportDoctor(f, opts, checks)
}

func reportDoctor(f *Factory, opts *DoctorOptions, checks []Check) error {
	failed, err := doctor.Print(f.IO.Out, opts.JSON, checks)
	if err != nil {
		return err
	}
	if failed {
		return &exitError{code: ExitFailed}
	}
	return nil
}
