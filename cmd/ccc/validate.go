package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/progress"
)

// ValidateOptions is `ccc validate` as parsed.
type ValidateOptions struct {
	Dir  string
	File string
	JSON bool
}

// NewCmdValidate builds `ccc validate`.
func NewCmdValidate(f *Factory, dir *string, runF func(*ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{}
	cmd := &cobra.Command{
		Use:   "validate [FILE]",
		Short: "Check a progress document and report problems with file:line",
		Long: `Check .ccc-progress.md (or FILE): required sections present, an Issue line
that names an issue key like CIA-123, no duplicated section, text input.
Problems are printed on stdout as file:line: message. Merge conflict markers
(or a file with no section ccc knows, or lists nested more than 100 levels
deep, or more Markdown than ccc reads), which make a checkpoint refuse the
file, come first.` + exitStatusHelp(
			"0  no problems",
			"1  problems found, or the file cannot be read",
			"2  usage error",
			jsonErrorHelp),
		Example: `  ccc validate
  ccc validate docs/handoff.md --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.MaximumNArgs(1)(cmd, args); err != nil {
				return &usageError{err}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = *dir
			if len(args) == 1 {
				opts.File = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return validateRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the problems as a JSON array")
	return cmd
}

func validateRun(ctx context.Context, f *Factory, opts *ValidateOptions) error {
	path := opts.File
	if path == "" {
		root, err := f.root(ctx, opts.Dir)
		if err != nil {
			return err
		}
		path = filepath.Join(root, progress.FileName)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Size() > progress.MaxSize {
		return fmt.Errorf("%s is %d MB, over the %d MB limit for a progress document", path, fi.Size()>>20, progress.MaxSize>>20)
	}
	// The path is the user's to name (no confinement); still never a FIFO
	// or a device, and never more than the limit.
	data, err := projectfs.ReadProjectFile("", path, progress.MaxSize)
	if err != nil {
		return err
	}
	problems := progress.Validate(path, data)
	if opts.JSON {
		if problems == nil {
			problems = []progress.Problem{}
		}
		if err := ui.JSON(f.IO.Out, problems); err != nil {
			return err
		}
	} else {
		for _, p := range problems {
			fmt.Fprintln(f.IO.Out, p.String())
		}
	}
	if len(problems) > 0 {
		if !opts.JSON {
			fmt.Fprintf(f.IO.ErrOut, "%d problem(s) in %s\n", len(problems), path)
		}
		return &exitError{code: ExitFailed}
	}
	if !opts.JSON {
		fmt.Fprintf(f.IO.ErrOut, "%s is valid\n", path)
	}
	return nil
}
