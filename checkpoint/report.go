package checkpoint

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// Report is what a checkpoint run did, step by step.
type Report struct {
	Profile Profile  `json:"profile"`
	Steps   []Result `json:"steps"`
	// Error is set when the run stopped before writing anything because an
	// edit flag cannot apply (exit status 2).
	Error string `json:"error,omitempty"`
	// Broken is set when the run stopped before writing anything because
	// the progress file is too broken to touch (progress.Check,
	// progress.CheckRewrite): path:line, the problem and the fix (exit
	// status 1).
	Broken string `json:"broken,omitempty"`
	// Unsaved is set when the persist step ran and could not save the
	// progress (a read-only project, say): the other steps ran, but no
	// checkpoint exists (exit status 1).
	Unsaved   bool `json:"unsaved,omitempty"`
	Succeeded int  `json:"succeeded"`
	Total     int  `json:"total"`
	// Prompt is the continuation prompt (manual profile).
	Prompt   string   `json:"prompt,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// StatusBody is the body the tracker step delivered.
	StatusBody string `json:"-"`
	// Notices report what ccc reconciled on the way ("Sync corrected: ...").
	Notices []string `json:"notices,omitempty"`
	// Outbox lists the queued deliveries retried before this run's own.
	Outbox []SinkResult `json:"outbox,omitempty"`

	// redactor is the run's; every way out of a report (Lines, String,
	// JSON, Redact) goes through it. nil is redact.Default.
	redactor *redact.Redactor
}

// Redact replaces the credentials in s as the run that made the report
// does, for text built from the report (a CI step summary, annotations).
func (r Report) Redact(s string) string {
	out, _ := r.redactor.Redact(s)
	return out
}

// redacted returns a copy of r with the credentials replaced in every text:
// a hook that printed a token into a failing step's cause, a server that
// echoed one into a sink's error.
func (r Report) redacted() Report {
	x := r.Redact
	results := func(in []SinkResult) []SinkResult {
		if in == nil {
			return nil
		}
		out := make([]SinkResult, len(in))
		for i, sr := range in {
			sr.Target, sr.URL, sr.Error, sr.Wrote = x(sr.Target), x(sr.URL), x(sr.Error), x(sr.Wrote)
			out[i] = sr
		}
		return out
	}
	texts := func(in []string) []string {
		if in == nil {
			return nil
		}
		out := make([]string, len(in))
		for i, t := range in {
			out[i] = x(t)
		}
		return out
	}
	if r.Steps != nil {
		steps := make([]Result, len(r.Steps))
		for i, st := range r.Steps {
			st.Message, st.Consequence, st.Sinks = x(st.Message), x(st.Consequence), results(st.Sinks)
			steps[i] = st
		}
		r.Steps = steps
	}
	r.Error, r.Broken, r.Prompt, r.StatusBody = x(r.Error), x(r.Broken), x(r.Prompt), x(r.StatusBody)
	r.Warnings, r.Notices, r.Outbox = texts(r.Warnings), texts(r.Notices), results(r.Outbox)
	return r
}

// MarshalJSON encodes the report (--json) with its credentials replaced.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(plain(r.redacted()))
}

// Outcome sums up a run; the command maps it to its exit status (cmd/ccc
// keeps the one table of exit statuses).
type Outcome int

// Outcomes of a run.
const (
	OutcomeOK      Outcome = iota // every step succeeded
	OutcomeNothing                // nothing could run
	OutcomeUsage                  // the run was refused as asked (Report.Error)
	OutcomePartial                // at least one step failed, the others ran
	OutcomeUnsaved                // the progress could not be saved (Report.Unsaved)
)

// Outcome sums up the report. A tracker step that reached its sinks ran,
// even when one of them failed: that is a partial success, not "nothing
// could run".
func (r Report) Outcome() Outcome {
	switch {
	case r.Error != "":
		return OutcomeUsage
	case r.Broken != "":
		return OutcomeNothing
	case r.Unsaved:
		return OutcomeUnsaved
	case r.Succeeded == r.Total:
		return OutcomeOK
	case r.Succeeded > 0:
		return OutcomePartial
	}
	for _, s := range r.Steps {
		if len(s.Sinks) > 0 {
			return OutcomePartial
		}
	}
	return OutcomeNothing
}

// Mark is how a report line reads at a glance: on a terminal, ✓, ! or X.
type Mark int

// Marks of report lines.
const (
	MarkOK   Mark = iota // done as asked
	MarkWarn             // skipped, queued, or worth a look
	MarkFail             // failed
)

// Line is one line of the report with its mark.
type Line struct {
	Mark Mark
	Text string
}

// Lines renders the report in the protocol's words: the summary, then one
// line per skipped or failed step (and what a succeeding step did), then
// warnings.
func (r Report) Lines() []string {
	marked := r.Marked()
	lines := make([]string, len(marked))
	for i, l := range marked {
		lines[i] = l.Text
	}
	return lines
}

// Marked is Lines, each with its mark: the mark comes from what the line
// reports, never from its wording.
func (r Report) Marked() []Line {
	lines := r.lines()
	for i := range lines {
		lines[i].Text = r.Redact(lines[i].Text)
	}
	return lines
}

func (r Report) lines() []Line {
	if r.Error != "" || r.Broken != "" {
		lines := []Line{{MarkFail, fmt.Sprintf("Checkpoint not run: %s. Nothing was written.", strings.TrimSuffix(r.Error+r.Broken, "."))}}
		for _, w := range r.Warnings {
			lines = append(lines, Line{MarkWarn, "Warning: " + w})
		}
		return lines
	}
	lines := []Line{r.summary()}
	for _, s := range r.Steps {
		switch s.Status {
		case OK:
			if s.Message != "" {
				lines = append(lines, Line{MarkOK, fmt.Sprintf("%s: %s.", s.Name, strings.TrimSuffix(s.Message, "."))})
			}
		case Skipped:
			lines = append(lines, Line{MarkWarn, fmt.Sprintf("%s skipped — %s.", s.Name, strings.TrimSuffix(s.Message, "."))})
		case Failed:
			line := fmt.Sprintf("Failed: %s (%s)", s.Name, s.Message)
			if s.Consequence != "" {
				line += " — " + s.Consequence
			}
			lines = append(lines, Line{MarkFail, line + "."})
		}
		if len(s.Sinks) > 1 {
			for _, r := range s.Sinks {
				lines = append(lines, Line{r.mark(), fmt.Sprintf("  %s: %s.", r.Title, r.line())})
			}
		}
	}
	for _, n := range r.Notices {
		lines = append(lines, Line{MarkOK, n})
	}
	if n := len(r.Outbox); n > 0 {
		sent := 0
		for _, o := range r.Outbox {
			if o.Action != sinks.Failed && o.Action != sinks.Skipped {
				sent++
			}
		}
		mark := MarkOK
		if sent < n {
			mark = MarkWarn
		}
		lines = append(lines, Line{mark, fmt.Sprintf("Outbox: %d of %d queued update(s) delivered.", sent, n)})
		lines = append(lines, outboxLines(r.Outbox)...)
	}
	for _, w := range r.Warnings {
		lines = append(lines, Line{MarkWarn, "Warning: " + w})
	}
	return lines
}

// summary is the report's first line: what the run achieved, in words
// that cannot contradict the lines under it ("complete" only when every
// step succeeded or had nothing to do).
func (r Report) summary() Line {
	if r.Profile == Post {
		return r.postSummary()
	}
	failed := r.Total - r.Succeeded
	switch {
	case r.Unsaved:
		return Line{MarkFail, fmt.Sprintf("Nothing saved: %s could not be written; %d of %d steps failed.", progress.FileName, failed, r.Total)}
	case failed <= 0:
		return Line{MarkOK, fmt.Sprintf("Checkpoint complete: %d/%d steps succeeded.", r.Succeeded, r.Total)}
	case r.Succeeded == 0:
		return Line{MarkFail, fmt.Sprintf("Checkpoint failed: all %d steps failed: %s.", r.Total, r.failedSteps())}
	}
	return Line{MarkWarn, fmt.Sprintf("Checkpoint saved; %d of %d steps failed: %s.", failed, r.Total, r.failedSteps())}
}

// failedSteps names the failed steps, a tracker update whose updates wait
// in the outbox marked so.
func (r Report) failedSteps() string {
	var names []string
	for _, s := range r.Steps {
		if s.Status != Failed {
			continue
		}
		name := s.Name
		if s.Consequence == queuedConsequence {
			name += " (queued for retry)"
		}
		names = append(names, name)
	}
	return strings.Join(names, ", ")
}

// postSummary is `ccc post`'s first line: how many trackers now show the
// status.
func (r Report) postSummary() Line {
	var sinkResults []SinkResult
	for _, s := range r.Steps {
		sinkResults = append(sinkResults, s.Sinks...)
	}
	n := len(sinkResults)
	if n == 0 {
		return Line{MarkWarn, "Nothing posted."}
	}
	var posted, unchanged, failed, queued int
	for _, sr := range sinkResults {
		switch sr.Action {
		case sinks.Created, sinks.Updated:
			posted++
		case sinks.Unchanged:
			unchanged++
		case sinks.Failed:
			failed++
			if sr.Queued {
				queued++
			}
		}
	}
	trackers := func(k int) string {
		if k == 1 {
			return "1 tracker"
		}
		return fmt.Sprintf("%d trackers", k)
	}
	var parts []string
	text := fmt.Sprintf("Posted to %d of %s", posted, trackers(n))
	if posted == 0 {
		text = "Nothing posted to " + trackers(n)
	}
	switch {
	case unchanged > 0 && posted == 0 && failed == 0:
		text = fmt.Sprintf("Nothing new to post: %d of %s already up to date", unchanged, trackers(n))
	case unchanged > 0:
		parts = append(parts, fmt.Sprintf("%d already up to date", unchanged))
	}
	if failed > 0 {
		f := fmt.Sprintf("%d failed", failed)
		if queued == failed {
			f += " (queued for retry)"
		}
		parts = append(parts, f)
	}
	if skipped := n - posted - unchanged - failed; skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", skipped))
	}
	if len(parts) > 0 {
		text += "; " + strings.Join(parts, ", ")
	}
	mark := MarkOK
	switch {
	case failed > 0 && posted+unchanged == 0:
		mark = MarkFail
	case failed > 0 || posted+unchanged < n:
		mark = MarkWarn
	}
	return Line{mark, text + "."}
}

// String is Lines joined, one per line.
func (r Report) String() string { return strings.Join(r.Lines(), "\n") + "\n" }

// outboxLines says what became of each queued update, once per outcome: the
// updates of one sink that ended alike (all skipped for one missing key, say)
// share a line that names their targets.
func outboxLines(out []SinkResult) []Line {
	type group struct {
		title, line string
		mark        Mark
		targets     []string
		n           int
	}
	var groups []*group
	for _, o := range out {
		l := o.line()
		i := slices.IndexFunc(groups, func(g *group) bool { return g.title == o.Title && g.line == l })
		if i < 0 {
			groups = append(groups, &group{title: o.Title, line: l, mark: o.mark()})
			i = len(groups) - 1
		}
		g := groups[i]
		g.n++
		if !slices.Contains(g.targets, o.Target) {
			g.targets = append(g.targets, o.Target)
		}
	}
	lines := make([]Line, 0, len(groups))
	for _, g := range groups {
		what := g.title + " " + strings.Join(g.targets, ", ")
		if g.n > 1 {
			what += fmt.Sprintf(" (%d updates)", g.n)
		}
		lines = append(lines, Line{g.mark, fmt.Sprintf("  %s: %s.", what, g.line)})
	}
	return lines
}
