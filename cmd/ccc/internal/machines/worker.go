package machines

import (
	"context"
	"fmt"
	"time"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/state/handoff"
)

// Publisher is the sync worker's publishing of the checkpoint branch: it
// pushes when this clone's tip moved since its last push, and after a
// failure waits 30 s, doubling to 30 min, like the outbox.
type Publisher struct {
	Root, Remote string
	Rule         handoff.Retention

	repo     handoff.Repo // found once
	pushed   string       // the tip the last push published
	failures int
	next     time.Time // no attempt before
}

// WorkerPublish is the worker's publishing (Publisher.Tick) for root's
// project p, nil when the branch is off (no remote).
func WorkerPublish(root string, p config.Project) func(context.Context, time.Time) string {
	if p.HandoffRemote == "" {
		return nil
	}
	return (&Publisher{Root: root, Remote: p.HandoffRemote, Rule: Rule(p)}).Tick
}

// Publisher backoff bounds.
const (
	firstWait = 30 * time.Second
	maxWait   = 30 * time.Minute
)

// Tick publishes when due and says what it did ("" when nothing was due).
// Reading the tip runs no process, so an idle worker costs nothing.
func (p *Publisher) Tick(ctx context.Context, now time.Time) string {
	if now.Before(p.next) {
		return ""
	}
	if p.repo.Dir == "" {
		r, err := Open(ctx, p.Root)
		if err != nil {
			return p.failed(now, err)
		}
		p.repo = r
	}
	r := p.repo
	tip, err := gitrepo.ReadRef(ctx, r.CommonDir, handoff.Ref)
	if err != nil {
		return p.failed(now, err)
	}
	if tip == "" || tip == p.pushed {
		return ""
	}
	res, err := handoff.Publish(ctx, r, p.Remote, now, p.Rule)
	if err != nil {
		return p.failed(now, err)
	}
	p.failures, p.next = 0, time.Time{}
	p.pushed, _ = gitrepo.ReadRef(ctx, r.CommonDir, handoff.Ref)
	if res.Rolled != nil {
		return fmt.Sprintf("checkpoint branch pushed to %s (retention pruned %s: epoch %d)", p.Remote, PrunedText(*res.Rolled), res.Epoch)
	}
	if res.Rejected > 0 {
		return fmt.Sprintf("checkpoint branch pushed to %s (merged with another machine's first)", p.Remote)
	}
	return "checkpoint branch pushed to " + p.Remote
}

func (p *Publisher) failed(now time.Time, err error) string {
	wait := firstWait << min(p.failures, 6)
	p.failures++
	p.next = now.Add(min(wait, maxWait))
	return fmt.Sprintf("checkpoint branch not pushed (next try in %s): %v", min(wait, maxWait), err)
}
