//go:build unix

package projectfs

import "syscall"

const openNonblock = syscall.O_NONBLOCK
