package main

import (
	"context"
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
type Check = doctor.Result

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
  branch  with the checkpoint branch on (handoff.remote): the remote exists
          and answers (git ls-remote), .ccc-signers reads, and whether the
          remote has this clone's branch (the last ccc sync pushed it);
          its epoch, length and retention rule (handoff.keep, keep_for).

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
	e := &doctor.Env{
		Agent: config.Agent(opts.Agent, f.env()), Now: f.Now(),
		Settings:  f.settings(),
		UserPrefs: func() error { _, err := f.settings().UserPrefs(); return err },
		Issue:     opts.Issue, Timeout: opts.Timeout,
		SignIn: func(ctx context.Context) []Check { return linearSignInCheck(ctx, f, opts.Timeout) },
		Trackers: func(root string, prefs config.Prefs) ([]checkpoint.Tracker, []string) {
			return f.trackers(root, prefs, opts.Trackers)
		},
	}
	e.Root, e.RootErr = f.root(ctx, opts.Dir)
	failed, err := doctor.Print(f.IO.Out, opts.JSON, doctor.Run(ctx, e, doctor.Checks))
	if err != nil {
		return err
	}
	if failed {
		return &exitError{code: ExitFailed}
	}
	return nil
}
