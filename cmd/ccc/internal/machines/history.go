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
	// Epoch is the current epoch of the branch (the newest of the tips
	// listed); Pruned what retention pruned when it began (nil in epoch 0).
	Epoch    int             `json:"epoch"`
	Pruned   *handoff.Pruned `json:"pruned"`
	Warnings []string        `json:"warnings"`
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
	tips, err := l.currentEpoch(ctx, r, remote)
	if err != nil {
		return l, err
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
	if _, err := io.WriteString(w, ui.Table(rows)); err != nil {
		return err
	}
	if l.Pruned != nil {
		_, err := fmt.Fprintf(w, "Older checkpoints pruned by retention (epoch %d began): %s.\n", l.Epoch, PrunedText(*l.Pruned))
		return err
	}
	return nil
}

// currentEpoch are the tips (this clone's, the remote's) of the newest
// epoch either holds: the history of an older one is what retention
// pruned, so it is left out, with a warning when it is this clone's.
func (l *Listed) currentEpoch(ctx context.Context, r handoff.Repo, remote string) ([]string, error) {
	refs := []string{handoff.Ref, handoff.TrackingRef(remote)}
	tips := make([]string, len(refs))
	epochs := make([]handoff.Epoch, len(refs))
	for i, ref := range refs {
		tip, err := gitrepo.ReadRef(ctx, r.CommonDir, ref)
		if err == nil {
			epochs[i], err = handoff.ReadEpoch(ctx, r.Dir, tip)
		}
		if err != nil {
			return nil, err
		}
		tips[i] = tip
		if tip != "" && epochs[i].N >= l.Epoch {
			l.Epoch, l.Pruned = epochs[i].N, epochs[i].Pruned
		}
	}
	var out []string
	for i, tip := range tips {
		if tip == "" {
			continue
		}
		if epochs[i].N < l.Epoch {
			if i == 0 {
				l.Warnings = append(l.Warnings, fmt.Sprintf("this clone's checkpoint branch is of epoch %d, %s's of epoch %d: its newest entries show once ccc sync takes them into epoch %d",
					epochs[i].N, remote, l.Epoch, l.Epoch))
			}
			continue
		}
		out = append(out, tip)
	}
	return out, nil
}
