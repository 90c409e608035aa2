package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/history"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// CleanupOptions is `ccc cleanup` as parsed.
type CleanupOptions struct {
	Dir    string
	Policy records.Policy
	DryRun bool
	JSON   bool
}

// NewCmdCleanup builds `ccc cleanup`.
func NewCmdCleanup(f *Factory, dir *string, runF func(*CleanupOptions) error) *cobra.Command {
	opts := &CleanupOptions{}
	var maxAge, failedMaxAge string
	cmd := &cobra.Command{
		Use:   "cleanup",
		Short: "Remove completed checkpoint records and those older than 7d (failed: 30d)",
		Long: `Remove old records from the repository's shared .ccc/checkpoints, aging each
by its updatedAt:
  - completed archives (<agent>-<issue>-complete.json) are removed whatever
    their age;
  - failed records move to failed/, and are removed from there once older
    than --failed-max-age (default 30d);
  - every other record — current, history, crashed — is removed once older
    than --max-age (default 7d).
A file that cannot be read as a record is never touched; it is reported.
Ages take a number of days (7d), Go durations (12h, 90m), or both (1d12h);
a bare number (7) is refused, since it could mean seconds or days.
Each removed (or, with --dry-run, removable) record is printed on stdout.` + exitStatusHelp(
			"0  done (or, with --dry-run, listed)",
			"1  a record could not be removed, or one cannot be read",
			"2  usage error",
			jsonErrorHelp),
		Example: `  ccc cleanup --dry-run
  ccc cleanup --max-age 3d --failed-max-age 14d
  ccc cleanup --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if opts.Policy.MaxAge, err = records.ParseDuration(maxAge); err != nil {
				return &usageError{fmt.Errorf("--max-age: %w", err)}
			}
			if opts.Policy.FailedMaxAge, err = records.ParseDuration(failedMaxAge); err != nil {
				return &usageError{fmt.Errorf("--failed-max-age: %w", err)}
			}
			opts.Dir = *dir
			if runF != nil {
				return runF(opts)
			}
			return cleanupRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&maxAge, "max-age", "7d", "remove records not updated for longer than this")
	fl.StringVar(&failedMaxAge, "failed-max-age", "30d", "remove failed records older than this")
	fl.BoolVarP(&opts.DryRun, "dry-run", "n", false, "print what would be removed or moved; change nothing")
	fl.BoolVar(&opts.JSON, "json", false, "print the actions as JSON")
	return cmd
}

func cleanupRun(ctx context.Context, f *Factory, opts *CleanupOptions) error {
	_, dir, err := f.recordsDir(ctx, opts.Dir)
	if err != nil {
		return err
	}
	actions, cerr := records.Cleanup(ctx, dir, opts.Policy, f.Now(), opts.DryRun)
	if actions == nil {
		actions = []records.Action{}
	}
	if opts.JSON {
		problems := []string{}
		if cerr != nil {
			problems = strings.Split(cerr.Error(), "\n")
		}
		if err := ui.JSON(f.IO.Out, struct {
			Dir      string           `json:"dir"`
			DryRun   bool             `json:"dryRun"`
			Actions  []records.Action `json:"actions"`
			Problems []string         `json:"problems"`
		}{dir, opts.DryRun, actions, problems}); err != nil {
			return err
		}
	} else {
		lines, removed, moved := history.Actions(dir, actions, opts.DryRun)
		if _, err := io.WriteString(f.IO.Out, lines); err != nil {
			return err
		}
		switch {
		case opts.DryRun:
			fmt.Fprintf(f.IO.ErrOut, "Dry run: %d record(s) would be removed, %d moved to failed/ in %s; nothing changed.\n", removed, moved, dir)
		default:
			fmt.Fprintf(f.IO.ErrOut, "Cleanup: %d record(s) removed, %d moved to failed/ in %s.\n", removed, moved, dir)
		}
	}
	if cerr != nil {
		if !opts.JSON {
			for _, line := range strings.Split(cerr.Error(), "\n") {
				fmt.Fprintln(f.IO.ErrOut, "Warning: "+line)
			}
		}
		return &exitError{code: ExitFailed}
	}
	return nil
}
