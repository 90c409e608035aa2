package handoff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
)

// Merge joins the remote's tip into the local branch by tree: each
// agent's directory comes from the side whose checkpoint is newer (the
// local one on a tie; a newer one only from the same signer, replaces),
// so two machines, each writing only its own directories, never
// conflict. The local branch moves by compare-and-swap: to remote when
// there is no local branch yet or remote holds the local tip (a
// fast-forward), else to a merge commit with both tips as parents (one
// fast-import). When the two tips are of different epochs (a roll,
// Roll), the same tree is built by commits on top of the newer epoch's
// tip alone, one per entry taken from the older side (reapply), so the
// pruned chain never comes back (two processes when that is the remote's
// tip: the commits, then the ref's swap).
// It returns the new local tip (unchanged when the remote added nothing).
func Merge(ctx context.Context, r Repo, remote string, now time.Time) (string, error) {
	tip, _, err := merge(ctx, r, remote, now)
	return tip, err
}

// merge is Merge; dropped says the new tip does not contain remote (the
// local tip was of a newer epoch), so the next push must replace the
// remote's tip by lease.
func merge(ctx context.Context, r Repo, remote string, now time.Time) (tip string, dropped bool, err error) {
	local, err := gitrepo.ReadRef(ctx, r.CommonDir, Ref)
	if err != nil {
		return "", false, fmt.Errorf("handoff: %w", err)
	}
	if remote == "" || remote == local {
		return local, false, nil
	}
	var b bytes.Buffer
	if local == "" {
		// Nothing of this clone's yet: the remote's branch becomes it.
		b.WriteString("reset " + Ref + "\nfrom " + remote + "\n\n")
		if err := gitrepo.FastImport(ctx, r.Dir, b.Bytes()); err != nil {
			return "", false, fmt.Errorf("handoff: merge: %w", err)
		}
		tip, err := gitrepo.ReadRef(ctx, r.CommonDir, Ref)
		return tip, false, err
	}
	le, err := ReadEpoch(ctx, r.Dir, local)
	if err != nil {
		return "", false, err
	}
	re, err := ReadEpoch(ctx, r.Dir, remote)
	if err != nil {
		return "", false, err
	}
	switch {
	case le.Has(remote):
		return local, false, nil // the remote has nothing this clone lacks
	case re.Has(local):
		// The remote's tip holds all of this clone's: a fast-forward.
		if err := gitrepo.SwapRef(ctx, r.Dir, Ref, remote, local); err != nil {
			return "", false, fmt.Errorf("handoff: merge: %w", err)
		}
		return remote, false, nil
	}
	lt, err := Load(ctx, r.Dir, local, nil)
	if err != nil {
		return "", false, err
	}
	rt, err := Load(ctx, r.Dir, remote, nil)
	if err != nil {
		return "", false, err
	}
	if re.N > le.N {
		tip, err := onto(ctx, r, lt, rt, re.N, now)
		return tip, false, err
	}
	var take []*Slot // the remote's directories the merge takes
	for d, s := range rt.Slots {
		if o, ok := lt.Slots[d]; !ok || replaces(s, o) {
			take = append(take, s)
		}
	}
	sort.Slice(take, func(i, j int) bool { return take[i].Dir < take[j].Dir })
	dropped = le.N > re.N
	if dropped && len(take) == 0 {
		return local, true, nil
	}
	if dropped {
		// This clone rolled and the remote still holds the old epoch's
		// chain (a clone that never fetched the roll pushed onto it): its
		// newer entries come in by tree, its commits stay out.
		reapply(&b, Ref, local, take, le.N, now)
	} else {
		// A merge commit even when it takes nothing: the next push must be
		// a fast-forward of the remote's tip.
		b.WriteString("commit " + Ref + "\n")
		committer(&b, now)
		data(&b, []byte(fmt.Sprintf("merge the checkpoints of %d agent(s) from the remote\n", len(take))))
		b.WriteString("from " + local + "\nmerge " + remote + "\n")
		for _, s := range take {
			b.WriteString("M 040000 " + s.Tree + " " + s.Dir + "\n")
		}
		b.WriteString("\n")
	}
	if err := gitrepo.FastImport(ctx, r.Dir, b.Bytes()); err != nil {
		return "", false, fmt.Errorf("handoff: merge: %w", err)
	}
	tip, err = gitrepo.ReadRef(ctx, r.CommonDir, Ref)
	return tip, dropped, err
}

