package machines

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/handoff"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// Report is `ccc status --all`: every agent on every machine, as the
// checkpoint branch (this clone's and the remote's) holds them.
type Report struct {
	Now    time.Time `json:"now"`
	Remote string    `json:"remote"`
	// Fetched: the remote's branch was fetched for this report.
	Fetched  bool     `json:"fetched"`
	Agents   []Agent  `json:"agents"`
	Stale    int      `json:"stale"`
	Warnings []string `json:"warnings"`
}

// Agent is one agent's row.
type Agent struct {
	Agent   string    `json:"agent"`
	Machine string    `json:"machine"`
	Host    string    `json:"host"`
	Issue   string    `json:"issue"`
	TaskN   int       `json:"taskN"`
	TaskM   int       `json:"taskM"`
	Current string    `json:"current"`
	Status  string    `json:"status"`
	Last    time.Time `json:"lastCheckpoint"`
	// Health is ACTIVE, WARNING or STALE by the age of the last
	// checkpoint (the agents: thresholds); "" for a finished agent.
	Health     string `json:"health"`
	Branch     string `json:"branch"`
	Commit     string `json:"commit"`
	Checkpoint string `json:"checkpoint"`
	// Trust is "verified", or why the entry is not believed.
	Trust string `json:"trust"`
	// Self: this machine's.
	Self bool `json:"self"`
	// TakenOverBy names the agent that took this one over (agent@machine),
	// as a verified entry of the branch says.
	TakenOverBy string `json:"takenOverBy,omitempty"`
}

// Collect fetches remote's branch (when fetch is set; a failure is a
// warning) and reads this clone's and the remote's branch: three git
// processes besides the fetch, however many agents.
func Collect(ctx context.Context, root, remote string, fetch bool, self Self, now time.Time, th records.Thresholds) (Report, error) {
	rep := Report{Now: now, Remote: remote, Agents: []Agent{}, Warnings: []string{}}
	r, err := Open(ctx, root)
	if err != nil {
		return rep, err
	}
	trusted, err := Trusted(root, self)
	if err != nil {
		rep.Warnings = append(rep.Warnings, err.Error())
	}
	if fetch {
		if _, err := handoff.Fetch(ctx, r, remote); err != nil {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("not fetched from %s: %v; showing what this clone has", remote, err))
		} else {
			rep.Fetched = true
		}
	}
	tip, err := loadBoth(ctx, r, remote, trusted)
	if err != nil {
		return rep, err
	}
	takenBy := map[string]string{} // a checkpoint's id → who took it over
	for _, s := range tip.Slots {
		if s.Meta.TakenFrom != "" && s.Trust.OK() {
			takenBy[s.Meta.TakenFrom] = s.Agent + "@" + s.Machine
		}
	}
	for _, s := range tip.Sorted() {
		a := row(s, now, th)
		a.Self = s.Machine == self.Machine
		if by := takenBy[s.Meta.ID]; by != "" {
			a.TakenOverBy, a.Status, a.Health = by, "taken over by "+by, ""
		}
		if a.Health == string(records.Stale) {
			rep.Stale++
		}
		rep.Agents = append(rep.Agents, a)
	}
	return rep, nil
}

func row(s *handoff.Slot, now time.Time, th records.Thresholds) Agent {
	m := s.Meta
	a := Agent{
		Agent: s.Agent, Machine: s.Machine, Host: m.Host, Issue: m.Issue, TaskN: m.TaskN, TaskM: m.TaskM,
		Current: m.Current, Status: m.Status, Last: m.Time, Branch: m.Branch, Commit: m.Commit, Checkpoint: m.ID,
		Trust: string(s.Trust),
	}
	if s.Problem != "" {
		a.Trust = string(s.Trust) + " (" + s.Problem + ")"
	}
	if m.Status == records.StatusComplete || m.Status == records.StatusFailed {
		return a
	}
	switch idle := now.Sub(m.Time); {
	case m.Time.IsZero() || idle > th.StaleAfter:
		a.Health = string(records.Stale)
	case idle > th.WarnAfter:
		a.Health = string(records.Warning)
	default:
		a.Health = string(records.Active)
	}
	return a
}

// Table renders the report for a terminal.
func Table(rep Report) string {
	rows := [][]string{{"AGENT", "MACHINE", "ISSUE", "TASK", "UPDATED", "STATUS", "HEALTH", "BRANCH", "COMMIT", "TRUST"}}
	for _, a := range rep.Agents {
		rows = append(rows, []string{
			a.Agent, machineCell(a), ui.Dash(a.Issue), taskCell(a), ui.Age(max(rep.Now.Sub(a.Last), 0)),
			ui.Dash(a.Status), ui.Dash(a.Health), ui.Dash(a.Branch), ui.Dash(ui.ShortSHA(a.Commit)), a.Trust,
		})
	}
	return ui.Table(rows)
}

// Markdown renders the report as a Markdown table.
func Markdown(rep Report) string {
	rows := [][]string{{"Agent", "Machine", "Issue", "Task", "Last Update", "Status", "Health", "Branch", "Commit", "Trust"}}
	for _, a := range rep.Agents {
		rows = append(rows, []string{
			ui.MarkdownCell(a.Agent), ui.MarkdownCell(machineCell(a)), ui.MarkdownCell(ui.Dash(a.Issue)),
			ui.MarkdownCell(taskCell(a)), ui.MinutesAgo(rep.Now.Sub(a.Last)), ui.MarkdownCell(ui.Dash(a.Status)),
			ui.Dash(a.Health), ui.MarkdownCell(ui.Dash(a.Branch)), ui.Dash(ui.ShortSHA(a.Commit)), a.Trust,
		})
	}
	return "## Agents on every machine\n\n" + ui.MarkdownTable(rows)
}

func machineCell(a Agent) string {
	s := a.Machine
	if a.Self {
		s += " (this)"
	}
	return s
}

func taskCell(a Agent) string {
	if a.TaskM == 0 {
		return ui.Dash(ui.Clip(a.Current, 30))
	}
	t := fmt.Sprintf("%d of %d", a.TaskN, a.TaskM)
	if c := strings.TrimSpace(a.Current); c != "" {
		t += ": " + ui.Clip(c, 30)
	}
	return t
}
