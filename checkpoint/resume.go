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
	"github.com/ccc-checkpoint/ccc/records"
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
	// Source names where the prompt came from: the progress file, or the
	// state, a record or a backup standing in for it.
	Source string `json:"source"`
}

// BranchMoved reports a checkout of another branch since the checkpoint.
func (r Resume) BranchMoved() bool {
	return r.Branch != "" && r.NowBranch != "" && r.Branch != r.NowBranch
}

// HeadMoved reports commits (or a reset) since the checkpoint.
func (r Resume) HeadMoved() bool { return r.Head != "" && r.NowHead != "" && r.Head != r.NowHead }

// LoadResume reads the project's continuation prompt and compares the
// checkpoint's record with the repository as it is now. Sources, in order:
// the progress file, the state, the newest agent record, the progress
// file's backups; a missing progress file is rebuilt from the first source
// that has something (a corrupt one is never overwritten), and Source says
// which was used.
func LoadResume(ctx context.Context, root string, now time.Time, staleAfter time.Duration) (Resume, error) {
	path := filepath.Join(root, progress.FileName)
	var doc *progress.Document
	var problem string
	data, err := readProgress(path)
	switch {
	case err != nil:
		problem = err.Error()
	case data == nil:
		problem = "is missing"
	default:
		if doc, err = progress.Parse(data); err != nil {
			problem = "cannot be read: " + fileError(progress.FileName, err).Error()
		}
	}
	loaded, lerr := state.Load(root, now)
	source := progress.FileName
	if doc == nil {
		if lerr == nil {
			doc = docFromState(loaded.State, now)
			source = state.FileName
		}
		if doc == nil {
			doc, source = docFromRecord(ctx, root, now)
		}
		if doc == nil {
			doc, source = docFromBackups(root)
		}
		if doc == nil {
			if data == nil && err == nil {
				return Resume{}, fmt.Errorf("%w in %s (nor a state, record or backup to rebuild it from): run `ccc checkpoint` to start one", ErrNoProgress, root)
			}
			return Resume{}, fmt.Errorf("%s %s, and no state, record or backup to resume from", progress.FileName, problem)
		}
	}
	var notes []string
	if source != progress.FileName {
		note := fmt.Sprintf("%s %s; resumed from %s", progress.FileName, problem, source)
		if data == nil && err == nil {
			if werr := state.ReplaceFile(path, nil, doc.Render(), 0o644); werr == nil {
				note += " and rebuilt it"
			}
		}
		notes = append(notes, note)
	}
	r := Resume{Prompt: doc.Prompt(), Issue: doc.Issue.Key, TaskN: doc.TaskN(), TaskM: doc.TaskM(), CommitsSince: -1,
		Source: source, Warnings: notes}
	if lerr == nil && loaded.Corrupt != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s is not valid JSON (line %d): checkpoint details unknown", state.FileName, loaded.Corrupt.Line))
	}
	if lerr == nil {
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

// docFromState rebuilds a progress document from CCC's loop state, when the
// state names an issue or a plan.
func docFromState(st *state.State, now time.Time) *progress.Document {
	issue := st.Issue()
	if !progress.ValidIssue(issue) {
		issue = ""
	}
	total, _ := st.Int("totalTasks")
	if issue == "" && total <= 0 {
		return nil
	}
	doc := progress.New(issue, now)
	index, _ := st.Int("taskIndex")
	doc.AlignTo(min(max(index, 0), max(total, 0)), max(total, 0))
	doc.RefreshPrompt(st.ActiveTaskFiles(), true)
	return doc
}

// docFromBackups takes the newest progress backup that parses.
func docFromBackups(root string) (*progress.Document, string) {
	paths, err := state.Backups(root, progress.FileName)
	if err != nil {
		return nil, ""
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if doc, err := progress.Parse(data); err == nil {
			return doc, rel(root, p)
		}
	}
	return nil, ""
}

// docFromRecord rebuilds a progress document from the newest current agent
// record of the repository.
func docFromRecord(ctx context.Context, root string, now time.Time) (*progress.Document, string) {
	dir, err := records.Dir(ctx, root)
	if err != nil {
		return nil, ""
	}
	all, err := records.List(dir)
	if err != nil || len(all) == 0 {
		return nil, ""
	}
	newest := all[0]
	for _, r := range all[1:] {
		if r.UpdatedAt.After(newest.UpdatedAt) {
			newest = r
		}
	}
	issue := newest.Issue
	if !progress.ValidIssue(issue) {
		issue = ""
	}
	doc := progress.New(issue, now)
	for _, c := range newest.CompletedSteps {
		doc.Completed = append(doc.Completed, progress.Task{Text: c, Done: true})
	}
	if newest.CurrentStep != "" {
		doc.Current = &progress.Task{Text: newest.CurrentStep}
	}
	for _, n := range newest.NextSteps {
		doc.Remaining = append(doc.Remaining, progress.Task{Text: n})
	}
	doc.ContinuationPrompt = newest.ResumeInstructions
	doc.RefreshPrompt(newest.FilesModified, false)
	return doc, rel(root, records.CurrentPath(dir, newest.Agent))
}
