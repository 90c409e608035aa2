package projectfs

import (
	"context"
	"errors"
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
	if err := EnsureDir(root); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	return LockIn(ctx, root, filepath.Join(root, Dir), LockFile)
}

// ignoreFile keeps .ccc/ out of git whatever the project's .gitignore
// says: nothing in it (outbox bodies, locks, records) belongs in a commit,
// and a repository that did commit it would hand the next clone's ccc
// entries it never wrote.
const ignoreFile = ".gitignore"

// EnsureDir makes the project's .ccc directory with its own .gitignore
// ("*"), which is written when missing and otherwise left alone. Only a
// directory that cannot be made is an error: a read-only .ccc still locks.
func EnsureDir(root string) error {
	dir, err := ProjectDir(root) // a .ccc symlinked out is not written through
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, ignoreFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		_, _ = f.WriteString("*\n")
		_ = f.Close()
	}
	return nil
}

// ErrBusy is a lock that another live process holds until the caller gave
// up waiting. Any other lock error (a directory or lock file that cannot be
// created or opened) is not contention and says its own cause.
var ErrBusy = errors.New("held by another ccc process")

// DeliveryLocks is the folder under .ccc of the per-delivery locks (see
// outbox.LockDelivery); Locks reports them too.
const DeliveryLocks = "deliveries"

// LockIn takes the exclusive lock dir/name, a lock file inside root, waiting
// for other processes until ctx is done; Lock is LockIn on the project lock.
func LockIn(ctx context.Context, root, dir, name string) (unlock func(), err error) {
	// The lock file is opened with O_CREATE: a .ccc, or a lock, committed as
	// a symlink out of the project would make ccc create files there.
	if err := Inside(root, filepath.Join(dir, name)); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	fl := flock.New(filepath.Join(dir, name))
	// One attempt first, whatever ctx says: it tells a lock file that
	// cannot be opened (permissions, read-only file system) from one that
	// is held.
	ok, err := fl.TryLock()
	if err == nil && !ok {
		ok, err = fl.TryLockContext(ctx, 10*time.Millisecond)
		if err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("lock %s: %w (%w)", fl.Path(), ErrBusy, err)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", fl.Path(), err)
	}
	if !ok {
		return nil, fmt.Errorf("lock %s: %w", fl.Path(), ErrBusy)
	}
	return func() { _ = fl.Unlock() }, nil
}

// LockStatus is one lock file as `ccc doctor` finds it.
type LockStatus struct {
	Path string
	// Held: a live process holds it now. A flock dies with its process,
	// so a lock file left by a crash is never held: there are no stale
	// locks to break, only lock files, which are harmless.
	Held bool
	// Err is a lock file that cannot be opened (wrong owner, permissions):
	// every ccc run would fail to take it.
	Err error
}

// Locks tries, without waiting, each lock file given (missing ones are
// skipped) and the delivery locks under root's .ccc, and releases at once
// what it took.
func Locks(root string, paths ...string) []LockStatus {
	paths = append([]string{filepath.Join(root, Dir, LockFile)}, paths...)
	more, _ := filepath.Glob(filepath.Join(root, Dir, DeliveryLocks, "*.lock"))
	var out []LockStatus
	for _, p := range append(paths, more...) {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		// Opening a FIFO read-only would block: only a regular file in
		// the project is opened.
		if err := Inside(root, p); err != nil {
			out = append(out, LockStatus{Path: p, Err: err})
			continue
		}
		if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() {
			out = append(out, LockStatus{Path: p, Err: &FileError{Path: p, Problem: "is " + fileKind(fi.Mode()) + ", not a regular file", Kind: ErrNotRegular}})
			continue
		}
		fl := flock.New(p, flock.SetFlag(os.O_RDONLY))
		ok, err := fl.TryLock()
		switch {
		case err != nil:
			out = append(out, LockStatus{Path: p, Err: err})
		case !ok:
			out = append(out, LockStatus{Path: p, Held: true})
		default:
			_ = fl.Unlock()
			out = append(out, LockStatus{Path: p})
		}
	}
	return out
}
