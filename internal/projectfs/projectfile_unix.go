//go:build unix

package projectfs

import (
	"errors"
	"syscall"
)

const (
	openNonblock = syscall.O_NONBLOCK
	openNofollow = syscall.O_NOFOLLOW
)

// isLoop: O_NOFOLLOW met a symlink.
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
