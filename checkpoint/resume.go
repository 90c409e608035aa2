package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// ErrNoProgress means a project has no progress document to resume from.
var ErrNoProgress = errors.New("no " + progress.FileName)

// ClearedFile, under the project's .ccc directory, records when the user
// deleted the checkpoint or started afresh (`ccc go`'s (d)elete and (s)tart
// fresh): the stand-ins from before then (backups, records) are not
// resumed. It holds an RFC 3339 time.
const ClearedFile = "resume-cleared"

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
	// Broken says why the progress file was not used (progress.Check):
	// path:line, the problem and the fix. A stand-in gave the prompt.
	Broken string `json:"broken,omitempty"`
}

// BranchMoved reports a checkout of another branch since the checkpoint.
func (r Resume) BranchMoved() bool {
	return r.Branch != "" && r.NowBranch != "" && r.Branch != r.NowBranch
}

// HeadMoved reports commits (or a reset) since the checkpoint.
func (r Resume) HeadMoved() bool { return r.Head != "" && r.NowHead != "" && r.Head != r.NowHead }

// ResumeOptions are LoadResumeWith's choices.
type ResumeOptions struct {
	// Agent is whose record stands in for a missing progress file ("" is
	// config.DefaultAgent).
	Agent string
	// StaleAfter flags an older checkpoint (0: never).
	StaleAfter time.Duration
	// ReadOnly writes nothing: a missing progress file is not rebuilt
	// (the session-start hook only reports).
	ReadOnly bool
	// Redactor replaces the credentials in the prompt and the warnings:
	// the prompt goes into the next session and onto the screen. nil is
	// redact.Default (the process's own credentials).
	Redactor *redact.Redactor
}

// LoadResume is LoadResumeWith for the default agent.
func LoadResume(ctx context.Context, root string, now time.Time, staleAfter time.Duration) (Resume, error) {
	return LoadResumeWith(ctx, root, now, ResumeOptions{StaleAfter: staleAfter})
}

// LoadResumeWith reads the project's continuation prompt and compares the
// checkpoint's record with the repository as it is now. Sources, in order:
// the progress file; the state, when it holds a plan (a state without one
// gives only its issue); this agent's record, else the newest record made
// on this branch (never another agent's otherwise); the progress file's
// backups. A missing progress file is rebuilt from the first source that
// has something, unless ReadOnly (a corrupt one is never overwritten), and
// Source says which was used. The checkpoint is dated by the source's own
// time, never by a file just written.
func LoadResumeWith(ctx context.Context, root string, now time.Time, o ResumeOptions) (Resume, error) {
	r, err := loadResume(ctx, root, now, o)
	r.Prompt, _ = o.Redactor.Redact(r.Prompt)
	for i, w := range r.Warnings {
		r.Warnings[i], _ = o.Redactor.Redact(w)
	}
	return r, err
}

