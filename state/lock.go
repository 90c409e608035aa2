package state

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// Dir is ccc's own directory in a project: lock, backups, records, outbox.
const Dir = ".ccc"

// LockFile is the sidecar lock every ccc process takes before it changes a
// project's files.
const LockFile = "lock"

// Lock takes the project's exclusive lock, waiting for other ccc processes
// until ctx is done. The returned func releases it.
func Lock(ctx context.Context, root string) (unlock func(), err error) {
	return lockFile(ctx, filepath.Join(root, Dir), LockFile)
}

// LockDelivery takes the lock of one (sink, target, agent) delivery, so
// that two processes never upsert the same comment at once: both would find
// no comment yet and both would create one. It is not the project lock,
// which a delivery takes to store its reference.
func LockDelivery(ctx context.Context, root string, e Entry) (unlock func(), err error) {
	return lockFile(ctx, filepath.Join(root, Dir, "deliveries"), e.Key()+".lock")
}

func lockFile(ctx context.Context, dir, name string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	fl := flock.New(filepath.Join(dir, name))
	ok, err := fl.TryLockContext(ctx, 10*time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", fl.Path(), err)
	}
	if !ok {
		return nil, fmt.Errorf("lock %s: not acquired", fl.Path())
	}
	return func() { _ = fl.Unlock() }, nil
}
