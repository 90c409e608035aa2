// Package status is `ccc status`'s view of the agents: the report --json
// prints (Report, from records.Collect, redacted), the aligned table with
// its health colours (Table), the STATUS.md Markdown table (Markdown) and a
// --watch frame (Frame). The command gathers and prints; this package only
// renders. (It sits under cmd/ccc/internal rather than internal/ui because
// it reads state/records, which internal/ may not import; the generic
// pieces — Age, Clip, MarkdownTable, Redraw — are in internal/ui.)
package status

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// Report is what `ccc status --json` prints.
type Report struct {
	Now        time.Time             `json:"now"`
	Dir        string                `json:"dir"`
	WarnAfter  string                `json:"warnAfter"`
	StaleAfter string                `json:"staleAfter"`
	Agents     []records.AgentStatus `json:"agents"`
	// Stale counts the STALE agents (exit status 4 when any).
	Stale int `json:"stale"`
	// Unknown counts the agents whose record cannot be read (exit status 1
	// when any and none is STALE).
	Unknown  int      `json:"unknown"`
	Warnings []string `json:"warnings"`
}

// FromRecords is the report of st, redacted.
func FromRecords(st records.Status) Report {
	rep := Report{
		Now: st.Now, Dir: st.Dir,
		WarnAfter: ui.Age(st.Thresholds.WarnAfter), StaleAfter: ui.Age(st.Thresholds.StaleAfter),
		Agents: st.Agents, Stale: st.Stale, Unknown: st.Unknown, Warnings: st.Warnings,
	}
	Redact(&rep)
	return rep
}

// Redact redacts the text of every record in rep, before anything prints
// or cuts it: records and the outbox live in .ccc, which a repository can
// commit, and --json prints them whole.
func Redact(rep *Report) {
	// One screen over all the text first: every part of a clean text is
	// clean (redact's Clean), so when it is, no field needs its own pass
	// (seven a row: a thousand agents' rows were 7,000 passes, issue 26).
	n := 0
	eachText(rep, func(s *string) { n += len(*s) + 1 })
	var all strings.Builder
	all.Grow(n)
	eachText(rep, func(s *string) { all.WriteString(*s); all.WriteByte('\n') })
	if redact.Default().Clean(all.String()) {
		return
	}
	eachText(rep, func(s *string) { *s, _ = redact.Text(*s) })
}

// eachText calls f with every text of rep that comes from a record, the
// outbox or a warning.
func eachText(rep *Report, f func(*string)) {
	for i := range rep.Agents {
		a := &rep.Agents[i]
		for _, s := range [...]*string{&a.Agent, &a.ID, &a.Issue, &a.Task, &a.Drift, &a.Error, &a.Queued.LastError} {
			f(s)
		}
		for j := range a.Subagents {
			f(&a.Subagents[j].LastMessage)
		}
	}
	for i := range rep.Warnings {
		f(&rep.Warnings[i])
	}
}

var healthStyle = map[string]struct{ icon, colour string }{
	string(records.Active):  {"✓", "32"},
	string(records.Warning): {"!", "33"},
	string(records.Stale):   {"X", "31"},
	"DRIFTED":               {"~", "35"},
	string(records.Unknown): {"?", "31"},
}

// Table renders the agents as an aligned table, each subagent a child row,
// then a note for each drifted or unreadable agent; colour adds icons and
// colours to the health column.
func Table(rep Report, colour bool) string {
	now := rep.Now
	rows := make([][]string, 0, len(rep.Agents)+1)
	rows = append(rows, []string{"AGENT", "ISSUE", "TASK", "PROGRESS", "UPDATED", "STATUS", "HEALTH", "QUEUED"})
	// The agents' cells in one array rather than a slice per row.
	const columns = 8
	cells := make([]string, columns*len(rep.Agents))
	var notes []string
	for _, a := range rep.Agents {
		if a.Drifted {
			notes = append(notes, fmt.Sprintf("%s: DRIFTED — %s", a.Agent, a.Drift))
		}
		if a.Error != "" {
			notes = append(notes, fmt.Sprintf("%s: UNKNOWN — %s", a.Agent, a.Error))
		}
		row := cells[:columns:columns]
		cells = cells[columns:]
		row[0], row[1], row[2], row[3] = a.Agent, ui.Dash(a.Issue), ui.Dash(ui.Clip(a.Task, 40)), progressCell(a)
		row[4], row[5], row[6], row[7] = updatedCell(a, now), ui.Dash(a.Status), healthCell(a, colour), queuedCell(a.Queued, now)
		rows = append(rows, row)
		rows = append(rows, subagentRows(a, now)...)
	}
	table := ui.Table(rows)
	if len(notes) == 0 {
		return table
	}
	var b strings.Builder
	b.Grow(len(table) + 100*len(notes))
	b.WriteString(table)
	for _, n := range notes {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	return b.String()
}

// colouredHealth is each level of healthStyle with its icon and colour,
// made once rather than for every row.
var colouredHealth = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, len(healthStyle))
	for l, st := range healthStyle {
		m[l] = ui.Colour(st.colour, st.icon+" "+l)
	}
	return m
})

