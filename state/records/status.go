package records

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/state/outbox"
)

// Unknown is the health of an agent whose record cannot be read.
const Unknown Level = "UNKNOWN"

// AgentStatus is one agent's row in the repository's status.
type AgentStatus struct {
	Agent     string `json:"agent"`
	ID        string `json:"id"`
	Issue     string `json:"issue"`
	Task      string `json:"task"`
	Completed int    `json:"completed"`
	Total     int    `json:"total"`
	Percent   int    `json:"percent"`
	// Status is the record's; "" for an agent known only from its queued
	// deliveries.
	Status    string     `json:"status"`
	UpdatedAt *time.Time `json:"updatedAt"`
	LastBeat  *time.Time `json:"lastBeat"`
	// IdleSeconds is the time since the later of the two.
	IdleSeconds int64 `json:"idleSeconds"`
	// Health is ACTIVE, WARNING, STALE or UNKNOWN; "" when it does not
	// apply.
	Health  string       `json:"health"`
	Drifted bool         `json:"drifted"`
	Drift   string       `json:"drift,omitempty"`
	Queued  QueuedStatus `json:"queued"`
	// Error says why an UNKNOWN agent's record cannot be read.
	Error string `json:"error,omitempty"`
	// Subagents are the subagents of the agent's session, newest first.
	Subagents []Subagent `json:"subagents,omitempty"`
}

// QueuedStatus sums up an agent's undelivered tracker updates.
type QueuedStatus struct {
	Count     int        `json:"count"`
	Oldest    *time.Time `json:"oldest"`
	LastError string     `json:"lastError,omitempty"`
}

// Status is every agent of a repository at one moment.
type Status struct {
	Now time.Time
	// Dir is the repository's shared records directory.
	Dir string
	// Thresholds are the main worktree's, which judged every agent.
	Thresholds Thresholds
	// Agents are sorted by name.
	Agents []AgentStatus
	// Stale counts the STALE agents, Unknown those whose record cannot be
	// read.
	Stale, Unknown int
	// Warnings are the problems that left the rest readable, one line
	// each.
	Warnings []string
}

// Collect reads every agent's record and queued deliveries, across the
// worktrees of root's repository, at now. Problems that leave the rest
// readable (a corrupt record, a broken preferences file) become warnings;
// the error is for a repository whose records cannot be found at all. The
// thresholds are the main worktree's preferences, as settings read them.
func Collect(ctx context.Context, root string, now time.Time, settings config.Settings) (Status, error) {
	dir, err := Dir(ctx, root)
	if err != nil {
		return Status{}, err
	}
	c := &collector{
		st:      Status{Now: now.UTC(), Dir: dir, Agents: []AgentStatus{}, Warnings: []string{}},
		now:     now,
		byAgent: map[string]*AgentStatus{},
	}
	// The main worktree's preferences: every worktree judges alike.
	prefs := settings.Project(Root(dir))
	th := ThresholdsOf(prefs.Prefs.Agents)
	if err := prefs.Problems.Agents; err != nil {
		c.warn(fmt.Errorf("%w; using the defaults", err))
	}
	c.st.Thresholds, c.th = th, th
	// git lists the worktrees while the records are read: its process is
	// a few milliseconds of waiting that a thousand records' reading hides.
	var wtsErr error
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		c.wts, wtsErr = Worktrees(ctx, root)
	}()
	// Summaries: a row needs a handful of a record's fields, not its
	// task lists (issue 26: ccc status over 1,000 records).
	current, topErr := top(dir, true)
	<-listed
	if wtsErr != nil {
		c.warn(wtsErr)
	}
	c.addTop(current)
	unreadable := c.addUnreadable(topErr)
	gone, failedErr := failed(dir, true)
	c.addFailed(gone)
	if failedErr != nil {
		unreadable = append(unreadable, failedErr)
	}
	for _, e := range unreadable {
		c.warn(e)
	}
	c.addQueued(root)
	c.addSubagents(root)
	return c.finish(), nil
}

// addSubagents puts each subagent under the agent whose record names its
// session; one of a session no record names is not shown.
func (c *collector) addSubagents(root string) {
	for _, s := range ReadSubagents(root) {
		if a, ok := c.sessions[s.Session]; ok && s.Session != "" && c.byAgent[a] != nil {
			c.byAgent[a].Subagents = append(c.byAgent[a].Subagents, s)
		}
	}
}

// collector merges what Collect reads into one row per agent.
type collector struct {
	st      Status
	now     time.Time
	th      Thresholds
	wts     []Worktree
	byAgent map[string]*AgentStatus
	order   []string
	// sessions maps a record's Claude Code session to its agent.
	sessions map[string]string
}

func (c *collector) warn(err error) {
	c.st.Warnings = append(c.st.Warnings, strings.Split(err.Error(), "\n")...)
}