// onto re-applies this clone's entries that a merge would keep (lt's,
// where rt has none or rt's does not replace it) on top of rt, the tip of
// a newer epoch, one commit per entry, the first with rt as its only
// parent; with none to keep, the branch just moves to rt. The tree is the
// one a two-parent merge would have.
func onto(ctx context.Context, r Repo, lt, rt Tip, epoch int, now time.Time) (string, error) {
	var keep []*Slot
	for d, s := range lt.Slots {
		if o, ok := rt.Slots[d]; !ok || o.Tree != s.Tree && !replaces(o, s) {
			keep = append(keep, s)
		}
	}
	if len(keep) == 0 {
		if err := gitrepo.SwapRef(ctx, r.Dir, Ref, rt.Commit, lt.Commit); err != nil {
			return "", fmt.Errorf("handoff: %w", err)
		}
		return rt.Commit, nil
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].Dir < keep[j].Dir })
	var b bytes.Buffer
	scratch := scratchRef()
	reapply(&b, scratch, rt.Commit, keep, epoch, now)
	return swap(ctx, r, b.Bytes(), scratch, lt.Commit)
}

// reapply writes, on ref from the commit from, one commit per slot (its
// directory's tree as it is) whose subject is the slot's checkpoint, so
// `ccc history --all` still lists the entries that crossed into epoch;
// dated now, so the age rule counts from when they crossed.
func reapply(b *bytes.Buffer, ref, from string, slots []*Slot, epoch int, now time.Time) {
	sort.Slice(slots, func(i, j int) bool {
		if !slots[i].Meta.Time.Equal(slots[j].Meta.Time) {
			return slots[i].Meta.Time.Before(slots[j].Meta.Time)
		}
		return slots[i].Dir < slots[j].Dir
	})
	for i, s := range slots {
		b.WriteString("commit " + ref + "\n")
		committer(b, now)
		if s.Problem == "" && s.Meta.ID != "" && !strings.ContainsAny(s.Meta.ID, "\n") {
			data(b, []byte(fmt.Sprintf("checkpoint %s\n\ntaken into epoch %d\n", s.Meta.ID, epoch)))
		} else {
			data(b, []byte(fmt.Sprintf("take %s into epoch %d\n", s.Dir, epoch)))
		}
		if i == 0 {
			b.WriteString("from " + from + "\n")
		}
		b.WriteString("M 040000 " + s.Tree + " " + s.Dir + "\n\n")
	}
}

// replaces says whether the remote's entry s takes the place of this
// clone's o in a merge: it is newer, its signature holds, and it is signed
// by the same key as o (or o's signature does not hold). So whoever can
// push cannot overwrite an agent's entry with one of their own through
// another machine's merge; they can only add an entry, shown unverified.
func replaces(s, o *Slot) bool {
	if !s.Meta.Time.After(o.Meta.Time) || s.Trust == BadSignature || s.Problem != "" {
		return false
	}
	return s.Meta.Key == o.Meta.Key || o.Trust == BadSignature
}

// Published is what Publish did.
type Published struct {
	// Pushed: the remote's branch is now the local one.
	Pushed bool
	// Rejected counts the pushes the remote refused because another
	// machine had pushed first; Merged the remote's directories taken in.
	Rejected int
	// Nothing: there was no local branch to publish.
	Nothing bool
	// Rolled is what a roll of the epoch pruned (nil when the rule did
	// not call for one), Epoch the epoch it began.
	Rolled *Pruned
	Epoch  int
}

// pushAttempts bounds the push → rejected → fetch → merge rounds.
const pushAttempts = 5