func loadResume(ctx context.Context, root string, now time.Time, o ResumeOptions) (Resume, error) {
	if o.Agent == "" {
		o.Agent = config.DefaultAgent
	}
	path := filepath.Join(root, progress.FileName)
	pf := readResumeProgress(path)
	var st *state.State
	loaded, lerr := state.Load(root, now)
	if lerr == nil {
		st = loaded.State
	}
	var nowBranch, nowHead string
	repo, rerr := gitrepo.Open(ctx, root)
	if rerr == nil {
		nowBranch, _ = repo.Branch(ctx)
		nowHead, _ = repo.Head(ctx)
	}
	recDir, _ := records.Dir(ctx, root)

	doc := pf.doc
	var m mark
	var notes []string
	source := progress.FileName
	if doc != nil {
		m = dateProgress(doc, st, recDir, o.Agent, path)
	} else {
		var err error
		if doc, source, m, notes, err = resumeStandIn(root, recDir, st, o, nowBranch, pf); err != nil {
			return Resume{}, err
		}
	}
	r := Resume{Prompt: doc.Prompt(), Issue: doc.Issue.Key, TaskN: doc.TaskN(), TaskM: doc.TaskM(), CommitsSince: -1,
		Source: source, Warnings: notes, At: m.at, Branch: m.branch, Head: m.head, NowBranch: nowBranch, NowHead: nowHead}
	if pf.broken != nil {
		r.Broken = pf.broken.Error()
	}
	r.Warnings = append(r.Warnings, promptWarnings(doc, st)...)
	if lerr == nil && loaded.Corrupt != nil {
		c := loaded.Corrupt
		w := fmt.Sprintf("%s:%d:%d: not valid JSON: %s", c.Path, c.Line, c.Col, c.Msg)
		if loaded.SetAside != "" {
			w += "; a copy is kept at " + loaded.SetAside
		}
		r.Warnings = append(r.Warnings, w+"; checkpoint details unknown")
	}
	if !r.At.IsZero() {
		r.Age = now.Sub(r.At)
		r.Stale = o.StaleAfter > 0 && r.Age > o.StaleAfter
	}
	if rerr == nil {
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

// resumeProgress is the progress file as resume read it.
type resumeProgress struct {
	data   []byte
	err    error
	broken error // progress.Check's
	// doc is the parsed document, nil when problem says why not.
	doc     *progress.Document
	problem string
}

func readResumeProgress(path string) resumeProgress {
	var pf resumeProgress
	pf.data, pf.err = readProgress(path)
	pf.broken = progress.Check(progress.FileName, pf.data)
	switch {
	case pf.err != nil:
		pf.problem = strings.TrimPrefix(pf.err.Error(), progress.FileName+" ") // named once, below
	case pf.data == nil:
		pf.problem = "is missing"
	case pf.broken != nil:
		// Never "0 of 0 tasks, complete" or half of a conflict: a stand-in
		// gives the prompt, and the file stays as it is.
		pf.problem = "is broken (" + pf.broken.Error() + ")"
	default:
		var err error
		if pf.doc, err = progress.Parse(pf.data); err != nil {
			pf.problem = "cannot be read: " + fileError(progress.FileName, err).Error()
		}
	}
	return pf
}

// resumeStandIn finds a document to resume from when the progress file
// gives none, rebuilding a missing file from it unless o.ReadOnly.
func resumeStandIn(root, recDir string, st *state.State, o ResumeOptions, nowBranch string, pf resumeProgress) (
	doc *progress.Document, source string, m mark, notes []string, err error,
) {
	path := filepath.Join(root, progress.FileName)
	doc, source, m, note, others := standIn(root, recDir, st, o.Agent, nowBranch, clearedAt(root))
	if doc == nil {
		hint := ""
		if len(others) > 0 {
			hint = fmt.Sprintf("; the records of other agents (%s) are not resumed: name one with --agent (or CCC_AGENT), or hand its work over with ccc takeover",
				strings.Join(others, ", "))
		}
		if pf.data == nil && pf.err == nil {
			return nil, "", m, nil, fmt.Errorf("%w in %s (nor a state with a plan, this agent's record or a backup to rebuild it from%s): run `ccc checkpoint` to start one",
				ErrNoProgress, root, hint)
		}
		if pf.broken != nil {
			return nil, "", m, nil, fmt.Errorf("%w; nothing to resume from instead (no state with a plan, record or backup%s)", pf.broken, hint)
		}
		return nil, "", m, nil, fmt.Errorf("%s %s, and no state with a plan, record or backup to resume from%s", progress.FileName, pf.problem, hint)
	}
	n := fmt.Sprintf("%s %s; resumed from %s", progress.FileName, pf.problem, source)
	if pf.data == nil && pf.err == nil && !o.ReadOnly {
		if werr := projectfs.ReplaceFile(path, nil, doc.Render(), 0o644); werr == nil {
			n += " and rebuilt it"
		}
	}
	notes = append(notes, n)
	if note != "" {
		notes = append(notes, note)
	}
	return doc, source, m, notes, nil
}

// promptWarnings say where the continuation prompt contradicts the
// document it sits in (an agent edited the tasks by hand, or wrote a prompt
// and moved on), and what will bring it in line.
func promptWarnings(doc *progress.Document, st *state.State) []string {
	conflicts := doc.PromptConflicts()
	if len(conflicts) == 0 {
		return nil
	}
	var files []string
	if st != nil {
		files = st.ActiveTaskFiles()
	}
	fix := "edit the prompt, or regenerate it with ccc checkpoint --refresh-prompt"
	if doc.PromptByCCC(files) {
		fix = "the next ccc checkpoint regenerates it"
	}
	out := make([]string, len(conflicts))
	for i, c := range conflicts {
		out[i] = c + "; " + fix
	}
	return out
}

// mark is when a checkpoint was taken and where the repository stood: the
// age and the drift always come from the same mark.
type mark struct {
	at           time.Time
	branch, head string
}

func sameSecond(a, b time.Time) bool {
	return a.UTC().Truncate(time.Second).Equal(b.UTC().Truncate(time.Second))
}

// dateProgress dates the progress file. Every ccc checkpoint stamps its
// time in **Session:**, records itself in this agent's record (both
// profiles) and, unless the stop hook owns the state, in the state: the
// record or state entry made at the Session time is the checkpoint that
// wrote the file, and gives its branch and HEAD. A Session nothing matches
// (an agent edited the file) dates it, with the state's last checkpoint
// before it for the drift; without a Session, the state's last checkpoint,
// then the file's modification time.
func dateProgress(doc *progress.Document, st *state.State, recDir, agent, path string) mark {
	var fromState *mark
	if st != nil {
		if cp, ok := st.LastCheckpoint(); ok && !cp.At.IsZero() {
			fromState = &mark{cp.At.UTC(), cp.Branch, cp.Head}
		}
	}
	session, serr := time.Parse(time.RFC3339, strings.TrimSpace(doc.Session))
	if serr == nil {
		if recDir != "" {
			if rec := readRecord(recDir, agent); rec != nil && sameSecond(rec.UpdatedAt, session) {
				return mark{rec.UpdatedAt.UTC(), rec.Branch, rec.Head}
			}
		}
		if fromState != nil && sameSecond(fromState.at, session) {
			return *fromState
		}
		m := mark{at: session.UTC()}
		if fromState != nil && !fromState.at.After(session) {
			m.branch, m.head = fromState.branch, fromState.head
		}
		return m
	}
	if fromState != nil {
		return *fromState
	}
	if fi, err := os.Stat(path); err == nil {
		return mark{at: fi.ModTime().UTC()}
	}
	return mark{}
}

// readRecord reads agent's current record without migrating it (nil when
// there is none or it cannot be read).
func readRecord(dir, agent string) *records.Record {
	if records.ValidAgent(agent) != nil {
		return nil
	}
	path := records.CurrentPath(dir, agent)
	data, err := projectfs.ReadProjectFile(dir, path, projectfs.MaxRecordSize)
	if err != nil {
		return nil
	}
	r, _, err := records.Decode(path, data)
	if err != nil {
		return nil
	}
	return r
}

// standIn finds the first source that can stand in for a missing or
// unreadable progress file. others names the agents whose records were
// passed over.
func standIn(root, recDir string, st *state.State, agent, branch string, cleared time.Time) (
	doc *progress.Document, source string, m mark, note string, others []string) {
	issue := ""
	if st != nil {
		if k, ok := progress.NormalIssue(st.Issue()); ok {
			issue = k
		}
		if doc, m = docFromState(st, issue); doc != nil {
			return doc, state.FileName, m, "", nil
		}
	}
	if recDir != "" {
		var rec *records.Record
		rec, note, others = pickRecord(recDir, agent, branch, cleared)
		if rec != nil {
			return docFromRecord(rec, issue), rel(root, records.CurrentPath(recDir, rec.Agent)),
				mark{rec.UpdatedAt.UTC(), rec.Branch, rec.Head}, note, nil
		}
	}
	if doc, source, m = docFromBackups(root, cleared); doc != nil {
		if doc.Issue.Key == "" && issue != "" {
			doc.Issue.Key = issue
		}
		return doc, source, m, "", nil
	}
	return nil, "", mark{}, "", others
}

// docFromState rebuilds a progress document from CCC's loop state when it
// holds a plan (totalTasks). The state ccc itself writes holds only the
// issue and its checkpoint: that is no plan, and a document rebuilt from it
// would claim every task done.
func docFromState(st *state.State, issue string) (*progress.Document, mark) {
	total, _ := st.Int("totalTasks")
	if total <= 0 {
		return nil, mark{}
	}
	var m mark
	if cp, ok := st.LastCheckpoint(); ok && !cp.At.IsZero() {
		m = mark{cp.At.UTC(), cp.Branch, cp.Head}
	} else if t, err := time.Parse(time.RFC3339, st.String("lastUpdatedAt")); err == nil {
		m = mark{at: t.UTC()}
	}
	doc := progress.New(issue, m.at)
	if m.at.IsZero() {
		doc.Session = ""
	}
	index, _ := st.Int("taskIndex")
	doc.AlignTo(min(max(index, 0), total), total)
	doc.RefreshPrompt(st.ActiveTaskFiles(), true)
	return doc, m
}

// pickRecord chooses the record that stands in for this worktree's
// progress: the agent's own, else the newest made on this branch (with a
// note naming its agent). Another agent's record on another branch is
// that agent's work, running elsewhere: it is never resumed silently, only
// named in others. Records from before a deliberate delete are skipped.
func pickRecord(dir, agent, branch string, cleared time.Time) (rec *records.Record, note string, others []string) {
	all, _ := records.List(dir)
	var sameBranch *records.Record
	for _, r := range all {
		switch {
		case !cleared.IsZero() && !r.UpdatedAt.After(cleared):
		case r.Agent == agent:
			return r, "", nil
		case branch != "" && r.Branch == branch:
			if sameBranch == nil || r.UpdatedAt.After(sameBranch.UpdatedAt) {
				sameBranch = r
			}
		default:
			others = append(others, r.Agent)
		}
	}
	if sameBranch != nil {
		return sameBranch, fmt.Sprintf("agent %s has no record; resumed agent %s's, made on this branch (%s)", agent, sameBranch.Agent, branch), nil
	}
	return nil, "", others
}

// docFromRecord rebuilds a progress document from an agent record.
func docFromRecord(rec *records.Record, stateIssue string) *progress.Document {
	issue, ok := progress.NormalIssue(rec.Issue)
	if !ok {
		issue = stateIssue
	}
	doc := progress.New(issue, rec.UpdatedAt)
	for _, c := range rec.CompletedSteps {
		doc.Completed = append(doc.Completed, progress.Task{Text: c, Done: true})
	}
	if rec.CurrentStep != "" {
		doc.Current = &progress.Task{Text: rec.CurrentStep}
	}
	for _, n := range rec.NextSteps {
		doc.Remaining = append(doc.Remaining, progress.Task{Text: n})
	}
	doc.ContinuationPrompt = rec.ResumeInstructions
	doc.RefreshPrompt(rec.FilesModified, false)
	return doc
}

// docFromBackups takes the newest progress backup that parses, is not
// broken (progress.Check) and was made after any deliberate delete, dated
// by its Session, else by the time it was backed up.
func docFromBackups(root string, cleared time.Time) (*progress.Document, string, mark) {
	paths, err := projectfs.Backups(root, progress.FileName)
	if err != nil {
		return nil, "", mark{}
	}
	for _, p := range paths {
		// Backups are named <file>.<UTC time of the backup>.
		stamp, err := projectfs.ParseStamp(strings.TrimPrefix(filepath.Base(p), progress.FileName+"."))
		if err != nil || !cleared.IsZero() && !stamp.After(cleared) {
			continue
		}
		data, err := projectfs.ReadProjectFile(root, p, progress.MaxSize)
		if err != nil {
			continue
		}
		doc, err := progress.Parse(data)
		if err != nil || progress.Check(progress.FileName, data) != nil {
			continue
		}
		m := mark{at: stamp.UTC()}
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(doc.Session)); err == nil {
			m.at = t.UTC()
		}
		return doc, rel(root, p), m
	}
	return nil, "", mark{}
}

// clearedAt is when the checkpoint was last deleted on purpose (zero when
// never).
func clearedAt(root string) time.Time {
	data, err := projectfs.ReadProjectFile(root, filepath.Join(root, projectfs.Dir, ClearedFile), 1<<10)
	if err != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(data)))
	if err != nil {
		return time.Time{}
	}
	return t
}

