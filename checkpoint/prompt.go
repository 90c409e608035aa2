package checkpoint

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ccc-checkpoint/ccc/progress"
)

// promptStep is protocol step 4: hand the continuation prompt to the human.
type promptStep struct{}

func (promptStep) String() string { return "Continuation prompt" }

func (promptStep) Consequence() string { return "generic prompt printed instead" }

func (promptStep) Run(_ context.Context, cp *Context) error {
	if doc := cp.persisted.unsaved; doc != nil {
		cp.Prompt, _ = cp.Redactor.Redact(doc.Prompt())
		cp.warnf("the continuation prompt holds this run's edits, which were not saved in %s: copy it now", progress.FileName)
		return nil
	}
	if cp.Doc == nil {
		cp.Prompt = progress.GenericPrompt
		if _, err := os.Stat(filepath.Join(cp.Root, progress.FileName)); errors.Is(err, fs.ErrNotExist) {
			return &Failure{Cause: "no " + progress.FileName}
		}
		return &Failure{Cause: progress.FileName + " could not be read"}
	}
	cp.Prompt, _ = cp.Redactor.Redact(cp.Doc.Prompt())
	return nil
}
