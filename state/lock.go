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
	dir := filepath.Join(root, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	fl := flock.New(filepath.Join(dir, LockFile))
	ok, err := fl.TryLockContext(ctx, 10*time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", fl.Path(), err)
	}
	if !ok {
		return nil, fmt.Errorf("lock %s: not acquired", fl.Path())
	}
	return func() { _ = fl.Unlock() }, nil
}
