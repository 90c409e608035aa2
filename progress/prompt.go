package progress

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/ccc-checkpoint/ccc/markdown"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// generatedRe matches a prompt of the shape GeneratePrompt writes (also with the line break before
// "Next action:" that the protocol's template shows). The shape alone says nothing about who wrote a
// prompt, since the protocol teaches agents this very form: it only narrows LooksGenerated.
var generatedRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^Resume (?:\S+|the session)\. Current task: (?:task \d+ of \d+ — .*|none \(\d+ of \d+ tasks done\))\. Key files: .*\.[ \t]*\n?[ \t]*Next action: .*\.$`)
})

// FailurePrefix starts a blocker that ends the work as failed: `ccc checkpoint --fail REASON` adds the
// blocker "FAILED: REASON", and an agent editing the progress file can write one too.
const FailurePrefix = "FAILED: "

// GeneratePrompt builds the continuation prompt from the model:
//
//	Resume CIA-123. Current task: task 3 of 5 — <task>. Key files: a.go, b.go. Next action: <action>.
func (d *Document) GeneratePrompt(files []string) string { return d.generate(files, d.Next()) }

func (d *Document) generate(files []string, next string) string {
	var b strings.Builder
	if d.Issue.Key != "" {
		fmt.Fprintf(&b, "Resume %s.", d.Issue.Key)
	} else {
		b.WriteString("Resume the session.")
	}
	if d.active() {
		fmt.Fprintf(&b, " Current task: task %d of %d — %s.", d.TaskN(), d.TaskM(), promptText(d.Current.Text))
	} else {
		fmt.Fprintf(&b, " Current task: none (%d of %d tasks done).", d.done(), d.TaskM())
	}
	keyFiles := "none"
	if len(files) > 0 {
		keyFiles = strings.Join(files, ", ")
	}
	fmt.Fprintf(&b, " Key files: %s. Next action: %s.", promptText(keyFiles), promptText(next))
	return b.String()
}

// MaxPromptText is how many characters of one text (the current task, the key files, the next action)
// the generated prompt holds. The prompt is a pointer to the document, not a copy: a task of megabytes
// once made a prompt, and a progress file, twice its size, which the next run refused.
const MaxPromptText = 1000

// promptText is text as the generated prompt holds it: on one line, at most MaxPromptText characters,
// the last one "…" when it was cut.
func promptText(s string) string { return redact.ClipOnly(sentence(s), MaxPromptText) }

// Next returns the next action: the Next Action field; else, while the work has failed (an open
// FAILED: blocker), looking into the failure; else continuing the current task (which the prompt and
// the status name just before, so the action does not repeat its text); else starting the first
// remaining task; else resolving an open blocker; else, with no task at all, planning the work; else
// reviewing the finished work.
func (d *Document) Next() string {
	if d.NextAction != "" {
		return d.NextAction
	}
	if reason, failed := d.Failure(); failed {
		what := "investigate the failure"
		if reason != "" {
			what += " (" + reason + ")"
		}
		return what + "; to retry, reopen the work with ccc checkpoint --unblock FAILED"
	}
	if d.active() {
		return "continue the current task"
	}
	if t, ok := d.firstOpen(); ok {
		return "start " + sentence(t.Text)
	}
	if open := d.OpenBlockers(); len(open) > 0 {
		return "resolve the blocker: " + sentence(open[0].String())
	}
	if d.TaskM() == 0 {
		return PlanAction
	}
	return "review the finished work"
}

// PlanAction is the next action while the document lists no task: the work has not started.
const PlanAction = "plan the work: list its tasks (ccc checkpoint --add-task, or the agent's own task list)"

// legacyNext is what Next said before it stopped repeating the current task and learned about
// failures and blockers: prompts ccc wrote then, in files without a mark, are still its own.
func (d *Document) legacyNext() string {
	switch {
	case d.NextAction != "":
		return d.NextAction
	case d.active():
		return "continue " + sentence(d.Current.Text)
	}
	if t, ok := d.firstOpen(); ok {
		return "start " + sentence(t.Text)
	}
	return "review the finished work"
}

func (d *Document) firstOpen() (Task, bool) {
	for _, t := range d.Remaining {
		if !t.Done {
			return t, true
		}
	}
	return Task{}, false
}

// Failure reports whether the work ended as failed, an open blocker starting with FailurePrefix, and
// the reason that blocker gives.
func (d *Document) Failure() (reason string, failed bool) {
	for _, b := range d.OpenBlockers() {
		if r, ok := strings.CutPrefix(b.String(), FailurePrefix); ok {
			return sentence(r), true
		}
	}
	return "", false
}

// sentence folds text onto one line without a final period, to sit inside a sentence of the prompt.
func sentence(s string) string {
	return strings.TrimRight(strings.Join(strings.Fields(s), " "), ".")
}

// RefreshPrompt regenerates the Continuation Prompt, and marks it as ccc's (PromptMark), when force is
// set or the section is empty; any other prompt is kept, because only the caller knows whether it may
// replace it (see PromptByCCC). A legacy-layout document gets the section, which makes it canonical.
// It reports whether the prompt or its mark changed.
func (d *Document) RefreshPrompt(files []string, force bool) bool {
	if !force && strings.TrimSpace(d.ContinuationPrompt) != "" {
		return false
	}
	p := d.GeneratePrompt(files)
	mark := PromptHash(p)
	if p == d.ContinuationPrompt && mark == d.PromptMark {
		return false
	}
	d.ContinuationPrompt, d.PromptMark = p, mark
	return true
}

// Prompt returns the Continuation Prompt section, or a generated prompt when the section is empty.
// It never holds ccc's mark.
func (d *Document) Prompt() string {
	if strings.TrimSpace(d.ContinuationPrompt) != "" {
		return d.ContinuationPrompt
	}
	return d.GeneratePrompt(nil)
}

// PromptHash identifies a prompt's text, ignoring how it is spaced and broken into lines: the value of
// the mark ccc writes after a prompt it generated ("sha256:" and 12 hex digits).
func PromptHash(prompt string) string {
	sum := sha256.Sum256([]byte(strings.Join(strings.Fields(prompt), " ")))
	return "sha256:" + hex.EncodeToString(sum[:6])
}

// markRe is the line ccc writes right after a prompt it generated: an HTML comment, hidden wherever
// the file is rendered (GitHub, an editor's preview), that a person rewriting the section drops with
// the text.
var markRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[ \t]*<!-- ccc:generated (sha256:[0-9a-f]{12}) -->[ \t]*$`)
})

