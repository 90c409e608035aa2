package machines

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/state/handoff"
)

// Rule is the branch's retention rule from the project's settings
// (handoff.keep, handoff.keep_for).
func Rule(p config.Project) handoff.Retention {
	return handoff.Retention{Keep: p.HandoffKeep, KeepFor: p.HandoffKeepFor}
}

// Publish pushes the checkpoint branch of root's repository to remote
// (handoff.Publish: a rejected push is fetched, merged and retried; the
// epoch rolled when rule calls for it) and says what it did in one or two
// lines on w. It reports whether the remote now has the branch (true too
// when there was nothing to push).
func Publish(ctx context.Context, w io.Writer, root, remote string, rule handoff.Retention, now time.Time) bool {
	r, err := Open(ctx, root)
	if err != nil {
		fmt.Fprintf(w, "! Checkpoint branch not pushed: %v\n", err)
		return false
	}
	p, err := handoff.Publish(ctx, r, remote, now, rule)
	if p.Rolled != nil && err == nil {
		fmt.Fprintf(w, "✓ Checkpoint branch: retention pruned %s; epoch %d keeps every agent's latest entry\n", PrunedText(*p.Rolled), p.Epoch)
	}
	switch {
	case err != nil:
		fmt.Fprintf(w, "! Checkpoint branch not pushed to %s: %v\n", remote, err)
		return false
	case p.Nothing:
		// Nothing of this clone's yet: fetch what the others published.
		if _, err := handoff.Fetch(ctx, r, remote); err != nil {
			fmt.Fprintf(w, "! Checkpoint branch not fetched from %s: %v\n", remote, err)
			return false
		}
		fmt.Fprintf(w, "✓ Checkpoint branch fetched from %s (nothing of this clone's to push yet)\n", remote)
	case p.Rejected > 0:
		fmt.Fprintf(w, "✓ Checkpoint branch pushed to %s (another machine pushed first: fetched, merged and pushed again, %d time(s))\n", remote, p.Rejected)
	default:
		fmt.Fprintf(w, "✓ Checkpoint branch pushed to %s\n", remote)
	}
	return true
}

// PrunedText says what a roll pruned, for people.
func PrunedText(p handoff.Pruned) string {
	return fmt.Sprintf("%d commit(s) from %s to %s", p.Commits,
		p.Oldest.UTC().Format("2006-01-02 15:04"), p.Newest.UTC().Format("2006-01-02 15:04"))
}
