package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/importer"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/progress"
)

// ImportOptions is `ccc import` as parsed from its flags.
type ImportOptions struct {
	Dir    string
	Files  []string
	Agent  string
	DryRun bool
	JSON   bool
	// WriteRecord stores an imported record (its JSON is data) and returns
	// the path it went to; with dryRun it writes nothing and returns the
	// path it would write. nil: importer.WriteRecord.
	WriteRecord importer.RecordWriter
}

// NewCmdImport builds `ccc import`.
func NewCmdImport(f *Factory, dir *string, runF func(*ImportOptions) error) *cobra.Command {
	opts := &ImportOptions{}
	cmd := &cobra.Command{
		Use:   "import FILE...",
		Short: "Turn another protocol's checkpoint files into ccc records",
		Long: `Read checkpoint files written by other agent-checkpoint tools (the four
formats below) and turn each into a ccc checkpoint record in .ccc/checkpoints/<agent>.json (shared by
all worktrees of the repository). The format is recognised from the content:

  .claude/initiative.json            milestones become tasks; a WORKFLOW-STATUS.yaml
                                     beside it (or one level up) is read too, and the
                                     newer of the two wins where they disagree
  {workflow}_{project}_{ts}.json     phases become tasks
  sitebuilder checkpoints            subtasks become tasks; acceptance criteria,
                                     errors and heartbeat carry over
  agent_checkpoints/<agent>.json     completed/current/next steps, recovery
                                     instructions, heartbeat

Fields a record has no place for are kept in its "extra" object, under their
original names. The agent is the one the file names (agent, agent_id), else
--agent, else the file's base name. When the project has no .ccc-progress.md
yet, the first file imported also creates one. A record that already exists
for the agent is replaced and kept in its history (ccc list, ccc show ID).

A file that is not JSON, or not a checkpoint of a known protocol, is reported
with its path (and line and column for a syntax error) and nothing is written
for it; the other files are still imported.` + exitStatusHelp(
			"0  every file was imported (or, with --dry-run, would be)",
			"1  at least one file could not be read, recognised or written",
			"2  usage error"),
		Example: `  ccc import .claude/initiative.json
  ccc import agent_checkpoints/*.json
  ccc import --agent migration progress/checkpoints/migration-T060.json
  ccc import --dry-run .claude/checkpoints/orchestrate_auth_system_20251003_184530.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{errors.New("import: name at least one checkpoint file")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = *dir
			opts.Files = args
			if opts.Agent != "" && importer.SafeName(opts.Agent) != opts.Agent {
				return &usageError{fmt.Errorf("--agent %q: use letters, digits, '.', '_' and '-' only", opts.Agent)}
			}
			if runF != nil {
				return runF(opts)
			}
			return importRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Agent, "agent", "", "agent for files that name none (default: the file's base name)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print what would be written, write nothing")
	fl.BoolVar(&opts.JSON, "json", false, "print the result as one JSON object on stdout")
	return cmd
}

func importRun(ctx context.Context, f *Factory, opts *ImportOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	fopts := importer.FileOptions{Agent: opts.Agent, DryRun: opts.DryRun, Write: opts.WriteRecord, Now: f.Now(),
		ProgressPath: filepath.Join(root, progress.FileName)}
	_, statErr := os.Stat(fopts.ProgressPath)
	needProgress := errors.Is(statErr, os.ErrNotExist)

	var results []importer.Result
	failed := 0
	seen := map[string]string{} // record path → the file it came from
	for _, file := range opts.Files {
		res := importer.ImportFile(ctx, root, file, fopts, &needProgress)
		if res.Error != nil {
			failed++
		} else if prev, ok := seen[res.RecordPath]; ok {
			res.Warnings = append(res.Warnings, fmt.Sprintf("replaces the record just imported from %s (same agent); pass the files one at a time with --agent to keep both", prev))
		}
		if res.RecordPath != "" {
			seen[res.RecordPath] = file
		}
		results = append(results, res)
		if !opts.JSON {
			printImport(f, root, res, opts.DryRun)
		}
	}
	if opts.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(struct {
			DryRun  bool              `json:"dryRun"`
			Imports []importer.Result `json:"imports"`
		}{opts.DryRun, results}); err != nil {
			return err
		}
	} else if opts.DryRun {
		fmt.Fprintln(f.IO.ErrOut, "Dry run: nothing was written.")
	}
	if failed > 0 {
		return &exitError{code: ExitFailed, err: fmt.Errorf("import: %d of %d file(s) not imported", failed, len(opts.Files))}
	}
	return nil
}

func printImport(f *Factory, root string, res importer.Result, dryRun bool) {
	if res.Error != nil {
		markStatus(f.IO, 'X', "Failed: "+res.Error.Message)
		return
	}
	verb, pverb := "Imported", "Created"
	if dryRun {
		verb, pverb = "Would import", "Would create"
	}
	markStatus(f.IO, 'v', fmt.Sprintf("%s %s as agent %s → %s", verb, res.Source, res.Agent, rootRel(root, res.RecordPath)))
	for _, w := range res.Warnings {
		markStatus(f.IO, '!', "Warning: "+w)
	}
	if res.ProgressPath != "" {
		markStatus(f.IO, 'v', fmt.Sprintf("%s %s", pverb, rootRel(root, res.ProgressPath)))
	}
	if dryRun {
		fmt.Fprintf(f.IO.Out, "--- %s (from %s)\n%s", rootRel(root, res.RecordPath), res.Source, res.Record)
		if res.ProgressPath != "" {
			fmt.Fprintf(f.IO.Out, "--- %s\n%s", rootRel(root, res.ProgressPath), res.Progress)
		}
	}
}

// markStatus writes a status line to stderr (ui.Mark).
func markStatus(io IOStreams, kind rune, text string) { ui.Mark(io.ErrOut, io.ErrTTY, kind, text) }

// rootRel shows a path under root relative to it, others as they are.
func rootRel(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return path
}
