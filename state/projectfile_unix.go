//go:build unix

package state

import "syscall"

const openNonblock = syscall.O_NONBLOCK
