package machines

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ccc-checkpoint/ccc/state/handoff"
)

// Publish pushes the checkpoint branch of root's repository to remote
// (handoff.Publish: a rejected push is fetched, merged and retried) and
// says what it did in one line on w. It reports whether the remote now
// has the branch (true too when there was nothing to push).
func Publish(ctx context.Context, w io.Writer, root, remote string, now time.Time) bool {
	r, err := Open(ctx, root)
	if err != nil {
		fmt.Fprintf(w, "! Checkpoint branch not pushed: %v\n", err)
		return false
	}
	p, err := handoff.Publish(ctx, r, remote, now)
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