// healthCell is the agent's health, and DRIFTED after it when the
// repository moved; "—" when it has neither.
func healthCell(a records.AgentStatus, colour bool) string {
	if !a.Drifted && a.Health != "" { // one level: most rows
		if !colour {
			return a.Health
		}
		if c, ok := colouredHealth()[a.Health]; ok {
			return c
		}
	}
	var levels []string
	if a.Health != "" {
		levels = append(levels, a.Health)
	}
	if a.Drifted {
		levels = append(levels, "DRIFTED")
	}
	if len(levels) == 0 {
		return "—"
	}
	if colour {
		for i, l := range levels {
			st := healthStyle[l]
			levels[i] = ui.Colour(st.colour, st.icon+" "+l)
		}
	}
	return strings.Join(levels, " ")
}

func progressCell(a records.AgentStatus) string {
	if a.Total == 0 {
		return "—"
	}
	return strconv.Itoa(a.Completed) + "/" + strconv.Itoa(a.Total) + " " + strconv.Itoa(a.Percent) + "%"
}

// updatedCell is the age of the last checkpoint, and of the last heartbeat
// when that is more recent.
func updatedCell(a records.AgentStatus, now time.Time) string {
	if a.UpdatedAt == nil {
		if a.LastBeat != nil {
			return "beat " + ui.Age(max(now.Sub(*a.LastBeat), 0))
		}
		return "—"
	}
	s := ui.Age(max(now.Sub(*a.UpdatedAt), 0))
	if a.LastBeat != nil && a.LastBeat.After(*a.UpdatedAt) {
		s += " (beat " + ui.Age(max(now.Sub(*a.LastBeat), 0)) + ")"
	}
	return s
}

func queuedCell(q records.QueuedStatus, now time.Time) string {
	if q.Count == 0 {
		return "—"
	}
	s := fmt.Sprintf("%d, oldest %s", q.Count, ui.Age(max(now.Sub(*q.Oldest), 0)))
	if q.LastError != "" {
		s += ": " + ui.Clip(q.LastError, 40)
	}
	return s
}

// subagentRows are an agent's subagents as child rows: type and id, what
// its own list has in progress (else its last message) and its count, the
// age, running or stopped.
func subagentRows(a records.AgentStatus, now time.Time) [][]string {
	var rows [][]string
	for _, s := range a.Subagents {
		id := s.ID
		if len(id) > 8 {
			id = id[:8]
		}
		task, progress := s.LastMessage, ""
		if s.Task != "" {
			task = s.Task
		}
		if s.Total > 0 {
			progress = fmt.Sprintf("%d/%d", s.Done, s.Total)
		}
		rows = append(rows, []string{"└ " + ui.Dash(s.Type) + " " + id, "", ui.Dash(ui.Clip(task, 40)), progress,
			ui.Age(now.Sub(s.UpdatedAt)), s.Status, "", ""})
	}
	return rows
}

// Markdown is seed 002's STATUS.md table, with a health column, its
// columns lined up in the raw text too (ui.MarkdownTable).
func Markdown(rep Report) string {
	rows := [][]string{{"Agent", "Task", "Progress", "Last Update", "Status", "Health"}}
	for _, a := range rep.Agents {
		progress := "—"
		if a.Total > 0 {
			progress = fmt.Sprintf("%d%%", a.Percent)
		}
		updated := "—"
		if a.UpdatedAt != nil {
			updated = ui.MinutesAgo(rep.Now.Sub(*a.UpdatedAt))
		}
		health := ui.Dash(a.Health)
		if a.Drifted {
			health += " DRIFTED"
		}
		rows = append(rows, []string{ui.MarkdownCell(a.Agent), ui.MarkdownCell(ui.Dash(a.Issue)), progress, updated,
			ui.MarkdownCell(ui.Dash(a.Status)), health})
	}
	return "## Active Checkpoints\n\n" + ui.MarkdownTable(rows)
}

// Frame is one --watch frame: a heading with the time and interval, then
// the table, the error that stopped the collection, or the note that there
// are no agents; the warnings last.
func Frame(now time.Time, every time.Duration, rep Report, err error, colour bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ccc status — %s — every %s, Ctrl-C to stop\n\n", now.UTC().Format("2006-01-02 15:04:05Z"), every)
	switch {
	case err != nil:
		fmt.Fprintf(&b, "Error: %v\n", err)
	case len(rep.Agents) == 0:
		fmt.Fprintf(&b, "No agent records in %s.\n", rep.Dir)
	default:
		b.WriteString(Table(rep, colour))
	}
	for _, w := range rep.Warnings {
		b.WriteString("Warning: " + w + "\n")
	}
	return b.String()
}