// Publish pushes the local branch to remote. A push refused because
// another machine pushed first is followed by a fetch of the remote's
// branch, a tree merge (Merge) and another push, up to pushAttempts times.
// It never forces, but for a roll: when rule is due on the local branch
// (Retention.Due), Publish fetches, merges, rolls the epoch (Roll) and
// pushes with --force-with-lease on the remote tip it fetched, so it
// replaces exactly what it read; a push that landed meanwhile is
// rejected, fetched and taken in by tree, and the push retried.
func Publish(ctx context.Context, r Repo, remote string, now time.Time, rule Retention) (Published, error) {
	var p Published
	lease, leased, checked := "", false, rule == Retention{}
	for range pushAttempts {
		local, err := gitrepo.ReadRef(ctx, r.CommonDir, Ref)
		if err != nil {
			return p, fmt.Errorf("handoff: %w", err)
		}
		if local == "" {
			p.Nothing = true
			return p, nil
		}
		if !checked {
			checked = true
			lease, leased, err = p.roll(ctx, r, remote, local, now, rule)
			if errors.Is(err, gitrepo.ErrRefMoved) {
				// A hook wrote a checkpoint between the roll's read of the
				// tip and its swap: read the new tip and roll again.
				checked = false
				continue
			}
			if err != nil {
				return p, err
			}
		}
		if leased {
			err = gitrepo.PushLease(ctx, r.Dir, remote, Ref, Ref, lease)
		} else {
			err = gitrepo.Push(ctx, r.Dir, remote, Ref, Ref)
		}
		if err == nil {
			p.Pushed = true
			return p, nil
		}
		if !errors.Is(err, gitrepo.ErrRejected) {
			return p, fmt.Errorf("handoff: publish: %w", err)
		}
		p.Rejected++
		theirs, err := Fetch(ctx, r, remote)
		if err != nil {
			return p, err
		}
		var dropped bool
		if _, dropped, err = merge(ctx, r, theirs, now); err != nil {
			return p, err
		}
		// After a roll, the remote may still hold the old epoch's chain
		// (with a push that landed meanwhile): replace exactly that.
		lease, leased = theirs, dropped
	}
	return p, fmt.Errorf("handoff: publish: the remote or this clone's branch moved %d times in a row; try again", pushAttempts)
}

// roll rolls the epoch when rule is due on local: it fetches the remote's
// tip first and merges it (so the roll keeps what others pushed), then
// checks the rule again on the merged branch. It returns the lease the
// push must hold (the fetched tip) and whether it must hold one.
func (p *Published) roll(ctx context.Context, r Repo, remote, local string, now time.Time, rule Retention) (string, bool, error) {
	e, err := ReadEpoch(ctx, r.Dir, local)
	if err != nil || !rule.Due(e, now) {
		p.Epoch = e.N
		return "", false, err
	}
	theirs, err := Fetch(ctx, r, remote)
	if err != nil {
		return "", false, err
	}
	tip, dropped := local, false
	if theirs != "" && !e.Has(theirs) {
		if tip, dropped, err = merge(ctx, r, theirs, now); err != nil {
			return "", false, err
		}
	}
	if tip != local {
		if e, err = ReadEpoch(ctx, r.Dir, tip); err != nil {
			return "", false, err
		}
	}
	if !rule.Due(e, now) {
		p.Epoch = e.N
		return theirs, dropped, nil
	}
	if _, err := Roll(ctx, r, tip, e, now); err != nil {
		return "", false, err
	}
	p.Epoch = e.N + 1
	p.Rolled = &Pruned{Tip: tip, Commits: e.Commits, Oldest: e.Start, Newest: e.Newest}
	return theirs, true, nil
}

// Fetch brings remote's branch into TrackingRef(remote) and returns its
// tip ("" when the remote has no branch yet).
func Fetch(ctx context.Context, r Repo, remote string) (string, error) {
	err := gitrepo.Fetch(ctx, r.Dir, remote, Ref, TrackingRef(remote))
	if errors.Is(err, gitrepo.ErrNoRemoteRef) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("handoff: %w", err)
	}
	return gitrepo.ReadRef(ctx, r.CommonDir, TrackingRef(remote))
}
