//go:build gendocs

package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/gendocs"
)

// devCommands are the commands of a ccc built with -tags gendocs: the
// hidden gen-docs. The shipped binary has none (devcommands.go), so that
// cobra/doc, blackfriday and their YAML library stay out of every hook's
// start-up (issue 26).
func devCommands() []*cobra.Command {
	return []*cobra.Command{NewCmdGenDocs(nil)}
}

// NewCmdGenDocs builds the hidden `ccc gen-docs` (in a build with -tags
// gendocs), which writes the command reference from the command tree
// itself: docs/ (checked by TestDocsAreCurrent) and man pages for packagers.
func NewCmdGenDocs(runF func(*gendocs.Options) error) *cobra.Command {
	opts := &gendocs.Options{}
	cmd := &cobra.Command{
		Use:    "gen-docs --markdown DIR [--man DIR]",
		Short:  "Write the command reference as Markdown (and man pages)",
		Hidden: true,
		Long: `Write one Markdown page per command into the --markdown directory (the
repository keeps them in docs/), and with --man one man page per command
(section 1) into that directory. The pages are the commands' --help text; the
Markdown carries no date, so regenerating an unchanged tree changes nothing.
The man pages' date is $SOURCE_DATE_EPOCH when set, else today. Only a ccc
built with -tags gendocs has this command.` + exitStatusHelp(
			"0  the pages were written",
			"1  a page could not be written",
			"2  usage error (neither --markdown nor --man given)"),
		Example: `  go run -tags gendocs ./cmd/ccc gen-docs --markdown docs
  go run -tags gendocs ./cmd/ccc gen-docs --markdown /tmp/md --man /tmp/man`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.NoArgs(cmd, args); err != nil {
				return &usageError{err}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.MarkdownDir == "" && opts.ManDir == "" {
				return &usageError{errors.New("give --markdown DIR, --man DIR or both")}
			}
			if runF != nil {
				return runF(opts)
			}
			return gendocs.Generate(cmd.Root(), *opts)
		},
	}
	cmd.Flags().StringVar(&opts.MarkdownDir, "markdown", "", "write one Markdown page per command into `DIR`")
	cmd.Flags().StringVar(&opts.ManDir, "man", "", "write one man page per command into `DIR`")
	return cmd
}
