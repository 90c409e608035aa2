package handoff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
)

// Merge joins the remote's tip into the local branch by tree: each
// agent's directory comes from the side whose checkpoint is newer (the
// local one on a tie; a newer one only from the same signer, replaces),
// so two machines, each writing only its own directories, never
// conflict. The local branch moves by compare-and-swap
// (one fast-import): to remote when there is no local branch yet, else to
// a merge commit with both tips as parents.
// It returns the new local tip (unchanged when the remote added nothing).
func Merge(ctx context.Context, r Repo, remote string, now time.Time) (string, error) {
	local, err := gitrepo.ReadRef(ctx, r.CommonDir, Ref)
	if err != nil {
		return "", fmt.Errorf("handoff: %w", err)
	}
	if remote == "" || remote == local {
		return local, nil
	}
	lt, err := Load(ctx, r.Dir, local, nil)
	if err != nil {
		return "", err
	}
	rt, err := Load(ctx, r.Dir, remote, nil)
	if err != nil {
		return "", err
	}
	var take []*Slot // the remote's directories the merge takes
	for d, s := range rt.Slots {
		if o, ok := lt.Slots[d]; !ok || replaces(s, o) {
			take = append(take, s)
		}
	}
	sort.Slice(take, func(i, j int) bool { return take[i].Dir < take[j].Dir })
	var b bytes.Buffer
	if local == "" {
		// Nothing of this clone's yet: the remote's branch becomes it.
		b.WriteString("reset " + Ref + "\nfrom " + remote + "\n\n")
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
		return "", fmt.Errorf("handoff: merge: %w", err)
	}
	return gitrepo.ReadRef(ctx, r.CommonDir, Ref)
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
}

// pushAttempts bounds the push → rejected → fetch → merge rounds.
const pushAttempts = 5

// Publish pushes the local branch to remote. A push refused because
// another machine pushed first is followed by a fetch of the remote's
// branch, a tree merge (Merge) and another push, up to pushAttempts times.
// It never forces: what others fetched stays in the history.
func Publish(ctx context.Context, r Repo, remote string, now time.Time) (Published, error) {
	var p Published
	for range pushAttempts {
		local, err := gitrepo.ReadRef(ctx, r.CommonDir, Ref)
		if err != nil {
			return p, fmt.Errorf("handoff: %w", err)
		}
		if local == "" {
			p.Nothing = true
			return p, nil
		}
		err = gitrepo.Push(ctx, r.Dir, remote, Ref, Ref)
		if err == nil {
			p.Pushed = true
			return p, nil
		}
		if !errors.Is(err, gitrepo.ErrRejected) {
			return p, fmt.Errorf("handoff: publish: %w", err)
		}
		p.Rejected++
		if _, err := Fetch(ctx, r, remote); err != nil {
			return p, err
		}
		theirs, err := gitrepo.ReadRef(ctx, r.CommonDir, TrackingRef(remote))
		if err != nil {
			return p, fmt.Errorf("handoff: %w", err)
		}
		if _, err := Merge(ctx, r, theirs, now); err != nil {
			return p, err
		}
	}
	return p, fmt.Errorf("handoff: publish: the remote moved %d times in a row; try again", pushAttempts)
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
