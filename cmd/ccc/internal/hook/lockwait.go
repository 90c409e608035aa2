package hook

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// LockBudget bounds how long one hook waits for the project lock
// (.ccc/lock) that another ccc process holds, all its waits together. A
// hook has 10-30s before the agent host kills it, and an agent waits on
// every stop: past the budget the hook records what it can without the
// lock (the stop hook's .ccc/pending/), says so in one line and exits 0.
const LockBudget = 3 * time.Second

// lockWaits is one hook's budget for the project lock, shared by every
// wait of that hook: the first wait starts the clock.
type lockWaits struct {
	budget time.Duration
	end    time.Time
	// said: the hook has reported the busy lock; later waits that give up
	// stay silent, so a hook prints one line for it.
	said bool
}

// withLockWaits gives env its lock budget (Env.LockWait, else LockBudget)
// unless it has one, which the copies of env made from then on share.
func (e Env) withLockWaits() Env {
	if e.locks == nil {
		e.locks = &lockWaits{budget: cmp.Or(e.LockWait, LockBudget)}
	}
	return e
}

// ctx is ctx bounded by the end of the hook's lock budget.
func (l *lockWaits) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	if l.end.IsZero() {
		l.end = time.Now().Add(l.budget)
	}
	return context.WithDeadline(ctx, l.end)
}

// lockBusy reports whether another process holds root's project lock past
// what is left of the hook's lock budget. It takes the lock and releases
// it at once: a lock that cannot be had for another reason (a read-only
// .ccc) is not busy, and its user says why.
func (e Env) lockBusy(ctx context.Context, root string) bool {
	e = e.withLockWaits()
	lctx, cancel := e.locks.ctx(ctx)
	defer cancel()
	unlock, err := projectfs.Lock(lctx, root)
	if err != nil {
		return errors.Is(err, projectfs.ErrBusy)
	}
	unlock()
	return false
}
