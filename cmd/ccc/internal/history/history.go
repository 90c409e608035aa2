// Package history is how the commands over the records present them: the
// listing of `ccc list` (List, Table, the --json lines), one record for a
// person to read (`ccc show`, Describe), `ccc cleanup`'s lines (Actions)
// and the prompt `ccc takeover` hands over (ResumePrompt).
package history

import (
	"fmt"
	"maps"
	"path/filepath"
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

// Actions are cleanup's actions, one line each ("removed x (reason, id)",
// "would move x → failed/x …" on a dry run), their paths inside dir, and
// how many records were removed and moved.
func Actions(dir string, actions []records.Action, dryRun bool) (lines string, removed, moved int) {
	var b strings.Builder
	for _, a := range actions {
		verb := map[bool]string{true: "would remove", false: "removed"}[dryRun]
		target := relPathTo(dir, a.Path)
		if a.Op == records.OpMove {
			verb = map[bool]string{true: "would move", false: "moved"}[dryRun]
			target += " → " + relPathTo(dir, a.To)
			moved++
		} else {
			removed++
		}
		fmt.Fprintf(&b, "%s %s (%s, %s)\n", verb, target, a.Reason, ui.Dash(a.ID))
	}
	return b.String(), removed, moved
}

// relPathTo shows a record's path inside the records directory.
func relPathTo(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return path
}

// ResumePrompt is the continuation prompt a record hands to the agent that
// takes its work over: its own, or one made from its steps (fallbackPrompt).
func ResumePrompt(r *records.Record) string {
	if strings.TrimSpace(r.ResumeInstructions) == "" {
		return fallbackPrompt(r)
	}
	return r.ResumeInstructions
}

// fallbackPrompt is a continuation prompt made from a record's steps, for a
// record that has none of its own (an import, a hand-written record).
func fallbackPrompt(r *records.Record) string {
	var b strings.Builder
	b.WriteString("Resume")
	if r.Issue != "" {
		b.WriteString(" " + r.Issue)
	}
	b.WriteString(", taking over from " + r.Agent + ".")
	if r.CurrentStep != "" {
		b.WriteString(" Current task: " + r.CurrentStep + ".")
	}
	if len(r.FilesModified) > 0 {
		b.WriteString(" Key files: " + strings.Join(r.FilesModified, ", ") + ".")
	}
	if len(r.NextSteps) > 0 {
		b.WriteString("\nNext action: " + r.NextSteps[0] + ".")
	}
	return b.String()
}
