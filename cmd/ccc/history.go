package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// ListOptions is `ccc list` as parsed.
type ListOptions struct {
	Dir   string
	Agent string
	JSON  bool
}

// NewCmdList builds `ccc list`, the records' history.
func NewCmdList(f *Factory, dir *string, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the checkpoint records kept for the repository's agents, newest first",
		Long: `List every checkpoint record in the repository's shared .ccc/checkpoints,
newest first: each agent's current record, the earlier versions kept as
history (the newest 100 per agent), completed archives, records set aside by
ccc takeover, and failed records. ccc show ID prints one of them; ccc cleanup
removes old ones.` + exitStatusHelp(
			"0  the records were listed (some unreadable ones are reported as warnings)",
			"1  the project or the records directory cannot be read",
			"2  usage error",
			jsonErrorHelp),
		Example: `  ccc list
  ccc list --agent a
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
	return cmd
}

// ListedRecord is one line of `ccc list --json`.
type ListedRecord struct {
	ID        string       `json:"id"`
	Agent     string       `json:"agent"`
	Issue     string       `json:"issue"`
	Status    string       `json:"status"`
	Kind      records.Kind `json:"kind"`
	UpdatedAt *time.Time   `json:"updatedAt"`
	Path      string       `json:"path"`
}

func listRun(ctx context.Context, f *Factory, opts *ListOptions) error {
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
	listed := []ListedRecord{}
	for _, s := range all {
		if opts.Agent != "" && s.Agent != opts.Agent {
			continue
		}
		l := ListedRecord{ID: s.ID, Agent: s.Agent, Issue: s.Issue, Status: s.Status, Kind: s.Kind, Path: s.Path}
		if !s.UpdatedAt.IsZero() {
			at := s.UpdatedAt.UTC()
			l.UpdatedAt = &at
		}
		listed = append(listed, l)
	}
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
	now := f.Now()
	rows := [][]string{{"ID", "AGENT", "ISSUE", "STATUS", "KIND", "UPDATED"}}
	for _, l := range listed {
		updated := "—"
		if l.UpdatedAt != nil {
			updated = ui.Age(max(now.Sub(*l.UpdatedAt), 0)) + " ago"
		}
		rows = append(rows, []string{ui.Dash(l.ID), l.Agent, ui.Dash(l.Issue), l.Status, string(l.Kind), updated})
	}
	_, err = io.WriteString(f.IO.Out, ui.Table(rows))
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
	_, err = io.WriteString(f.IO.Out, describeRecord(s, f.Now()))
	return err
}

// describeRecord is a record for a person to read.
func describeRecord(s records.Stored, now time.Time) string {
	r := s.Record
	var b strings.Builder
	line := func(label, value string) {
		if value != "" {
			fmt.Fprintf(&b, "%-11s %s\n", label+":", value)
		}
	}
	list := func(label string, items []string) {
		for i, it := range items {
			if i == 0 {
				fmt.Fprintf(&b, "%-11s - %s\n", label+":", it)
			} else {
				fmt.Fprintf(&b, "%-11s - %s\n", "", it)
			}
		}
	}
	when := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return fmt.Sprintf("%s (%s ago)", t.UTC().Format(time.RFC3339), ui.Age(max(now.Sub(t), 0)))
	}
	fmt.Fprintf(&b, "Record %s (%s, %s)\n", ui.Dash(r.ID), s.Kind, s.Path)
	line("Agent", r.Agent+" (session "+ui.Dash(r.SessionID)+")")
	line("Issue", r.Issue)
	status := r.Status
	if r.Phase != "" {
		status += ", phase " + r.Phase
	}
	line("Status", status)
	if r.Subtasks.Total > 0 {
		line("Progress", fmt.Sprintf("%d/%d (%d%%)", r.Subtasks.Completed, r.Subtasks.Total, r.Subtasks.Percent))
	}
	line("Current", r.CurrentStep)
	list("Completed", r.CompletedSteps)
	list("Next", r.NextSteps)
	list("Errors", errorLines(r))
	list("Modified", r.FilesModified)
	list("Created", r.FilesCreated)
	line("Started", when(r.CreatedAt))
	line("Updated", when(r.UpdatedAt))
	line("Heartbeat", when(r.Heartbeat.LastBeat))
	line("Finished", when(r.CompletedAt))
	git := r.Branch
	if r.Head != "" {
		git += " at " + shortSHA(r.Head)
	}
	line("Git", strings.TrimSpace(git))
	if len(r.Extra) > 0 {
		line("Extra keys", strings.Join(slices.Sorted(maps.Keys(r.Extra)), ", "))
	}
	if r.ResumeInstructions != "" {
		b.WriteString("\nContinuation prompt:\n" + strings.TrimRight(r.ResumeInstructions, "\n") + "\n")
	}
	return b.String()
}

// errorLines are a record's errors, one line each.
func errorLines(r *records.Record) []string {
	var errs []string
	for _, e := range r.Errors {
		msg := "[" + e.Type + "] " + e.Message
		if e.Blocking {
			msg += " (blocking)"
		}
		errs = append(errs, msg)
	}
	return errs
}