func markLine(mark string) string { return "<!-- ccc:generated " + mark + " -->" }

// splitMark takes ccc's mark out of the section's text. A mark line anywhere (a person may have added
// text below it) is never part of the prompt, so it cannot leak into what ccc prints; the last one
// counts.
func splitMark(text string) (prompt, mark string) {
	if !strings.Contains(text, "ccc:generated") {
		return text, ""
	}
	var keep []string
	for _, l := range strings.Split(text, "\n") {
		if m := markRe().FindStringSubmatch(l); m != nil {
			mark = m[1]
			continue
		}
		keep = append(keep, l)
	}
	blank := func(l string) bool { return markdown.IsBlank([]byte(l)) }
	for len(keep) > 0 && blank(keep[0]) {
		keep = keep[1:]
	}
	for len(keep) > 0 && blank(keep[len(keep)-1]) {
		keep = keep[:len(keep)-1]
	}
	return strings.Join(keep, "\n"), mark
}

// PromptByCCC reports whether the Continuation Prompt is ccc's to regenerate: empty; or followed by
// ccc's mark whose hash matches the text as it stands (spacing aside), so a person who edits the text,
// even keeping the mark, makes it theirs; or, in a file without a mark (written before ccc marked its
// prompts), word for word what ccc generates for the document with one of the file lists
// (LooksGenerated). The answer comes from the document alone: a restored backup, a `git checkout` or a
// teammate's copy of the file carries its own provenance.
func (d *Document) PromptByCCC(fileLists ...[]string) bool {
	cur := strings.TrimSpace(d.ContinuationPrompt)
	switch {
	case cur == "":
		return true
	case d.PromptMark != "":
		return d.PromptMark == PromptHash(cur)
	}
	return d.LooksGenerated(fileLists...)
}

// LooksGenerated reports whether the Continuation Prompt is, word for word (spacing and line breaks
// aside), what GeneratePrompt gives (or gave, before its wording changed) for the document as it
// stands with one of the file lists. It is the fallback for a prompt without ccc's mark: a prompt the
// agent wrote in the protocol's form names its own key files and next action, so it almost never
// passes.
func (d *Document) LooksGenerated(fileLists ...[]string) bool {
	cur := strings.TrimSpace(d.ContinuationPrompt)
	if cur == "" || !generatedRe().MatchString(cur) {
		return false
	}
	h := PromptHash(cur)
	if len(fileLists) == 0 {
		fileLists = [][]string{nil}
	}
	for _, files := range fileLists {
		for _, next := range []string{d.Next(), d.legacyNext()} {
			if PromptHash(d.generate(files, next)) == h {
				return true
			}
		}
	}
	return false
}

