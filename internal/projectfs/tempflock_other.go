//go:build !unix

package projectfs

import (
	"errors"
	"os"
)

var errHeld = errors.New("held by a running process")

// holdTemp does nothing where there is no flock: an open file cannot be
// removed there anyway.
func holdTemp(*os.File) {}

func removeUnheld(path string) error { return os.Remove(path) }

// processGone cannot tell here: the age alone decides.
func processGone(int) bool { return false }
