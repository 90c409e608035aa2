package linearagent

import (
	"context"
	"slices"

	"github.com/ccc-checkpoint/ccc/sinks/linear"
)

const (
	// The issue's state, delegate and its team's "started" states, as
	// "Interaction best practices" fetches them.
	queryIssueWork = `query AgentIssueWork($issue: String!) {
  issue(id: $issue) {
    id
    state { type }
    delegate { id }
    team { states(filter: { type: { eq: "started" } }) { nodes { id position } } }
  }
}`
	mutationIssueUpdate = `mutation AgentIssueUpdate($id: String!, $input: IssueUpdateInput!) {
  issueUpdate(id: $id, input: $input) { success }
}`
)

// settled are the state types begin leaves: work already started or
// closed, and triage, which Linear's best practices say an agent must not
// move an issue out of.
var settled = []string{"triage", "started", "completed", "canceled"}

// begin follows Linear's best practices when a session starts work on an
// issue, each behind its preference, once the session's first response
// is out: an issue not in a settled state moves to its team's first
// "started" state (lowest position); with no delegate, the agent becomes
// it. One query, at most one update.
func (x *delivery) begin(ctx context.Context) *linear.CallError {
	cfg := x.s.cfg
	if !cfg.StartIssue && !cfg.Delegate {
		return nil
	}
	var out struct {
		Issue struct {
			ID    string `json:"id"`
			State struct {
				Type string `json:"type"`
			} `json:"state"`
			Delegate *struct {
				ID string `json:"id"`
			} `json:"delegate"`
			Team struct {
				States struct {
					Nodes []struct {
						ID       string  `json:"id"`
						Position float64 `json:"position"`
					} `json:"nodes"`
				} `json:"states"`
			} `json:"team"`
		} `json:"issue"`
	}
	if err := x.exec(ctx, "AgentIssueWork", queryIssueWork, map[string]any{"issue": x.d.Target.Issue}, &out, false); err != nil {
		return err
	}
	input := map[string]any{}
	states := out.Issue.Team.States.Nodes
	if t := out.Issue.State.Type; cfg.StartIssue && !slices.Contains(settled, t) && len(states) > 0 {
		first := slices.MinFunc(states, func(a, b struct {
			ID       string  `json:"id"`
			Position float64 `json:"position"`
		}) int {
			switch {
			case a.Position < b.Position:
				return -1
			case a.Position > b.Position:
				return 1
			}
			return 0
		})
		input["stateId"] = first.ID
	}
	if v, _ := x.viewer(ctx); cfg.Delegate && out.Issue.Delegate == nil && v.ID != "" {
		input["delegateId"] = v.ID
	}
	if len(input) == 0 {
		return nil
	}
	var upd struct{}
	return x.exec(ctx, "AgentIssueUpdate", mutationIssueUpdate, map[string]any{"id": out.Issue.ID, "input": input}, &upd, false)
}
