package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ccc-checkpoint/ccc/gitrepo"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
)

// ErrNoProgress means a project has no progress document to resume from.
var ErrNoProgress = errors.New("no " + progress.FileName)

// Resume is what `ccc go` tells the next session.
type Resume struct {
	Prompt string `json:"prompt"`
	Issue  string `json:"issue,omitempty"`
	TaskN  int    `json:"task_n"`
	TaskM  int    `json:"task_m"`
	// At is when the checkpoint was taken (zero when unknown).
	At    time.Time     `json:"checkpoint_at,omitzero"`
	Age   time.Duration `json:"-"`
	Stale bool          `json:"stale"`
	// Branch and Head as recorded, and as they are now.
	Branch    string `json:"branch,omitempty"`
	Head      string `json:"head,omitempty"`
	NowBranch string `json:"current_branch,omitempty"`
	NowHead   string `json:"current_head,omitempty"`
	// CommitsSince counts commits from Head to NowHead (-1 when unknown,
	// e.g. history rewritten).
	CommitsSince int      `json:"commits_since"`
	Warnings     []string `json:"warnings,omitempty"`
}

// BranchMoved reports a checkout of another branch since the checkpoint.
func (r Resume) BranchMoved() bool {
	return r.Branch != "" && r.NowBranch != "" && r.Branch != r.NowBranch
}

// HeadMoved reports commits (or a reset) since the checkpoint.
func (r Resume) HeadMoved() bool { return r.Head != "" && r.NowHead != "" && r.Head != r.NowHead }

// LoadResume reads the project's continuation prompt and compares the
// checkpoint's record with the repository as it is now.
func LoadResume(ctx context.Context, root string, now time.Time, staleAfter time.Duration) (Resume, error) {
	path := filepath.Join(root, progress.FileName)
	data, err := readProgress(path)
	if err != nil {
		return Resume{}, err
	}
	if data == nil {
		return Resume{}, fmt.Errorf("%w in %s: run `ccc checkpoint` to start one", ErrNoProgress, root)
	}
	doc, err := progress.Parse(data)
	if err != nil {
		return Resume{}, fileError(progress.FileName, err)
	}
	r := Resume{Prompt: doc.Prompt(), Issue: doc.Issue.Key, TaskN: doc.TaskN(), TaskM: doc.TaskM(), CommitsSince: -1}

	loaded, err := state.Load(root, now)
	if err == nil && loaded.Corrupt != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s is not valid JSON (line %d): checkpoint details unknown", state.FileName, loaded.Corrupt.Line))
	}
	if err == nil {
		if cp, ok := loaded.State.LastCheckpoint(); ok {
			r.At, r.Branch, r.Head = cp.At, cp.Branch, cp.Head
		}
	}
	if r.At.IsZero() {
		// No record (older file, or a hand-written one): the file's time.
		if fi, err := os.Stat(path); err == nil {
			r.At = fi.ModTime().UTC()
		}
	}
	r.Age = now.Sub(r.At)
	r.Stale = staleAfter > 0 && r.Age > staleAfter

	if repo, err := gitrepo.Open(ctx, root); err == nil {
		r.NowBranch, _ = repo.Branch(ctx)
		r.NowHead, _ = repo.Head(ctx)
		if r.HeadMoved() {
			if n, err := repo.CommitsBetween(ctx, r.Head, r.NowHead); err == nil {
				r.CommitsSince = n
			}
		} else if r.Head != "" {
			r.CommitsSince = 0
		}
	}
	return r, nil
}
