package progress

import (
	"fmt"
	"regexp"
	"strings"
)

// generatedRe matches a prompt of the shape GeneratePrompt writes (also with the line break before
// "Next action:" that the protocol's template shows), so a stale ccc-written prompt can be refreshed
// while one the agent wrote itself is left alone.
var generatedRe = regexp.MustCompile(`^Resume (?:\S+|the session)\. Current task: (?:task \d+ of \d+ — .*|none \(\d+ of \d+ tasks done\))\. Key files: .*\.[ \t]*\n?[ \t]*Next action: .*\.$`)

// GeneratePrompt builds the continuation prompt from the model:
//
//	Resume CIA-123. Current task: task 3 of 5 — <task>. Key files: a.go, b.go. Next action: <action>.
func (d *Document) GeneratePrompt(files []string) string {
	var b strings.Builder
	if d.Issue.Key != "" {
		fmt.Fprintf(&b, "Resume %s.", d.Issue.Key)
	} else {
		b.WriteString("Resume the session.")
	}
	if d.active() {
		fmt.Fprintf(&b, " Current task: task %d of %d — %s.", d.TaskN(), d.TaskM(), sentence(d.Current.Text))
	} else {
		fmt.Fprintf(&b, " Current task: none (%d of %d tasks done).", d.done(), d.TaskM())
	}
	keyFiles := "none"
	if len(files) > 0 {
		keyFiles = strings.Join(files, ", ")
	}
	fmt.Fprintf(&b, " Key files: %s. Next action: %s.", sentence(keyFiles), sentence(d.Next()))
	return b.String()
}

// Next returns the next action: the Next Action field, else continuing the current task, else starting
// the first remaining one, else reviewing the work.
func (d *Document) Next() string {
	switch {
	case d.NextAction != "":
		return d.NextAction
	case d.active():
		return "continue " + sentence(d.Current.Text)
	}
	for _, t := range d.Remaining {
		if !t.Done {
			return "start " + sentence(t.Text)
		}
	}
	return "review the finished work"
}

// sentence folds text onto one line without a final period, to sit inside a sentence of the prompt.
func sentence(s string) string {
	return strings.TrimRight(strings.Join(strings.Fields(s), " "), ".")
}

// RefreshPrompt regenerates the Continuation Prompt when force is set, when the section is empty, or
// when it still has the shape ccc generates (so a ccc-written prompt follows the edits); a prompt the
// agent wrote itself is kept. A legacy-layout document gets the section, which makes it canonical. It
// reports whether the prompt changed.
func (d *Document) RefreshPrompt(files []string, force bool) bool {
	cur := strings.TrimSpace(d.ContinuationPrompt)
	if !force && cur != "" && !generatedRe.MatchString(cur) {
		return false
	}
	p := d.GeneratePrompt(files)
	if p == d.ContinuationPrompt {
		return false
	}
	d.ContinuationPrompt = p
	return true
}

// Prompt returns the Continuation Prompt section, or a generated prompt when the section is empty.
func (d *Document) Prompt() string {
	if strings.TrimSpace(d.ContinuationPrompt) != "" {
		return d.ContinuationPrompt
	}
	return d.GeneratePrompt(nil)
}
