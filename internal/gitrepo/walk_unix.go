//go:build unix

package gitrepo

import (
	"io/fs"
	"os"
	"syscall"
)

// owner is the device and owner of what fi describes; ok false when the
// platform does not say.
func owner(fi fs.FileInfo) (dev uint64, uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), int(st.Uid), true //nolint:unconvert // Dev's type differs between platforms
}

// euid is the user git compares a repository's owner with.
func euid() int { return os.Geteuid() }

// syscallNotDir is a path through a file: no ref there.
var syscallNotDir error = syscall.ENOTDIR
