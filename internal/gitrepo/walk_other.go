//go:build !unix

package gitrepo

import (
	"errors"
	"io/fs"
)

// owner says nothing where there is no Stat_t: discovery asks git.
func owner(fs.FileInfo) (dev uint64, uid int, ok bool) { return 0, 0, false }

func euid() int { return -1 }

// syscallNotDir matches nothing here: such a path asks git.
var syscallNotDir = errors.New("not a directory")
