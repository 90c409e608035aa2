package records

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/config"
)

// Level is an agent's liveness, judged from its record's timestamps.
type Level string

// Liveness levels (seed 003's stale detection).
const (
	// Active: a checkpoint or heartbeat within the warning threshold.
	Active Level = "ACTIVE"
	// Warning: quiet for longer than the warning threshold; may be slow.
	Warning Level = "WARNING"
	// Stale: quiet for longer than the stale threshold; likely crashed.
	Stale Level = "STALE"
)

// Thresholds are the quiet times after which an agent is WARNING and STALE.
type Thresholds struct {
	WarnAfter  time.Duration `json:"warnAfter"`
	StaleAfter time.Duration `json:"staleAfter"`
}

// DefaultThresholds are the thresholds without preferences.
func DefaultThresholds() Thresholds {
	return ThresholdsOf(config.Default().Agents)
}

// ThresholdsOf takes the thresholds from the preferences' agents: section
// (agents.warn_after and agents.stale_after), as config.Settings.Project read it.
func ThresholdsOf(p config.AgentPrefs) Thresholds {
	return Thresholds{WarnAfter: time.Duration(p.WarnAfter), StaleAfter: time.Duration(p.StaleAfter)}
}

// ParseDuration reads a command-line age (cleanup's --max-age) in
// config.ParseDuration's syntax less its bare seconds: on a command line
// "--max-age 7" more likely means days, and would remove nearly everything.
func ParseDuration(s string) (time.Duration, error) {
	if t := strings.TrimSpace(s); t != "0" {
		if _, err := strconv.ParseFloat(t, 64); err == nil {
			return 0, fmt.Errorf("%q is not a duration here: a bare number could mean seconds or days, so give the unit (7d for 7 days, 12h, 30m)", s)
		}
	}
	return config.ParseDuration(s)
}

// Health is an agent's state when a supervisor looks.
type Health struct {
	// Level is "" for a complete or failed record: liveness does not apply.
	Level Level
	// Idle is how long since the last checkpoint or heartbeat.
	Idle time.Duration
	// Drifted says the repository moved under the record: the recorded
	// branch's HEAD changed, or the branch is no longer checked out.
	Drifted bool
	Drift   string
}

// Assess judges a record at now. worktrees (from Worktrees) tell whether
// the repository moved since the record; nil skips that check. A record
// with no timestamp at all (an import of a template) cannot show it is
// alive and is STALE.
func Assess(r *Record, now time.Time, th Thresholds, worktrees []Worktree) Health {
	var h Health
	if r.Terminal() {
		return h
	}
	last := r.LastActivity()
	if !last.IsZero() {
		h.Idle = max(now.Sub(last), 0) // a clock running behind is not negative idleness
	}
	switch {
	case last.IsZero() || h.Idle > th.StaleAfter:
		h.Level = Stale
	case h.Idle > th.WarnAfter:
		h.Level = Warning
	default:
		h.Level = Active
	}
	h.Drifted, h.Drift = drift(r, worktrees)
	return h
}

// drift compares the record's branch and HEAD with the worktrees': across
// worktrees an agent's branch is found by name, since the record does not
// say which worktree it came from.
func drift(r *Record, wts []Worktree) (bool, string) {
	if len(wts) == 0 || (r.Branch == "" && r.Head == "") {
		return false, ""
	}
	if r.Branch == "" {
		for _, wt := range wts {
			if wt.Head == r.Head {
				return false, ""
			}
		}
		return true, fmt.Sprintf("detached HEAD %s is no longer checked out in any worktree", short(r.Head))
	}
	for _, wt := range wts {
		if wt.Branch != r.Branch {
			continue
		}
		if r.Head != "" && wt.Head != r.Head {
			return true, fmt.Sprintf("HEAD of %s moved since the record: %s → %s", r.Branch, short(r.Head), short(wt.Head))
		}
		return false, ""
	}
	return true, fmt.Sprintf("branch %s is no longer checked out in any worktree", r.Branch)
}

func short(sha string) string {
	if sha == "" {
		return "(none)"
	}
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
