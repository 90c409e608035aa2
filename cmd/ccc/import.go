package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/internal/importer"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// RecordWriter stores one imported record; see ImportOptions.WriteRecord.
type RecordWriter func(ctx context.Context, root string, im *importer.Imported, data []byte, now time.Time, dryRun bool) (string, error)

// ImportOptions is `ccc import` as parsed from its flags.
type ImportOptions struct {
	Dir    string
	Files  []string
	Agent  string
	DryRun bool
	JSON   bool
	// WriteRecord stores an imported record (its JSON is data) and returns
	// the path it went to; with dryRun it writes nothing and returns the
	// path it would write. nil: writeImportedRecord.
	WriteRecord RecordWriter
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

// importResult is one file's outcome, as --json prints it.
type importResult struct {
	Source       string          `json:"source"`
	Format       string          `json:"format,omitempty"`
	Agent        string          `json:"agent,omitempty"`
	RecordPath   string          `json:"recordPath,omitempty"`
	Record       json.RawMessage `json:"record,omitempty"`
	ProgressPath string          `json:"progressPath,omitempty"`
	Progress     string          `json:"progress,omitempty"`
	Warnings     []string        `json:"warnings,omitempty"`
	Error        *importError    `json:"error,omitempty"`
}

type importError struct {
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

func importRun(ctx context.Context, f *Factory, opts *ImportOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	write := opts.WriteRecord
	if write == nil {
		write = writeImportedRecord
	}
	now := f.Now()
	progressPath := filepath.Join(root, progress.FileName)
	_, statErr := os.Stat(progressPath)
	needProgress := errors.Is(statErr, os.ErrNotExist)

	var results []importResult
	failed := 0
	seen := map[string]string{} // record path → the file it came from
	for _, file := range opts.Files {
		res := importFile(ctx, root, file, opts, write, now, progressPath, &needProgress)
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
			DryRun  bool           `json:"dryRun"`
			Imports []importResult `json:"imports"`
		}{opts.DryRun, results}); err != nil {
			return err
		}
	} else if opts.DryRun {
		fmt.Fprintln(f.IO.ErrOut, "Dry run: nothing was written.")
	}
	if failed > 0 {
		return &exitError{code: 1, err: fmt.Errorf("import: %d of %d file(s) not imported", failed, len(opts.Files))}
	}
	return nil
}

// importFile imports one file; a failure is reported in the result, and
// nothing is written for that file.
func importFile(ctx context.Context, root, file string, opts *ImportOptions, write RecordWriter,
	now time.Time, progressPath string, needProgress *bool) importResult {
	res := importResult{Source: file}
	fail := func(err error) importResult {
		res.Error = &importError{Message: err.Error()}
		var ie *importer.Error
		if errors.As(err, &ie) {
			res.Error.Line, res.Error.Column = ie.Line, ie.Col
		}
		return res
	}
	if fi, err := os.Stat(file); err == nil && fi.Size() > importer.MaxSize {
		return fail(importer.TooBig(file, fi.Size())) // not read at all
	}
	// The file is often a repository's own: never a FIFO or a device.
	data, err := projectfs.ReadProjectFile("", file, importer.MaxSize)
	if err != nil {
		return fail(fmt.Errorf("import: %w", err))
	}
	im, err := importer.Import(file, data, importer.Options{Agent: opts.Agent, Now: now})
	if err != nil {
		return fail(err)
	}
	rec, err := im.RecordJSON()
	if err != nil {
		return fail(err)
	}
	// Never write a record ccc itself could not read back.
	if _, _, err := records.Decode(file, rec); err != nil {
		return fail(fmt.Errorf("import: %s: the record built is not valid: %w", file, err))
	}
	res.Format, res.Agent, res.Record, res.Warnings = string(im.Format), im.Agent, rec, im.Warnings
	if res.RecordPath, err = write(ctx, root, im, rec, now, opts.DryRun); err != nil {
		return fail(err)
	}
	if !*needProgress {
		return res
	}
	md := im.Progress.Render()
	if !opts.DryRun {
		if err := createProgress(ctx, root, progressPath, md); err != nil {
			if errors.Is(err, projectfs.ErrChanged) {
				res.Warnings = append(res.Warnings, progress.FileName+" appeared meanwhile; left as it is")
				*needProgress = false
				return res
			}
			return fail(fmt.Errorf("import: %s: %w", progress.FileName, err))
		}
	}
	*needProgress = false
	res.ProgressPath, res.Progress = progressPath, string(md)
	return res
}

// createProgress writes a new progress file under the project lock; one
// that appeared since the check is left alone (projectfs.ErrChanged).
func createProgress(ctx context.Context, root, path string, md []byte) error {
	unlock, err := projectfs.Lock(ctx, root)
	if err != nil {
		return err
	}
	defer unlock()
	return projectfs.ReplaceFile(path, nil, md, 0o644)
}

// writeImportedRecord puts an imported record where records keeps it: the
// agent's current record, or, like a checkpoint that finishes, the complete
// archive or failed/. A record it replaces is kept in the agent's history
// (and as a backup).
func writeImportedRecord(ctx context.Context, root string, im *importer.Imported, _ []byte, now time.Time, dryRun bool) (string, error) {
	dir, err := records.Dir(ctx, root)
	if err != nil {
		return "", err
	}
	if dryRun {
		return records.StorePath(dir, &im.Record), nil
	}
	path, err := records.Put(ctx, dir, &im.Record, now)
	if err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	return path, nil
}

func printImport(f *Factory, root string, res importResult, dryRun bool) {
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

// markStatus writes a status line to stderr: ✓ (v), ! or X and colour on a
// terminal, the bare text elsewhere.
func markStatus(io IOStreams, kind rune, text string) {
	if !io.ErrTTY {
		fmt.Fprintln(io.ErrOut, text)
		return
	}
	mark, colour := "✓", "32"
	switch kind {
	case '!':
		mark, colour = "!", "33"
	case 'X':
		mark, colour = "X", "31"
	}
	fmt.Fprintf(io.ErrOut, "\x1b[%sm%s\x1b[0m %s\n", colour, mark, text)
}

// rootRel shows a path under root relative to it, others as they are.
func rootRel(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return path
}
