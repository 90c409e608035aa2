package progress

import (
	"regexp"
	"strings"
	"sync"
)

// FileName is the progress document in a project root.
const FileName = ".ccc-progress.md"

// ValidIssue reports whether key is an issue key like CIA-123.
func ValidIssue(key string) bool { return keyRe().MatchString(key) }

// keyAnyCaseRe is keyRe in either case; ASCII only, unlike (?i), which would
// also take the Kelvin sign for a K.
var keyAnyCaseRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*-[0-9]+$`) })

// NormalIssue reads an issue key written in any case, with spaces around it
// ("cia-12"), as its canonical form, the team key in upper case ("CIA-12").
// ok is false when s is no issue key.
func NormalIssue(s string) (key string, ok bool) {
	s = strings.TrimSpace(s)
	if !keyAnyCaseRe().MatchString(s) {
		return "", false
	}
	return strings.ToUpper(s), true
}

// CompletedCount is the number of finished tasks, wherever they are listed.
func (d *Document) CompletedCount() int { return d.done() }

// OpenBlockers lists the blockers that are not checked off.
func (d *Document) OpenBlockers() []Blocker {
	var open []Blocker
	for _, b := range d.Blockers {
		if !(b.Checkbox && b.Checked) {
			open = append(open, b)
		}
	}
	return open
}

// String is the decision as one line: "what: why".
func (d Decision) String() string {
	if d.Why == "" {
		return d.What
	}
	return d.What + ": " + d.Why
}

// String is the blocker as one line: "description (unblocked by: condition)".
func (b Blocker) String() string {
	if b.UnblockedBy == "" {
		return b.Description
	}
	return b.Description + " (unblocked by: " + b.UnblockedBy + ")"
}
