//go:build unix

package projectfs

import (
	"errors"
	"os"
	"syscall"
)

// errHeld is a temp file whose writer is alive: it holds the file's flock.
var errHeld = errors.New("held by a running process")

// holdTemp flocks a temp file for as long as it is open. Best effort: on a
// file system without flock, RemoveStaleTemp goes by age alone.
func holdTemp(f *os.File) {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// removeUnheld removes path unless another open file holds its flock; it
// keeps the lock while removing, so no writer can take it meanwhile.
func removeUnheld(path string) error {
	// The reader's own open: a FIFO swapped in after the listing must not
	// block the hook, and a symlink is not ccc's temp file.
	f, err := openChecked("", path, true)
	if err != nil {
		return err
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errHeld
	}
	// Any other flock error: a file system without flock, where the
	// writer could not lock either; the age alone decides.
	return os.Remove(path)
}

// processGone reports whether no process has this pid (0: unknown, so no).
// EPERM means one exists that is not ours to signal.
func processGone(pid int) bool {
	if pid <= 0 {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
