package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/history"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// ListOptions is `ccc list` as parsed.
type ListOptions struct {
	Dir   string
	Agent string
	JSON  bool
	// All lists the checkpoint branch's checkpoints of every machine,
	// fetched from Remote.
	All    bool
	Remote string
}

// NewCmdList builds `ccc list`, the records' history.
func NewCmdList(f *Factory, dir *string, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"history"},
		Short:   "List the checkpoint records kept for the repository's agents, newest first",
		Long: `List every checkpoint record in the repository's shared .ccc/checkpoints,
newest first: each agent's current record, the earlier versions kept as
history (the newest 100 per agent), completed archives, records set aside by
ccc takeover, and failed records. ccc show ID prints one of them; ccc cleanup
removes old ones.

--all lists instead every checkpoint of every agent on every machine, newest
first, from the checkpoint branch (fetched from --remote, default the
handoff remote, else origin; see ccc status --all), each with whether its
entry is signed by a trusted key: those of the branch's current epoch, then
one line saying what retention pruned before it (handoff.keep,
handoff.keep_for; ccc sync --help). ccc history is another name for ccc
list.` + exitStatusHelp(
			"0  the records were listed (some unreadable ones are reported as warnings)",
			"1  the project or the records directory cannot be read",
			"2  usage error",
			jsonErrorHelp),
		Example: `  ccc list
  ccc list --agent a
  ccc history --all
  ccc list --json | jq -r '.records[] | select(.kind == "crashed") | .id'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Dir = *dir
			if runF != nil {
				return runF(opts)
			}
			return listRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "only this agent's records")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the records as JSON")
	cmd.Flags().BoolVar(&opts.All, "all", false, "every machine's checkpoints, from the checkpoint branch (fetched)")
	cmd.Flags().StringVar(&opts.Remote, "remote", "", "with --all: the remote to fetch the branch from (default: the handoff remote, else origin)")
	return cmd
}

// ListedRecord is one line of `ccc list --json`.
type ListedRecord = history.Listed

func listRun(ctx context.Context, f *Factory, opts *ListOptions) error {
	if opts.All || opts.Remote != "" {
		return listAllRun(ctx, f, opts)
	}
	_, dir, err := f.recordsDir(ctx, opts.Dir)
	if err != nil {
		return err
	}
	all, rerr := records.All(dir)
	if rerr != nil && !opts.JSON {
		for _, line := range strings.Split(rerr.Error(), "\n") {
			fmt.Fprintln(f.IO.ErrOut, "Warning: "+line)
		}
	}
	listed := history.List(all, opts.Agent)
	if opts.JSON {
		warnings := []string{}
		if rerr != nil {
			warnings = strings.Split(rerr.Error(), "\n")
		}
		return ui.JSON(f.IO.Out, struct {
			Dir      string         `json:"dir"`
			Records  []ListedRecord `json:"records"`
			Warnings []string       `json:"warnings"`
		}{dir, listed, warnings})
	}
	if len(listed) == 0 {
		fmt.Fprintf(f.IO.ErrOut, "No records in %s.\n", dir)
		return nil
	}
	_, err = io.WriteString(f.IO.Out, history.Table(listed, f.Now()))
	return err
}

// ShowOptions is `ccc show` as parsed.
type ShowOptions struct {
	Dir  string
	ID   string
	JSON bool
}

// NewCmdShow builds `ccc show ID`.
func NewCmdShow(f *Factory, dir *string, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print one checkpoint record (an id from ccc list, or an agent's name)",
		Long: `Print one checkpoint record: the one with this id (ccc list shows them), or,
when ID is an agent's name, that agent's current record. --json prints the
record itself.` + exitStatusHelp(
			"0  the record was printed",
			"1  no record has this id, or it cannot be read",
			"2  usage error",
			jsonErrorHelp),
		Example: `  ccc show a
  ccc show a-CIA-12-20261121-134500
  ccc show a --json | jq -r .resumeInstructions`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{fmt.Errorf("show takes one ID, got %d arguments", len(args))}
			}
			opts.ID, opts.Dir = args[0], *dir
			if runF != nil {
				return runF(opts)
			}
			return showRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the record as JSON")
	return cmd
}

func showRun(ctx context.Context, f *Factory, opts *ShowOptions) error {
	_, dir, err := f.recordsDir(ctx, opts.Dir)
	if err != nil {
		return err
	}
	s, err := records.Find(dir, opts.ID)
	if errors.Is(err, records.ErrNotFound) {
		return fmt.Errorf("show: no record %q in %s (ccc list shows them)", opts.ID, dir)
	}
	if err != nil {
		return err
	}
	if opts.JSON {
		data, err := records.Encode(s.Record)
		if err != nil {
			return err
		}
		_, err = f.IO.Out.Write(data)
		return err
	}
	_, err = io.WriteString(f.IO.Out, history.Describe(s, f.Now()))
	return err
}
