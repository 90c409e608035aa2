// Package history is how `ccc list` and `ccc show` present the records:
// the listing (List, Table, the --json lines) and one record for a person
// to read (Describe).
package history

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// Listed is one line of `ccc list --json`.
type Listed struct {
	ID        string       `json:"id"`
	Agent     string       `json:"agent"`
	Issue     string       `json:"issue"`
	Status    string       `json:"status"`
	Kind      records.Kind `json:"kind"`
	UpdatedAt *time.Time   `json:"updatedAt"`
	Path      string       `json:"path"`
}

// List is every record of all, or only agent's when agent is set.
func List(all []records.Stored, agent string) []Listed {
	listed := []Listed{}
	for _, s := range all {
		if agent != "" && s.Agent != agent {
			continue
		}
		l := Listed{ID: s.ID, Agent: s.Agent, Issue: s.Issue, Status: s.Status, Kind: s.Kind, Path: s.Path}
		if !s.UpdatedAt.IsZero() {
			at := s.UpdatedAt.UTC()
			l.UpdatedAt = &at
		}
		listed = append(listed, l)
	}
	return listed
}

// Table is the listing as an aligned table, each record's age at now.
func Table(listed []Listed, now time.Time) string {
	rows := [][]string{{"ID", "AGENT", "ISSUE", "STATUS", "KIND", "UPDATED"}}
	for _, l := range listed {
		updated := "—"
		if l.UpdatedAt != nil {
			updated = ui.Age(max(now.Sub(*l.UpdatedAt), 0)) + " ago"
		}
		rows = append(rows, []string{ui.Dash(l.ID), l.Agent, ui.Dash(l.Issue), l.Status, string(l.Kind), updated})
	}
	return ui.Table(rows)
}

// Describe is a record for a person to read.
func Describe(s records.Stored, now time.Time) string {
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
		git += " at " + ui.ShortSHA(r.Head)
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
