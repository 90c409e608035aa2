package progress

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
)

// generatedRe matches a prompt of the shape GeneratePrompt writes (also with the line break before
// "Next action:" that the protocol's template shows). The shape alone says nothing about who wrote a
// prompt, since the protocol teaches agents this very form: it only narrows LooksGenerated.
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

// RefreshPrompt regenerates the Continuation Prompt when force is set or the section is empty; any
// other prompt is kept, because only the caller knows whether ccc wrote it (see PromptHash and
// LooksGenerated). A legacy-layout document gets the section, which makes it canonical. It reports
// whether the prompt changed.
func (d *Document) RefreshPrompt(files []string, force bool) bool {
	if !force && strings.TrimSpace(d.ContinuationPrompt) != "" {
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

// PromptHash identifies a prompt's text, ignoring how it is spaced and broken into lines, so a caller
// can remember which prompt it wrote and later tell it from one somebody else wrote.
func PromptHash(prompt string) string {
	sum := sha256.Sum256([]byte(strings.Join(strings.Fields(prompt), " ")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// LooksGenerated reports whether the Continuation Prompt is, word for word (spacing and line breaks
// aside), what GeneratePrompt gives for the document as it stands with one of the file lists. It is the
// fallback for a prompt whose provenance was never recorded: a prompt the agent wrote in the protocol's
// form names its own key files and next action, so it almost never passes.
func (d *Document) LooksGenerated(fileLists ...[]string) bool {
	cur := strings.TrimSpace(d.ContinuationPrompt)
	if cur == "" || !generatedRe.MatchString(cur) {
		return false
	}
	h := PromptHash(cur)
	if len(fileLists) == 0 {
		fileLists = [][]string{nil}
	}
	for _, files := range fileLists {
		if PromptHash(d.GeneratePrompt(files)) == h {
			return true
		}
	}
	return false
}
