package capture

import (
	"fmt"
	"strings"

	"github.com/ccc-checkpoint/ccc/progress"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// Where is the repository position a continuation context names.
type Where struct {
	Branch, Head string
}

// maxListed bounds how many tasks of one section the context names.
const maxListed = 20

// Context is what a resumed or compacted session is told from captured
// truth: the current task, what is done, what remains, the files touched,
// open blockers, the last line the agent wrote and the branch and HEAD.
// hasList says whether the agent still holds its list; without one it is
// told to re-create it from the progress file (a hook cannot call tools),
// in its own tool names: recreate ("one TaskCreate … per current and
// remaining task"); "" asks nothing.
// Identity marks never appear: they are not part of a task's text.
func Context(doc *progress.Document, tr Transcript, hasList bool, recreate string, at Where) string {
	var b strings.Builder
	b.WriteString("Task state captured by ccc from your own task list (" + progress.FileName + "):\n")
	if doc.Current != nil && !doc.Current.Done {
		line := "- Current: " + one(doc.Current.Text)
		if doc.Current.Status != "" {
			line += " — " + one(doc.Current.Status)
		}
		b.WriteString(line + "\n")
	}
	var done, open []string
	for _, t := range doc.Completed {
		if t.Done {
			done = append(done, one(t.Text))
		} else {
			open = append(open, one(t.Text))
		}
	}
	for _, t := range doc.Remaining {
		if !t.Done {
			open = append(open, one(t.Text))
		}
	}
	fmt.Fprintf(&b, "- Done (%d): %s\n", len(done), listed(done))
	fmt.Fprintf(&b, "- Remaining (%d): %s\n", len(open), listed(open))
	if len(tr.Files) > 0 {
		b.WriteString("- Files touched lately: " + strings.Join(tr.Files, ", ") + "\n")
	}
	var blockers []string
	for _, x := range doc.Blockers {
		if !(x.Checkbox && x.Checked) {
			blockers = append(blockers, one(x.Description))
		}
	}
	if len(blockers) > 0 {
		b.WriteString("- Open blockers: " + listed(blockers) + "\n")
	}
	if tr.LastLine != "" {
		b.WriteString("- Your last message ended: " + clip(tr.LastLine, 300) + "\n")
	}
	if at.Branch != "" || at.Head != "" {
		b.WriteString("- Branch: " + strings.TrimSpace(at.Branch+" at "+short(at.Head)) + "\n")
	}
	if !hasList && recreate != "" && (doc.Current != nil && !doc.Current.Done || len(open) > 0) {
		b.WriteString("Your task list is empty in this session. Re-create it from the list above before you " +
			"continue: " + recreate + ", in this order, the current one in_progress, so that ccc keeps " +
			progress.FileName + " true.\n")
	}
	// The context goes to the agent: through the redactor whole, too (a
	// file path, a branch name).
	out, _ := redact.Text(strings.TrimRight(b.String(), "\n"))
	return out
}

func one(s string) string { return clip(strings.Join(strings.Fields(s), " "), 200) }

// clip is s redacted, then cut: a credential cut in two is no longer found.
func clip(s string, n int) string { return redact.Clip(s, n) }

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func listed(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	if len(items) > maxListed {
		return strings.Join(items[:maxListed], "; ") + fmt.Sprintf("; and %d more", len(items)-maxListed)
	}
	return strings.Join(items, "; ")
}
