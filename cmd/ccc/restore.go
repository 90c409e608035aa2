package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/state/records"
	"github.com/ccc-checkpoint/ccc/state/restore"
)

// RestoreOptions is `ccc restore` as parsed from its flags.
type RestoreOptions struct {
	Dir string
	// Agent owns the record (default $CCC_AGENT, else main).
	Agent string
	// Files are the files named with --file; none means repair mode.
	Files []string
	List  bool
	JSON  bool
}

// NewCmdRestore builds `ccc restore`.
func NewCmdRestore(f *Factory, dir *string, runF func(*RestoreOptions) error) *cobra.Command {
	opts := &RestoreOptions{}
	cmd := &cobra.Command{
		Use:   "restore",
		Short: "Restore .ccc-state.json, .ccc-progress.md or an agent's record from a backup",
		Long: `Restore a file ccc keeps from its newest valid backup. ccc backs a file up
before it replaces it and keeps the last 10 backups of each in .ccc/backups:

  state      .ccc-state.json
  progress   .ccc-progress.md
  record     the agent's checkpoint record, .ccc/checkpoints/<agent>.json

Every backup is checked before it is used (state: a JSON object; progress:
text that parses as a progress file; record: a checkpoint record with a
schemaVersion, of this agent); a corrupt one is skipped for the next older,
and so is one identical to the file as it is. The file being replaced is
itself backed up first (a corrupt one is set aside as .corrupt, never
pruned), so a restore can be undone by restoring again.

Without --file, restore repairs: each of the three files that exists but is
not valid is restored; valid and missing files are left as they are. Name a
file with --file to roll it back, or bring it back, whatever its state.

--list shows the backups of each file, newest first, and whether each is
valid; it changes nothing.` + exitStatusHelp(
			"0  restored what was asked (or nothing needed restoring); --list printed",
			"1  a file that needed restoring has no valid backup, or could not be written",
			"2  usage error"),
		Example: `  # repair whatever is corrupt
  ccc restore

  # roll the progress file back to its previous version
  ccc restore --file progress

  # an agent's record
  ccc restore --file record --agent secondary-a

  ccc restore --list
  ccc restore --list --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, k := range opts.Files {
				if !slices.Contains(restore.Kinds, k) {
					return &usageError{fmt.Errorf("--file %q: want state, progress or record", k)}
				}
			}
			if opts.Agent != "" {
				if err := records.ValidAgent(opts.Agent); err != nil {
					return &usageError{fmt.Errorf("--agent: %w", err)}
				}
			}
			opts.Dir = *dir
			if runF != nil {
				return runF(opts)
			}
			return restoreRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.Files, "file", nil, "the file to restore: state, progress or record (repeatable; default: repair every corrupt one)")
	fl.StringVar(&opts.Agent, "agent", "", "the agent whose record to restore or list (default $CCC_AGENT, else main; --list without it lists every agent)")
	fl.BoolVar(&opts.List, "list", false, "list the backups and whether each is valid; change nothing")
	fl.BoolVar(&opts.JSON, "json", false, "print the result as JSON on stdout")
	return cmd
}

func restoreRun(ctx context.Context, f *Factory, opts *RestoreOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	agent := config.Agent(opts.Agent, f.env())
	// Listing without --agent covers every agent that has backups.
	targets, err := restore.Targets(ctx, root, opts.Files, agent, opts.List && opts.Agent == "")
	if err != nil {
		return err
	}
	if opts.List {
		return restoreList(f, root, targets, opts.JSON)
	}
	var results []restore.Result
	failed := 0
	for _, t := range targets {
		r := restore.One(ctx, t, len(opts.Files) > 0, f.Now())
		if r.Action == restore.Failed {
			failed++
		}
		results = append(results, r)
	}
	if opts.JSON {
		if err := restoreJSON(f, results); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			printRestore(f, root, r)
		}
	}
	if failed > 0 {
		return &exitError{code: ExitFailed, err: fmt.Errorf("restore: %d file(s) not restored", failed)}
	}
	return nil
}

func restoreList(f *Factory, root string, targets []restore.Target, asJSON bool) error {
	ls, err := restore.List(targets)
	if err != nil {
		return err
	}
	if asJSON {
		return restoreJSON(f, ls)
	}
	for _, l := range ls {
		name := l.Kind
		if l.Agent != "" {
			name += " " + l.Agent
		}
		fmt.Fprintf(f.IO.Out, "%s (%s): ", name, rootRel(root, l.Path))
		if len(l.Backups) == 0 {
			fmt.Fprintln(f.IO.Out, "no backups")
			continue
		}
		fmt.Fprintf(f.IO.Out, "%d backup(s), newest first\n", len(l.Backups))
		for _, b := range l.Backups {
			status := "valid"
			if !b.Valid {
				status = "corrupt: " + b.Problem
			}
			fmt.Fprintf(f.IO.Out, "  %s  %s  %s\n", b.Time.UTC().Format("2006-01-02 15:04:05"), rootRel(root, b.Path), status)
		}
	}
	return nil
}

func printRestore(f *Factory, root string, r restore.Result) {
	name := rootRel(root, r.Path)
	for _, s := range r.Skipped {
		markStatus(f.IO, '!', fmt.Sprintf("Skipped backup %s: %s", rootRel(root, s.Path), s.Problem))
	}
	switch r.Action {
	case restore.Restored:
		line := fmt.Sprintf("Restored %s from %s", name, rootRel(root, r.From))
		if r.Kept != "" {
			line += fmt.Sprintf("; the file it replaced is kept as %s", rootRel(root, r.Kept))
		}
		markStatus(f.IO, 'v', line)
	case restore.Unchanged:
		markStatus(f.IO, 'v', fmt.Sprintf("%s is %s", name, r.Message))
	case restore.Failed:
		markStatus(f.IO, 'X', fmt.Sprintf("Failed: %s: %s", name, r.Message))
	}
}

func restoreJSON(f *Factory, v any) error {
	enc := json.NewEncoder(f.IO.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
