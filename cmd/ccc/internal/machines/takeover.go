package machines

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ccc-checkpoint/ccc/state/handoff"
)

// ErrNotOnBranch is a takeover of an agent the branch does not hold
// either.
var ErrNotOnBranch = errors.New("not on the checkpoint branch")

// Takeover takes over agent (of machine, when not "") as seen only through
// the checkpoint branch: its progress file and state are restored here
// (Resume: backups first, an unverified entry refused), and an entry for
// the new owner (as, default agent) is written on this machine's part of
// the branch naming the checkpoint it took over (Meta.TakenFrom), so the
// other machine's `ccc status --all` shows it taken over after its next
// fetch; the new owner's later entries say so too (handoff.RememberTakeover,
// signed with the user key). The push is ccc sync's.
func Takeover(ctx context.Context, root, remote, agent, machine, as string, self Self, key []byte, now time.Time) (Resumed, []string, error) {
	if self.Signer == nil {
		return Resumed{}, nil, errors.New("no signing key")
	}
	res, warnings, err := Resume(ctx, root, remote, agent, machine, false, self, now)
	if err != nil {
		return res, warnings, fmt.Errorf("%w: %w", ErrNotOnBranch, err)
	}
	if res.Failed() {
		return res, warnings, ErrNotRestored
	}
	r, err := Open(ctx, root)
	if err != nil {
		return res, warnings, err
	}
	trusted, _ := Trusted(root, self)
	tip, err := loadBoth(ctx, r, remote, trusted)
	if err != nil {
		return res, warnings, err
	}
	slot, err := tip.Find(res.Agent, res.Machine)
	if err != nil {
		return res, warnings, err
	}
	files, _, err := slot.Files(ctx, r.Dir, trusted)
	if err != nil {
		return res, warnings, err
	}
	if as == "" {
		as = agent
	}
	m := slot.Meta
	m.ID, m.Machine, m.Host, m.Agent, m.Time, m.TakenFrom = self.Machine+"/"+as+"/"+now.UTC().Format("20060102T150405.000000000Z"),
		self.Machine, self.Host, as, now.UTC(), slot.Meta.ID
	e := handoff.Entry{Meta: m, Files: files}
	self.Signer.Seal(&e)
	if err := handoff.Write(ctx, r, e); err != nil {
		return res, warnings, err
	}
	if err := handoff.RememberTakeover(root, as, slot.Meta.ID, key); err != nil {
		warnings = append(warnings, fmt.Sprintf("%s's later checkpoints will not say it took over %s: %v", as, slot.Meta.ID, err))
	}
	return res, warnings, nil
}
