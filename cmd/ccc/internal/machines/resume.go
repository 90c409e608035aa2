package machines

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/state/handoff"
	"github.com/ccc-checkpoint/ccc/state/restore"
)

// ErrUnverified is an entry `ccc go --from` will not restore without
// --force: its signature does not verify against a trusted key.
var ErrUnverified = errors.New("unverified")

// Resumed is what `ccc go --from` did.
type Resumed struct {
	Agent      string    `json:"agent"`
	Machine    string    `json:"machine"`
	Host       string    `json:"host"`
	Checkpoint string    `json:"checkpoint"`
	Time       time.Time `json:"time"`
	Trust      string    `json:"trust"`
	Branch     string    `json:"branch"`
	Commit     string    `json:"commit"`
	// CommitHere: the checkpoint's commit is in this clone.
	CommitHere bool             `json:"commitHere"`
	Restored   []restore.Result `json:"restored"`
	Prompt     string           `json:"prompt"`
}

// ParseFrom splits --from's agent[@machine].
func ParseFrom(s string) (agent, machine string) {
	if i := strings.LastIndex(s, "@"); i > 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// Resume finds agent (on machine, when not "") on the checkpoint branch
// (fetched from remote first; a failure is a warning), checks its entry,
// and restores its progress file and state into root through
// restore.Put: backups first, invalid copies refused. An entry that does
// not verify is ErrUnverified unless force.
func Resume(ctx context.Context, root, remote, agent, machine string, force bool, self Self, now time.Time) (Resumed, []string, error) {
	var warnings []string
	r, err := Open(ctx, root)
	if err != nil {
		return Resumed{}, nil, err
	}
	trusted, err := Trusted(root, self)
	if err != nil {
		warnings = append(warnings, err.Error())
	}
	if _, err := handoff.Fetch(ctx, r, remote); err != nil {
		warnings = append(warnings, fmt.Sprintf("not fetched from %s: %v; using what this clone has", remote, err))
	}
	tip, err := loadBoth(ctx, r, remote, trusted)
	if err != nil {
		return Resumed{}, warnings, err
	}
	slot, err := tip.Find(agent, machine)
	if err != nil {
		return Resumed{}, warnings, err
	}
	files, trust, err := slot.Files(ctx, r.Dir, trusted)
	if err != nil {
		return Resumed{}, warnings, err
	}
	m := slot.Meta
	res := Resumed{Agent: slot.Agent, Machine: slot.Machine, Host: m.Host, Checkpoint: m.ID, Time: m.Time,
		Trust: string(trust), Branch: m.Branch, Commit: m.Commit, Restored: []restore.Result{}}
	if !trust.OK() && !force {
		return res, warnings, fmt.Errorf("%s@%s's checkpoint %s is %s: %w; nothing restored (--force restores it anyway, if you know who wrote it)",
			slot.Agent, slot.Machine, m.ID, trust, ErrUnverified)
	}
	if !trust.OK() {
		warnings = append(warnings, fmt.Sprintf("restoring an entry that is %s (--force)", trust))
	}
	res.CommitHere, _ = gitrepo.HasCommit(ctx, r.Dir, m.Commit)
	if !res.CommitHere && m.Commit != "" {
		how := "git fetch " + remote
		if m.Branch != "" {
			how = fmt.Sprintf("git fetch %s %s, or git checkout %s", remote, m.Branch, m.Branch)
		}
		warnings = append(warnings, fmt.Sprintf("commit %.7s (branch %s), where the checkpoint was taken, is not in this clone yet: %s",
			m.Commit, dash(m.Branch), how))
	}
	targets, err := restore.Targets(ctx, root, []string{restore.State, restore.Progress}, "", false)
	if err != nil {
		return res, warnings, err
	}
	from := "checkpoint " + m.ID
	for _, t := range targets {
		name := map[string]string{restore.State: handoff.StateFile, restore.Progress: handoff.ProgressFile}[t.Kind]
		data, ok := files[name]
		if !ok {
			continue
		}
		res.Restored = append(res.Restored, restore.Put(ctx, t, data, from, now))
	}
	res.Prompt = strings.TrimSpace(string(files[handoff.PromptFile]))
	return res, warnings, nil
}

// loadBoth is this clone's branch and the remote's, the newer entry of each
// agent winning.
func loadBoth(ctx context.Context, r handoff.Repo, remote string, trusted map[string]bool) (handoff.Tip, error) {
	local, err := gitrepo.ReadRef(ctx, r.CommonDir, handoff.Ref)
	if err != nil {
		return handoff.Tip{}, err
	}
	theirs, err := gitrepo.ReadRef(ctx, r.CommonDir, handoff.TrackingRef(remote))
	if err != nil {
		return handoff.Tip{}, err
	}
	lt, err := handoff.Load(ctx, r.Dir, local, trusted)
	if err != nil || theirs == "" || theirs == local {
		return lt, err
	}
	rt, err := handoff.Load(ctx, r.Dir, theirs, trusted)
	if err != nil {
		return handoff.Tip{}, err
	}
	return handoff.Union(lt, rt), nil
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