// PromptConflicts says where the Continuation Prompt contradicts the document: the current task it
// names is not the Current Task section's, or its next action is not the Next Action field's (only
// when the document has that field; the action ccc derives may be put in other words). Only what a
// prompt states in the protocol's form ("Current task: …", "Next action: …") is compared; free prose
// contradicts nothing.
func (d *Document) PromptConflicts() []string {
	text := strings.Join(strings.Fields(d.ContinuationPrompt), " ")
	lower := strings.ToLower(text)
	var out []string
	if i := strings.Index(lower, "current task:"); i >= 0 {
		said := text[i+len("current task:"):]
		for _, end := range []string{". key files:", ". next action:"} {
			if j := strings.Index(strings.ToLower(said), end); j >= 0 {
				said = said[:j]
			}
		}
		said = strings.TrimSpace(strings.TrimRight(said, ". "))
		said = taskPosRe().ReplaceAllString(said, "")
		none := said == "" || strings.HasPrefix(strings.ToLower(said), "none")
		switch {
		case d.active() && none:
			out = append(out, fmt.Sprintf("the continuation prompt says there is no current task, but the Current Task section has %q", clip(sentence(d.Current.Text))))
		case !d.active() && !none:
			out = append(out, fmt.Sprintf("the continuation prompt names %q as the current task, but the Current Task section has none", clip(said)))
		case d.active() && !sameWords(said, d.Current.Text) && !sameWords(said, d.Current.Text+" — "+d.Current.Status):
			out = append(out, fmt.Sprintf("the continuation prompt names %q as the current task, but the Current Task section has %q", clip(said), clip(sentence(d.Current.Text))))
		}
	}
	if i := strings.LastIndex(lower, "next action:"); i >= 0 && d.NextAction != "" {
		said := sentence(text[i+len("next action:"):])
		if !sameWords(said, d.NextAction) {
			out = append(out, fmt.Sprintf("the continuation prompt gives %q as the next action, but the Next Action field says %q", clip(said), clip(oneLine(d.NextAction))))
		}
	}
	return out
}

// taskPosRe is the "task 3 of 5 — " before the current task's text in the protocol's prompt.
var taskPosRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?i:task)\s+\d+\s+(?i:of)\s+\d+\s*[—–-]\s*`) })

// sameWords reports whether a prompt's words a are b's, also as the generated prompt cuts a long b.
func sameWords(a, b string) bool {
	return strings.EqualFold(sentence(a), sentence(b)) || strings.EqualFold(sentence(a), promptText(b))
}

// clip shortens text quoted in a warning, redacted first.
func clip(s string) string { return redact.Clip(s, 80) }

// GenericPrompt is printed when the progress document cannot be read, so
// the next session still starts from somewhere.
const GenericPrompt = "Resume the session. Read " + FileName + " for the completed, current and remaining tasks, " +
	"check `git log` and `git status` for work since the last checkpoint, then continue with the current task."

const boxWidth = 50

// PromptBox frames a continuation prompt the way the protocol prints it.
func PromptBox(prompt string) string {
	var b strings.Builder
	bar := strings.Repeat("═", boxWidth)
	title := "  CONTINUATION PROMPT"
	b.WriteString("╔" + bar + "╗\n")
	b.WriteString("║" + title + strings.Repeat(" ", boxWidth-len(title)) + "║\n")
	b.WriteString("╚" + bar + "╝\n\n")
	b.WriteString(strings.TrimSpace(prompt) + "\n\n")
	b.WriteString("Copy this prompt into your next session's first message.\n")
	return b.String()
}

// keyFilesRe finds the key files of a prompt of GeneratePrompt's shape.
var keyFilesRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Key files: (.*?)\.[ \t]*\n?[ \t]*Next action: `) })

// PromptFiles returns the key files the continuation prompt names, when ccc generated it; nil
// otherwise. A capture that knows no better keeps them when it regenerates the prompt.
func (d *Document) PromptFiles() []string {
	m := keyFilesRe().FindStringSubmatch(d.ContinuationPrompt)
	if m == nil || m[1] == "none" || !d.PromptByCCC() {
		return nil
	}
	return strings.Split(m[1], ", ")
}
