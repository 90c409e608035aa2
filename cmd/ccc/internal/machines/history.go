package machines

import (
	"context"
	"fmt"
	"io"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/handoff"
)

// Listed is `ccc list --all`: every checkpoint of every machine's agents
// on the checkpoint branch, newest first.
type Listed struct {
	Remote      string               `json:"remote"`
	Fetched     bool                 `json:"fetched"`
	Checkpoints []handoff.Checkpoint `json:"checkpoints"`
	Warnings    []string             `json:"warnings"`
}

// History fetches remote's branch (a failure is a warning) and lists the
// checkpoints of this clone's branch and the remote's, agent's only when
// agent is not "".
func History(ctx context.Context, root, remote, agent string, self Self) (Listed, error) {
	l := Listed{Remote: remote, Checkpoints: []handoff.Checkpoint{}, Warnings: []string{}}
	r, err := Open(ctx, root)
	if err != nil {
		return l, err
	}
	trusted, err := Trusted(root, self)
	if err != nil {
		l.Warnings = append(l.Warnings, err.Error())
	}
	if _, err := handoff.Fetch(ctx, r, remote); err != nil {
		l.Warnings = append(l.Warnings, fmt.Sprintf("not fetched from %s: %v; listing what this clone has", remote, err))
	} else {
		l.Fetched = true
	}
	var tips []string
	for _, ref := range []string{handoff.Ref, handoff.TrackingRef(remote)} {
		tip, err := gitrepo.ReadRef(ctx, r.CommonDir, ref)
		if err != nil {
			return l, err
		}
		tips = append(tips, tip)
	}
	all, err := handoff.History(ctx, r.Dir, tips, 0, trusted)
	if err != nil {
		return l, err
	}
	for _, c := range all {
		if agent == "" || c.Meta.Agent == agent {
			l.Checkpoints = append(l.Checkpoints, c)
		}
	}
	return l, nil
}

// PrintHistory writes the list as a table.
func PrintHistory(w io.Writer, l Listed) error {
	rows := [][]string{{"TIME", "MACHINE", "AGENT", "ISSUE", "TASK", "STATUS", "COMMIT", "TRUST"}}
	for _, c := range l.Checkpoints {
		m := c.Meta
		task := "—"
		if m.TaskM > 0 {
			task = fmt.Sprintf("%d of %d", m.TaskN, m.TaskM)
		}
		rows = append(rows, []string{m.Time.UTC().Format("2006-01-02 15:04:05"), m.Machine, m.Agent, ui.Dash(m.Issue), task,
			ui.Dash(m.Status), ui.Dash(ui.ShortSHA(m.Commit)), string(c.Trust)})
	}
	_, err := io.WriteString(w, ui.Table(rows))
	return err
}