// Cleared says what ClearResume set aside.
type Cleared struct {
	// Progress is the copy of the progress file, under .ccc/backups ("" when
	// there was none).
	Progress string `json:"progress,omitempty"`
	// Record is where the agent's record went, in its history ("" when it
	// had none).
	Record string `json:"record,omitempty"`
	// State lists the keys taken out of the state.
	State []string `json:"state,omitempty"`
}

// ClearResume deletes the checkpoint on the user's request, losing
// nothing: the progress file goes into the backups, the agent's record into
// its history, the plan (taskIndex, totalTasks) and ccc's checkpoint entry
// out of the state (every other key stays), and a marker (ClearedFile, at
// now) keeps the backups and records made until now, the copy included,
// from being resumed in their place. The next
// checkpoint starts afresh.
func ClearResume(ctx context.Context, root, agent string, now time.Time) (Cleared, error) {
	if agent == "" {
		agent = config.DefaultAgent
	}
	var c Cleared
	unlock, err := projectfs.Lock(ctx, root)
	if err != nil {
		return c, err
	}
	defer unlock()
	dir, err := projectfs.ProjectDir(root)
	if err != nil {
		return c, err
	}
	marker := filepath.Join(dir, ClearedFile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return c, err
	}
	// The marker first: whatever fails later, nothing older is resumed.
	if err := projectfs.WriteFileAtomic(marker, []byte(now.UTC().Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
		return c, err
	}
	path := filepath.Join(root, progress.FileName)
	aside, err := projectfs.Backup(root, path, now)
	if err != nil {
		return c, err
	}
	if aside != "" {
		if err := os.Remove(path); err != nil {
			return c, err
		}
		c.Progress = rel(root, aside)
	}
	if dir, err := records.Dir(ctx, root); err == nil {
		kept, err := records.Retire(ctx, dir, agent, now)
		switch {
		case err == nil:
			c.Record = rel(root, kept)
		case !errors.Is(err, records.ErrNoRecord):
			return c, err
		}
	}
	loaded, err := state.Load(root, now)
	if err == nil && loaded.Corrupt == nil && fileExists(state.Path(root)) {
		st := loaded.State
		for _, k := range []string{"taskIndex", "totalTasks"} {
			if st.Has(k) {
				st.Delete(k)
				c.State = append(c.State, k)
			}
		}
		if dropped, err := dropCheckpoint(st); err != nil {
			return c, err
		} else if dropped {
			c.State = append(c.State, "ccc.checkpoint")
		}
		if len(c.State) > 0 {
			if err := state.Save(root, st, now); err != nil {
				return c, err
			}
		}
	}
	return c, nil
}

// dropCheckpoint removes ccc's checkpoint entry from the state's ccc
// section, keeping the rest of it (the trackers' references).
func dropCheckpoint(st *state.State) (bool, error) {
	raw, ok := st.Raw("ccc")
	if !ok {
		return false, nil
	}
	var sec map[string]json.RawMessage
	if err := json.Unmarshal(raw, &sec); err != nil {
		return false, nil // not ccc's shape: leave it
	}
	if _, ok := sec["checkpoint"]; !ok {
		return false, nil
	}
	delete(sec, "checkpoint")
	if len(sec) == 0 {
		st.Delete("ccc")
		return true, nil
	}
	return true, st.Set("ccc", sec)
}

// Summary is the resume in one sentence for a person: the issue, the task,
// when and where the checkpoint was taken, from which file.
func (r Resume) Summary() string {
	s := "Checkpoint"
	if r.Issue != "" {
		s += " for " + r.Issue
	}
	s += fmt.Sprintf(" (task %d of %d)", r.TaskN, r.TaskM)
	if !r.At.IsZero() {
		s += fmt.Sprintf(", taken %s ago (%s)", ui.Age(r.Age), r.At.UTC().Format("2006-01-02 15:04 MST"))
	}
	if r.Branch != "" {
		s += " on " + r.Branch
	}
	if r.Head != "" {
		s += " at " + ui.ShortSHA(r.Head)
	}
	if r.Source != "" && r.Source != progress.FileName {
		s += " (from " + r.Source + ")"
	}
	return s + "."
}

// DriftWarnings say what may have made the checkpoint out of date: its age
// over staleAfter, a branch switch, HEAD moved (how).
func (r Resume) DriftWarnings(staleAfter time.Duration) []string {
	var w []string
	if r.Stale {
		w = append(w, fmt.Sprintf("the checkpoint is %s old (over %s): check that the prompt still holds", ui.Age(r.Age), ui.Age(staleAfter)))
	}
	if r.BranchMoved() {
		w = append(w, fmt.Sprintf("branch changed since the checkpoint: was %s, now %s", r.Branch, r.NowBranch))
	}
	switch {
	case !r.HeadMoved():
	case r.CommitsSince > 0:
		w = append(w, fmt.Sprintf("HEAD moved since the checkpoint: %d new commit(s), %s → %s", r.CommitsSince, ui.ShortSHA(r.Head), ui.ShortSHA(r.NowHead)))
	default:
		w = append(w, fmt.Sprintf("HEAD moved since the checkpoint: %s → %s (not a descendant: reset or rebased?)", ui.ShortSHA(r.Head), ui.ShortSHA(r.NowHead)))
	}
	return w
}
