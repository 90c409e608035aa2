//go:build !unix

package projectfs

// openNonblock is 0 where there are no FIFOs to block on; without
// O_NOFOLLOW, OpenOwnFile's Lstat check is the only one.
const (
	openNonblock = 0
	openNofollow = 0
)

func isLoop(error) bool { return false }
