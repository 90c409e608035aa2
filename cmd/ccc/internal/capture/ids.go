package capture

import (
	"regexp"
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
