package checkpoint

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/progress"
)

// GenericPrompt is printed when the progress document cannot be read, so
// the next session still starts from somewhere.
const GenericPrompt = "Resume the session. Read " + progress.FileName + " for the completed, current and remaining tasks, " +
	"check `git log` and `git status` for work since the last checkpoint, then continue with the current task."

// promptStep is protocol step 4: hand the continuation prompt to the human.
type promptStep struct{}

func (promptStep) String() string { return "Continuation prompt" }

func (promptStep) Consequence() string { return "generic prompt printed instead" }

func (promptStep) Run(_ context.Context, cp *Checkpoint) error {
	if cp.Doc == nil {
		cp.Prompt = GenericPrompt
		if _, err := os.Stat(filepath.Join(cp.Root, progress.FileName)); errors.Is(err, fs.ErrNotExist) {
			return &Failure{Cause: "no " + progress.FileName}
		}
		return &Failure{Cause: progress.FileName + " could not be read"}
	}
	cp.Prompt, _ = cp.Redactor.Redact(cp.Doc.Prompt())
	return nil
}

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
