package checkpoint

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state"
)

// gitStep is protocol step 2: commit the in-scope files that changed. Its
// result (cp.snapshot) is the commit, for the agent's record.
type gitStep struct{}

// snapshot is what the git step returns for the steps after it.
type snapshot struct {
	// commit is the commit it made; "" when it made none.
	commit string
}

func (gitStep) String() string { return "Git snapshot" }

func (gitStep) Consequence() string { return "changes not committed" }

func (g gitStep) Run(ctx context.Context, cp *Context) error {
	res, err := g.take(ctx, cp)
	cp.snapshot = res
	return err
}

func (gitStep) take(ctx context.Context, cp *Context) (snapshot, error) {
	if cp.Git.Skip {
		return snapshot{}, sinks.Skip("--skip-git given")
	}
	if !cp.persisted.saved {
		// A commit named after a checkpoint that does not exist would
		// make "Nothing saved" untrue.
		return snapshot{}, sinks.Skip("progress not saved")
	}
	repo, err := gitrepo.Open(ctx, cp.Root)
	if errors.Is(err, gitrepo.ErrNotRepo) {
		return snapshot{}, sinks.Skip("not a git repository")
	}
	if err != nil {
		return snapshot{}, err
	}
	repo.NoHooks = cp.Git.NoHooks
	if cp.State == nil {
		return snapshot{}, sinks.Skip("no state to read activeTaskFiles from")
	}
	unlock, err := projectfs.Lock(ctx, cp.Root)
	if err != nil {
		return snapshot{}, err
	}
	msg, redacted := cp.commitMessage()
	if redacted > 0 {
		cp.warnf("git snapshot: %d secret(s) redacted from the commit message", redacted)
	}
	res, err := repo.Snapshot(ctx, scopedPaths(cp.Root, repo.Dir, cp.State.ActiveTaskFiles()), msg)
	unlock()
	for _, r := range res.Refused {
		cp.warnf("git snapshot: refused %q: %s", r.Path, r.Reason)
	}
	if err != nil {
		return snapshot{}, gitFailure(err)
	}
	if res.Skipped != "" {
		return snapshot{}, sinks.Skip("%s", res.Skipped)
	}
	if err := cp.updateState(ctx, func(st *state.State) error {
		last, _ := st.LastCheckpoint()
		last.Head = res.Commit
		return st.SetLastCheckpoint(last)
	}); err != nil {
		cp.warnf("git snapshot: commit %s not recorded in %s: %v", short(res.Commit), state.FileName, err)
	}
	noun := "files"
	if len(res.Files) == 1 {
		noun = "file"
	}
	cp.notef("committed %s (%d %s: %s)", short(res.Commit), len(res.Files), noun, strings.Join(res.Files, ", "))
	return snapshot{commit: res.Commit}, nil
}

// gitFailure gives a git error the cause the report shows: git's own words,
// else (git printed nothing, maybe never started) the error itself, never
// an empty "()".
func gitFailure(err error) error {
	var gerr *gitrepo.GitError
	if !errors.As(err, &gerr) {
		return err
	}
	cause := gerr.Message()
	if cause == "" {
		cause = gerr.Error()
	}
	return &Failure{Cause: cause, Err: err}
}

// commitMessage fills the preferences' template (CCC's `type(ISSUE):`
// Conventional Commits form by default), redacted, and says how many
// credentials it replaced. The task is redacted before it is cut to the
// subject's length: a credential cut in two is no longer recognised, and its
// first part would stay in the history.
func (cp *Context) commitMessage() (string, int) {
	issue, task := "checkpoint", "no current task"
	n, m := 0, 0
	if d := cp.Doc; d != nil {
		if d.Issue.Key != "" {
			issue = d.Issue.Key
		}
		if d.Current != nil {
			task = d.Current.Text
		}
		n, m = d.TaskN(), d.TaskM()
		// The commit holds the work on the task that was current when the
		// checkpoint began, not the one --done just promoted.
		if c := cp.persisted.task; c != nil {
			task, n = c.text, c.n
		}
	}
	template := cp.Git.CommitMessage
	if template == "" {
		template = config.DefaultCommitMessage
	}
	task, n1 := cp.Redactor.Redact(task)
	subject := clipRunes(firstLine(task), maxSubjectTask)
	msg := strings.NewReplacer(
		"{issue}", issue, "{n}", strconv.Itoa(n), "{m}", strconv.Itoa(m), "{task}", subject,
	).Replace(template)
	// A task the subject could not hold whole goes, in full up to a limit,
	// into the body.
	if full := strings.TrimSpace(task); subject != full && strings.Contains(template, "{task}") {
		msg += "\n\n" + clipRunes(full, maxBodyTask)
	}
	msg, n2 := cp.Redactor.Redact(msg) // the template and the issue key; the task's markers stay
	msg = clipRunes(msg, maxCommitMessage)
	if cp.Handoff.on() {
		// The commit names its checkpoint on the branch, and the branch's
		// entry names the commit: either leads to the other.
		msg = strings.TrimRight(msg, "\n") + "\n\n" + TrailerKey + ": " + cp.CheckpointID() + "\n"
	}
	return msg, n1 + n2
}

// The commit message's limits: the task in the subject line (a summary
// line stays readable in `git log --oneline`), the task in the body, and
// the whole message (a template from the preferences may be long too).
const (
	maxSubjectTask   = 72
	maxBodyTask      = 8 << 10
	maxCommitMessage = 16 << 10
)

// clipRunes shortens s to at most n runes, the last one "…".
func clipRunes(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// scopedPaths makes activeTaskFiles, written relative to the project root,
// usable when that root is a folder below the git top level.
func scopedPaths(root, top string, files []string) []string {
	if filepath.Clean(root) == filepath.Clean(top) {
		return files
	}
	out := make([]string, len(files))
	for i, f := range files {
		if f != "" && !filepath.IsAbs(f) && !strings.HasPrefix(f, "-") {
			f = filepath.Join(root, f)
		}
		out[i] = f
	}
	return out
}
