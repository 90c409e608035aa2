package status

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ccc-checkpoint/ccc/state/records"
)

func TestStatusColour(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)
	at := now.Add(-time.Hour * 2)
	rep := Report{Now: now, Agents: []records.AgentStatus{
		{Agent: "a", Issue: "CIA-1", Status: "in_progress", Health: "ACTIVE", UpdatedAt: &now, Total: 2, Completed: 1, Percent: 50},
		{Agent: "bb", Issue: "CIA-2", Status: "blocked", Health: "STALE", Drifted: true, Drift: "HEAD of x moved", UpdatedAt: &at},
	}}
	got := Table(rep, true)
	assert.Contains(t, got, "\x1b[32m✓ ACTIVE\x1b[0m")
	assert.Contains(t, got, "\x1b[31mX STALE\x1b[0m \x1b[35m~ DRIFTED\x1b[0m")
	lines := strings.Split(got, "\n")
	col := func(line string) int { return strings.Index(stripSGR(line), "QUEUED") }
	queuedAt := col(lines[0])
	for _, l := range lines[1:3] {
		assert.Equal(t, "—", string([]rune(stripSGR(l))[queuedAt:]), "columns line up despite colour codes: %q", l)
	}
	assert.Equal(t, "bb: DRIFTED — HEAD of x moved", lines[3])
	assert.NotContains(t, Table(rep, false), "\x1b[")
}

func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			i += strings.IndexByte(s[i:], 'm')
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestTableCells(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := now.Add(-d); return &v }
	rep := Report{Now: now, Agents: []records.AgentStatus{
		{Agent: "a", Task: "a  long\ntask " + strings.Repeat("x", 60), UpdatedAt: at(time.Hour), LastBeat: at(2 * time.Minute),
			Queued: records.QueuedStatus{Count: 2, Oldest: at(31 * time.Minute), LastError: "HTTP 502"},
			Subagents: []records.Subagent{{ID: "0123456789", Type: "explore", LastMessage: "looking\nhere", UpdatedAt: now.Add(-time.Minute), Status: "running"},
				{ID: "abc", Type: "plan", LastMessage: "old", Task: "Reading the parser", Done: 1, Total: 3, UpdatedAt: now, Status: "running"}}},
		{Agent: "b", LastBeat: at(5 * time.Minute), Error: "schemaVersion 9", Health: string(records.Unknown)},
	}}
	got := Table(rep, false)
	lines := strings.Split(got, "\n")
	assert.Contains(t, lines[1], "a long task "+strings.Repeat("x", 27)+"…  —")
	assert.Contains(t, lines[1], "1h (beat 2m)")
	assert.Contains(t, lines[1], "2, oldest 31m: HTTP 502")
	assert.Contains(t, lines[2], "└ explore 01234567")
	assert.Contains(t, lines[2], "looking here")
	assert.Contains(t, lines[3], "└ plan abc")
	assert.Regexp(t, `Reading the parser +1/3 `, lines[3], "a subagent's own list: its task and count")
	assert.Contains(t, lines[4], "beat 5m")
	assert.Equal(t, "b: UNKNOWN — schemaVersion 9", lines[5])
}

func TestFrame(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)
	head := "ccc status — 2026-11-21 13:45:00Z — every 5s, Ctrl-C to stop\n\n"
	assert.Equal(t, head+"No agent records in /r/.ccc/checkpoints.\nWarning: w\n",
		Frame(now, 5*time.Second, Report{Dir: "/r/.ccc/checkpoints", Warnings: []string{"w"}}, nil, false))
	assert.Equal(t, head+"Error: boom\n", Frame(now, 5*time.Second, Report{}, errors.New("boom"), false))
	assert.Contains(t, Frame(now, time.Second, Report{Now: now, Agents: []records.AgentStatus{{Agent: "a"}}}, nil, false), "AGENT")
}

func TestFromRecordsRedacts(t *testing.T) {
	t.Parallel()
	key := "ghp_" + strings.Repeat("a1B2c3D4e5", 3) + "F6g7H8"
	rep := FromRecords(records.Status{
		Thresholds: records.Thresholds{WarnAfter: 30 * time.Minute, StaleAfter: time.Hour},
		Agents:     []records.AgentStatus{{Agent: "a", Task: "use " + key}},
		Warnings:   []string{"bad " + key},
	})
	assert.Equal(t, "30m", rep.WarnAfter)
	assert.Equal(t, "1h", rep.StaleAfter)
	assert.NotContains(t, rep.Agents[0].Task, key)
	assert.NotContains(t, rep.Warnings[0], key)
}

// manyAgents is a report of n ACTIVE agents, as ccc status shows them.
func manyAgents(n int) Report {
	now := time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)
	rep := Report{Now: now}
	for i := range n {
		at := now.Add(-time.Duration(i) * time.Second)
		rep.Agents = append(rep.Agents, records.AgentStatus{Agent: "agent-" + strings.Repeat("x", i%7), Issue: "CIA-1",
			Task: "migrate endpoint /api/v1/resource", Status: "in_progress", Health: "ACTIVE", UpdatedAt: &at,
			Total: 2, Completed: 1, Percent: 50})
	}
	return rep
}

// TestTableAllocationsPerAgent: the table costs a few allocations per
// agent (its cells), not per character: 1,000 agents against 10.
func TestTableAllocationsPerAgent(t *testing.T) {
	small, large := manyAgents(10), manyAgents(1010)
	a := testing.AllocsPerRun(5, func() { _ = Table(small, true) })
	b := testing.AllocsPerRun(5, func() { _ = Table(large, true) })
	perAgent := (b - a) / 1000
	t.Logf("allocations: %.0f for 10 agents, %.0f for 1,010: %.1f per agent", a, b, perAgent)
	assert.LessOrEqual(t, perAgent, 5.0, "allocations per agent's row (4.0; 4.5 under -race)")
}
