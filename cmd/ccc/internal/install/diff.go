package install

import (
	"path/filepath"

	"github.com/aymanbagabas/go-udiff"
)

// unifiedDiff is the change an installer makes to the file at path, as a
// unified diff (three lines of context), "" when there is none. A file
// that did not exist is diffed from /dev/null.
func unifiedDiff(path string, before, after []byte) string {
	if string(before) == string(after) {
		return ""
	}
	name := filepath.ToSlash(path)
	from := "a/" + name
	if len(before) == 0 {
		from = "/dev/null"
	}
	return udiff.Unified(from, "b/"+name, string(before), string(after))
}
