package capture

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
)

var unsafeID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_-]`) })

// SafeID is an agent's task id as one word for a task's mark, an HTML
// comment: every character but letters, digits, '-' and '_' becomes '-'
// (Claude Code's own file-name sanitizer, /[^a-zA-Z0-9_-]/g).
func SafeID(s string) string { return unsafeID().ReplaceAllString(s, "-") }

// ParseStatus maps an agent's status word; an unknown one counts as
// pending.
func ParseStatus(s string) Status {
	switch Status(s) {
	case InProgress, Completed, Cancelled, Blocked:
		return Status(s)
	}
	return Pending
}

// TextID is the id of a list item that has no id of its own: "t-" and
// eight hex digits of the hash of its text, spacing and case aside. Such
// an item is its text, not its place in the list: a list that shrinks,
// restarts or is reordered never lends a finished task's mark to another.
func TextID(text string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.Join(strings.Fields(text), " "))))
	return textIDPrefix + hex.EncodeToString(sum[:4])
}

const textIDPrefix = "t-"

// byText reports whether a mark's id names an item by its text (or, as
// ccc wrote it before, by its position), not by the tool's own id.
func byText(id string) bool {
	return strings.HasPrefix(id, textIDPrefix) || strings.HasPrefix(id, "todo-")
}
