package progress

// FileName is the progress document in a project root.
const FileName = ".ccc-progress.md"

// ValidIssue reports whether key is an issue key like CIA-123.
func ValidIssue(key string) bool { return keyRe.MatchString(key) }

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