// set makes row the agent's, remembering agents in the order first seen.
func (c *collector) set(agent string, row *AgentStatus) {
	if c.byAgent[agent] == nil {
		c.order = append(c.order, agent)
	}
	c.byAgent[agent] = row
}

func (c *collector) addTop(top []Stored) {
	// Sized once: a thousand agents' rows grew these a dozen times each.
	c.byAgent = make(map[string]*AgentStatus, len(top))
	c.order = make([]string, 0, len(top))
	c.sessions = make(map[string]string, len(top))
	rows := make([]AgentStatus, 0, len(top))
	for _, s := range top {
		cur := c.byAgent[s.Agent]
		switch {
		case s.Kind == KindCrashed:
			continue // history of a takeover, not an agent
		case cur != nil && (cur.Health != "" || s.Kind != KindCurrent):
			continue // Top lists an agent's newest first; a current record wins
		}
		rows = append(rows, agentRow(s.Record, c.now, c.th, c.wts))
		c.set(s.Agent, &rows[len(rows)-1])
		if id := s.Record.SessionID; id != "" {
			c.sessions[id] = s.Agent
		}
	}
}

// addUnreadable makes a record that cannot be read the agent's row all the
// same: the agent a supervisor cannot see may be the one that crashed. It
// returns the problems that name no agent.
func (c *collector) addUnreadable(topErr error) []error {
	var unreadable []error
	for _, p := range Problems(topErr) {
		agent := AgentOf(p.Path)
		if agent == "" {
			unreadable = append(unreadable, p)
			continue
		}
		c.set(agent, &AgentStatus{Agent: agent, Health: string(Unknown), Error: p.Error()})
	}
	if len(Problems(topErr)) == 0 && topErr != nil {
		unreadable = append(unreadable, topErr)
	}
	return unreadable
}

// addFailed: a failed agent has no current record, so its newest failed
// one is its row until ccc cleanup removes it, unless the agent has a live
// record or a newer finished one. A failed record that cannot be read
// names no agent for sure (its file is named by its id): a warning.
func (c *collector) addFailed(failed []Stored) {
	for _, s := range failed {
		cur := c.byAgent[s.Agent]
		if cur != nil && (cur.Health != "" || cur.UpdatedAt != nil && !cur.UpdatedAt.Before(s.UpdatedAt)) {
			continue
		}
		row := agentRow(s.Record, c.now, c.th, c.wts)
		c.set(s.Agent, &row)
		if c.sessions == nil {
			c.sessions = map[string]string{}
		}
		if id := s.Record.SessionID; id != "" {
			c.sessions[id] = s.Agent
		}
	}
}

// addQueued counts the undelivered updates in every worktree's outbox.
func (c *collector) addQueued(root string) {
	roots := []string{root}
	for _, wt := range c.wts {
		if !wt.Bare && !slices.Contains(roots, wt.Path) {
			roots = append(roots, wt.Path)
		}
	}
	for _, r := range roots {
		entries, err := outbox.List(r, c.now)
		if err != nil {
			c.warn(err)
		}
		for _, e := range entries {
			row := c.byAgent[e.Agent]
			if row == nil {
				row = &AgentStatus{Agent: e.Agent}
				c.set(e.Agent, row)
			}
			q := &row.Queued
			q.Count++
			if q.Oldest == nil || e.QueuedAt.Before(*q.Oldest) {
				at := e.QueuedAt
				q.Oldest = &at
			}
			if e.LastError != "" {
				q.LastError = e.LastError
			}
		}
	}
}

func (c *collector) finish() Status {
	slices.Sort(c.order)
	c.st.Agents = slices.Grow(c.st.Agents, len(c.order))
	for _, a := range c.order {
		c.st.Agents = append(c.st.Agents, *c.byAgent[a])
		switch c.byAgent[a].Health {
		case string(Stale):
			c.st.Stale++
		case string(Unknown):
			c.st.Unknown++
		}
	}
	return c.st
}

func agentRow(r *Record, now time.Time, th Thresholds, wts []Worktree) AgentStatus {
	h := Assess(r, now, th, wts)
	row := AgentStatus{
		Agent: r.Agent, ID: r.ID, Issue: r.Issue, Task: r.CurrentStep,
		Completed: r.Subtasks.Completed, Total: r.Subtasks.Total, Percent: r.Subtasks.Percent,
		Status: r.Status, Health: string(h.Level), Drifted: h.Drifted, Drift: h.Drift,
		IdleSeconds: int64(h.Idle / time.Second),
	}
	if !r.UpdatedAt.IsZero() {
		at := r.UpdatedAt.UTC()
		row.UpdatedAt = &at
	}
	if !r.Heartbeat.LastBeat.IsZero() {
		at := r.Heartbeat.LastBeat.UTC()
		row.LastBeat = &at
	}
	return row
}
