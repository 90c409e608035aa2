package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// writeAttempts bounds how often persist re-reads a progress file that
// another writer keeps changing under it.
const writeAttempts = 5

// persistStep is protocol step 1: bring .ccc-progress.md up to date with the
// edits and record the checkpoint in .ccc-state.json. Its result
// (cp.persisted) says whether the edits reached the disk, for the record
// step, and which task they started from, for the git snapshot.
type persistStep struct {
	// write replaces the progress file (nil: replaceProgress); tests wrap
	// it to play another writer between ccc's read and its write.
	write writeFunc
}

// writeFunc backs up the progress file at path and replaces its orig bytes
// with out; it returns the backup's path.
type writeFunc func(cp *Context, path string, orig, out []byte) (backup string, err error)

// persisted is what the persist step returns for the steps after it.
type persisted struct {
	// saved: the edits reached the disk (or needed no write).
	saved bool
	// task is the task current before the edits: the work the git snapshot
	// commits.
	task *committedTask
	// src is the file persist read or wrote, which cp.Doc holds: a later
	// step that finds it unchanged on disk need not parse it again.
	src []byte
	// unsaved is the document with the run's edits when they could not
	// be saved (nil when there were none): the prompt step's alone.
	unsaved *progress.Document
}

func (persistStep) String() string { return "Persist progress" }

func (persistStep) Consequence() string { return "progress not saved; .ccc-progress.md left as it was" }

func (p persistStep) Run(ctx context.Context, cp *Context) error {
	res, err := p.persist(ctx, cp)
	// The later steps must not show edits that never reached the disk:
	// they get the document as it is there (nil when it cannot be read).
	// Only the continuation prompt, which the user copies by hand, keeps
	// them (res.unsaved), so that --next and --current are not lost too.
	if err != nil && !res.saved && !stopsRun(err) {
		res.unsaved = cp.unsavedDoc(cp.Doc)
		cp.Doc = cp.docOnDisk()
	}
	cp.persisted = res
	return err
}

func (p persistStep) persist(ctx context.Context, cp *Context) (persisted, error) {
	unlock, err := projectfs.Lock(ctx, cp.Root)
	if err != nil {
		return persisted{}, err
	}
	defer unlock()
	// The folders this run writes in, its own history among them; the rest
	// of .ccc is ccc doctor's (issue 26).
	hist := filepath.Join(cp.Root, filepath.FromSlash(records.SubDir), records.HistoryDir, cp.Agent)
	if rep := projectfs.RemoveStaleTempNear(cp.Root, hist); len(rep.Removed) > 0 {
		cp.debugf("persist: removed %d temp file(s) left by an interrupted write", len(rep.Removed))
	}
	if err := cp.loadState(); err != nil {
		return persisted{}, err
	}
	if repo, err := gitrepo.Open(ctx, cp.Root); err == nil {
		cp.branch, _ = repo.Branch(ctx)
		cp.head, _ = repo.Head(ctx)
	}
	res, created, err := p.writeProgress(cp)
	if err != nil {
		return res, err
	}
	res.saved = true
	stateErr := cp.saveState()
	if err := cp.syncRoot(); err != nil {
		return res, &Failure{Cause: "progress not made durable: " + err.Error(), Err: err}
	}
	verb := "updated"
	if created {
		verb = "created"
	}
	cp.notef("%s %s (task %d of %d, %s)", verb, progress.FileName, cp.Doc.TaskN(), cp.Doc.TaskM(), cp.Doc.Status())
	if stateErr != nil {
		return res, &Failure{Cause: "state not saved: " + stateErr.Error(), Err: stateErr,
			Consequence: "progress saved, checkpoint not recorded in " + state.FileName}
	}
	if cp.stateReadOnly {
		cause := state.FileName + " is not valid JSON"
		if c := cp.stateCorrupt; c != nil {
			cause = rel(cp.Root, c.Where()) + ": not valid JSON"
		}
		return res, &Failure{Cause: cause,
			Consequence: "progress saved, " + state.FileName + " left untouched"}
	}
	return res, nil
}

// syncRoot makes the progress file's rename durable: the state file's save
// in the same directory fsynced it already when it wrote (cp.stateWrote);
// otherwise (the state kept, corrupt or not saved) the directory is fsynced
// here. The progress file's own data was fsynced before its rename, and the
// state's rename follows it in the same directory, which file systems
// journal in order: a crash keeps neither, the progress file alone, or both
// (DESIGN.md, Files).
func (cp *Context) syncRoot() error {
	if cp.stateWrote != nil {
		return nil
	}
	return projectfs.SyncDir(cp.Root)
}

// loadState reads the state file (the caller holds the lock); a corrupt
// one is read from its backup, or the progress file alone, and is never
// overwritten.
func (cp *Context) loadState() error {
	loaded, err := state.Load(cp.Root, cp.Now)
	if err != nil {
		return err
	}
	cp.State = loaded.State
	c := loaded.Corrupt
	if c == nil {
		return nil
	}
	cp.stateReadOnly, cp.stateCorrupt = true, c
	from := "the progress file alone"
	if loaded.From != "" {
		from = "backup " + rel(cp.Root, loaded.From)
	}
	where := *c
	where.Path = rel(cp.Root, c.Path)
	kept := "a copy is kept at " + rel(cp.Root, loaded.SetAside) + " and the file"
	if loaded.SetAside == "" { // too big to copy
		kept = "the file"
	}
	cp.warnf("%s: not valid JSON: %s; %s is left untouched; continuing from %s. Fix or remove it to record checkpoints again.",
		where.Where(), c.Msg, kept, from)
	return nil
}

// writeProgress updates the progress file, reading it again while another
// writer keeps changing it under ccc (at most writeAttempts times).
func (p persistStep) writeProgress(cp *Context) (res persisted, created bool, err error) {
	path := filepath.Join(cp.Root, progress.FileName)
	for attempt := 1; ; attempt++ {
		res, created, err = p.updateProgress(cp, path)
		if !errors.Is(err, projectfs.ErrChanged) || attempt == writeAttempts {
			return res, created, err
		}
		cp.debugf("persist: %s changed while being updated; re-reading (attempt %d)", progress.FileName, attempt+1)
	}
}

// stopsRun says whether err ends the run with nothing written: an edit
// that cannot apply, or a progress file too broken to touch.
func stopsRun(err error) bool {
	return stopReport(err) != nil
}

// UsageError is a checkpoint that cannot run as asked: an edit flag that
// does not apply to the document (`--unblock` matching no blocker, `--done`
// with no current task). Nothing is written and no later step runs, so a
// script learns that its edit was dropped from the exit status alone.
type UsageError struct {
	// Problems name the flag and say why, one per edit: `--unblock "x": no
	// blocker matches`.
	Problems []string
}

func (e *UsageError) Error() string { return strings.Join(e.Problems, "; ") }

// editUsage turns the edits Apply could not make into a UsageError.
func editUsage(err error) *UsageError {
	u := &UsageError{}
	for _, e := range progress.EditErrors(err) {
		u.Problems = append(u.Problems, "--"+e.Error())
	}
	if len(u.Problems) == 0 {
		u.Problems = []string{err.Error()}
	}
	return u
}

// committedTask is the task that was current when the checkpoint started:
// the work the git snapshot commits.
type committedTask struct {
	n    int
	text string
}

// updateProgress reads, edits and replaces the progress file, failing with
// projectfs.ErrChanged when someone else wrote it in between.
func (p persistStep) updateProgress(cp *Context, path string) (res persisted, created bool, err error) {
	orig, doc, modTime, err := cp.readDoc(path)
	if err != nil {
		return res, false, err
	}
	created = orig == nil
	files, listed := cp.keyFiles(), cp.State.ActiveTaskFiles()
	// Whose prompt it is is decided on the document as read (the sync and
	// the edits change what ccc would generate for it), and by the document
	// alone: its mark travels with it through restores and checkouts.
	ours := doc.PromptByCCC(files, listed)
	forcedBy := cp.promptForcedBy()
	regenerate := ours || len(forcedBy) > 0
	written := doc.ContinuationPrompt
	if res.task, err = cp.edit(doc, created, modTime); err != nil {
		return res, created, err
	}
	if regenerate {
		doc.RefreshPrompt(files, true)
	}
	doc, out, redacted := cp.redactHeld(doc, regenerate, files)
	cp.Doc = doc

	if orig != nil && string(out) == string(orig) {
		res.src = orig
		return res, false, nil
	}
	backup, err := p.replace(cp, path, doc, redacted, orig, out)
	if err != nil {
		return res, created, err
	}
	res.src = out
	if !ours && progress.PromptHash(written) != progress.PromptHash(doc.ContinuationPrompt) {
		cp.warnf("the continuation prompt the agent wrote was replaced by one generated for %s; the old text is in %s",
			strings.Join(forcedBy, " and "), rel(cp.Root, backup))
	}
	return res, created, nil
}

// readDoc reads and parses the progress file: orig is nil and doc a new
// document when there is none.
func (cp *Context) readDoc(path string) (orig []byte, doc *progress.Document, modTime time.Time, err error) {
	orig, err = readProgress(path)
	if err != nil {
		return nil, nil, modTime, err
	}
	if orig == nil {
		return nil, progress.New(cp.issueFor(nil), cp.Now), modTime, nil
	}
	// One parse: the check and the document come from the same pass.
	if doc, err = progress.CheckParse(rel(cp.Root, path), orig); err != nil {
		// Input that is not text (a NUL byte, invalid UTF-8) is as broken
		// as a merge conflict: refused with its line, nothing written, no
		// later step reporting or committing a misreading of it.
		var pe *progress.ParseError
		if errors.As(err, &pe) {
			return nil, nil, modTime, &progress.BrokenError{Path: rel(cp.Root, path), Line: pe.Line, Problem: pe.Msg}
		}
		if errors.As(err, new(*progress.BrokenError)) {
			return nil, nil, modTime, err
		}
		return nil, nil, modTime, fileError(rel(cp.Root, path), err)
	}
	if fi, err := os.Stat(path); err == nil {
		modTime = fi.ModTime()
	}
	return orig, doc, modTime, nil
}

// edit reconciles doc with CCC's loop state and applies the run's edits. It
// returns the task that was current before them, for the commit.
func (cp *Context) edit(doc *progress.Document, created bool, modTime time.Time) (*committedTask, error) {
	if n := cp.syncSources(doc, created, modTime); n != "" {
		cp.notice = n
	}
	var task *committedTask
	if c := doc.Current; c != nil && !c.Done {
		task = &committedTask{n: doc.TaskN(), text: c.Text}
	}
	edits := cp.Edits
	if edits.Issue == "" && doc.Issue.Key == "" {
		edits.Issue = cp.issueFor(doc)
	}
	if m := cp.State.String("executionMode"); m != "" && edits.Mode == "" && (doc.Mode == "" || created) {
		edits.Mode = "exec:" + m
	}
	edits.Session = cp.Now.UTC().Format(state.TimeLayout)
	if err := doc.Apply(edits); err != nil {
		return task, editUsage(err)
	}
	// Tasks the edits named fill the plan's placeholder slots rather than
	// adding to them, so CCC's loop and the document count the same tasks.
	if total := cp.planTotal(); total > 0 {
		doc.FillSlots(total)
		cp.followTotal(doc, total)
	}
	return task, nil
}

// redactHeld renders doc with the credentials ccc holds replaced. A live
// credential the agent wrote into the file would reach the status, the
// prompt, the record and a commit: the file ccc rewrites gets the marker
// instead, said in a warning; the text before is in the backup. Only the
// credentials ccc holds: a pattern's false positive would destroy the
// user's text.
func (cp *Context) redactHeld(doc *progress.Document, regenerate bool, files []string) (*progress.Document, []byte, bool) {
	out := doc.Render()
	red, n := cp.Redactor.HeldOnly().Redact(string(out))
	if n == 0 {
		return doc, out, false
	}
	rdoc, perr := progress.Parse([]byte(red))
	if perr != nil {
		return doc, out, false
	}
	doc, out = rdoc, []byte(red)
	if regenerate { // its mark must match the text as written
		doc.RefreshPrompt(files, true)
		out = doc.Render()
	}
	cp.warnf("persist: %d credential(s) ccc holds (%s) replaced with [REDACTED:secret] in %s; the text before is in %s",
		n, strings.Join(redact.SecretsFromEnvNames, ", "), progress.FileName, filepath.Join(projectfs.Dir, projectfs.BackupDir))
	return doc, out, true
}

// replace checks that out keeps what orig held and writes it; it returns
// the backup's path.
func (p persistStep) replace(cp *Context, path string, doc *progress.Document, redacted bool, orig, out []byte) (string, error) {
	// A new file is checked too: what ccc writes, the next run must read.
	// Tasks are matched by text, against the document as parsed; after a
	// redaction, against the original as redacted, so a task whose held
	// credential was replaced is not counted lost.
	if !redacted {
		if err := doc.CheckRender(rel(cp.Root, path), out); err != nil {
			return "", err
		}
	} else {
		var was []byte
		if orig != nil {
			r, _ := cp.Redactor.HeldOnly().Redact(string(orig))
			was = []byte(r)
		}
		if err := progress.CheckRewrite(rel(cp.Root, path), was, out); err != nil {
			return "", err
		}
	}
	write := p.write
	if write == nil {
		write = replaceProgress
	}
	return write(cp, path, orig, out)
}

// replaceProgress backs up the progress file and replaces it, failing with
// projectfs.ErrChanged when it no longer holds orig. The backup is of orig,
// the bytes readDoc read, not of a second read (issue 26); a file changed
// since is not replaced, and the next attempt backs up what it reads.
// The progress file's directory is fsynced after the rename by persist,
// with the state's (persist.syncRoot): one directory fsync for both.
func replaceProgress(cp *Context, path string, orig, out []byte) (string, error) {
	if orig == nil {
		return "", projectfs.ReplaceFileDirLater(path, nil, out, 0o644) // nothing to back up
	}
	// Copied, never linked: users and agents edit this file in place.
	backup, err := projectfs.BackupOf(cp.Root, path, orig, cp.Now, false)
	if err != nil {
		return "", err
	}
	return backup, projectfs.ReplaceFileDirLater(path, orig, out, 0o644)
}

// promptForcedBy names the flags that make persist regenerate the
// continuation prompt even when the agent wrote it: --refresh-prompt, and
// the edits a prompt must reflect (--next, --current, --done).
func (cp *Context) promptForcedBy() []string {
	var flags []string
	if cp.Edits.Next != "" {
		flags = append(flags, "--next")
	}
	if cp.Edits.Current != "" {
		flags = append(flags, "--current")
	}
	if len(cp.Edits.Done) > 0 {
		flags = append(flags, "--done")
	}
	if cp.Persist.RefreshPrompt {
		flags = append(flags, "--refresh-prompt")
	}
	return flags
}

// keyFiles are the activeTaskFiles the prompt names: those the git snapshot
// would accept, so the next session is not sent to .ccc/ or to "-rf".
func (cp *Context) keyFiles() []string {
	var out []string
	for _, f := range cp.State.ActiveTaskFiles() {
		if gitrepo.ScopeRefusal(cp.Root, f) == "" {
			out = append(out, f)
		}
	}
	return out
}

// unsavedDoc is the document this run meant to save, with its edits and the
// prompt they regenerate, once persist failed to save it: edited is the one
// persist had made (nil when it failed before, at the lock or the state).
// nil when the run made no edit or the file cannot be read.
func (cp *Context) unsavedDoc(edited *progress.Document) *progress.Document {
	e := cp.Edits
	if len(e.Done)+len(e.AddTasks)+len(e.Decisions)+len(e.Blockers)+len(e.Unblock) == 0 &&
		e.Current == "" && e.Next == "" && e.Issue == "" && !cp.Persist.RefreshPrompt {
		return nil
	}
	if edited != nil {
		return edited
	}
	data, err := readProgress(filepath.Join(cp.Root, progress.FileName))
	if err != nil {
		return nil
	}
	doc := progress.New(cp.issueFor(nil), cp.Now)
	if data != nil {
		if doc, err = progress.CheckParse(progress.FileName, data); err != nil {
			return nil
		}
	}
	var files, listed []string
	if cp.State != nil { // nil when the lock could not be taken
		files, listed = cp.keyFiles(), cp.State.ActiveTaskFiles()
	}
	regenerate := doc.PromptByCCC(files, listed) || len(cp.promptForcedBy()) > 0
	if e.Issue == "" && doc.Issue.Key == "" {
		e.Issue = cp.issueFor(doc)
	}
	if doc.Apply(e) != nil {
		return nil
	}
	if regenerate {
		doc.RefreshPrompt(files, true)
	}
	return doc
}

// docOnDisk parses the progress file as it is now, without the run's edits;
// nil when it is missing, cannot be read or is broken.
func (cp *Context) docOnDisk() *progress.Document {
	data, err := readProgress(filepath.Join(cp.Root, progress.FileName))
	if err != nil || data == nil || progress.Check(progress.FileName, data) != nil {
		return nil
	}
	doc, err := progress.Parse(data)
	if err != nil {
		return nil
	}
	return doc
}

// readProgress returns the progress file's bytes, nil when there is none, or
// an error for a file that must not be parsed (too big): such a file is
// reported and left alone.
func readProgress(path string) ([]byte, error) {
	// The file sits at the project root: that is what it must resolve in.
	data, err := projectfs.ReadProjectFile(filepath.Dir(path), path, progress.MaxSize)
	var fe *projectfs.FileError
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case errors.Is(err, projectfs.ErrTooLarge):
		size := int64(progress.MaxSize)
		if fi, serr := os.Stat(path); serr == nil {
			size = fi.Size()
		}
		return nil, fmt.Errorf("%s is %d MB, over the %d MB limit: not a progress document; move it aside",
			progress.FileName, size>>20, progress.MaxSize>>20)
	case errors.As(err, &fe):
		// A FIFO, a device, a symlink out of the project: never read, and
		// never copied into the backups.
		return nil, fmt.Errorf("%s %s; move it aside", progress.FileName, fe.Problem)
	case err != nil:
		return nil, err
	}
	if data == nil {
		data = []byte{} // an empty file exists: not the same as none
	}
	return data, nil
}

// fileError names the file (and line) an error of progress.Parse is about.
func fileError(name string, err error) error {
	var pe *progress.ParseError
	if errors.As(err, &pe) {
		return &Failure{Cause: fmt.Sprintf("%s:%d: %s", name, pe.Line, pe.Msg), Err: err}
	}
	return fmt.Errorf("%s: %w", name, err)
}

// issueFor finds the tracker issue for a document that names none.
func (cp *Context) issueFor(doc *progress.Document) string {
	if cp.Issue != "" {
		if k, ok := progress.NormalIssue(cp.Issue); ok {
			return k
		}
		return cp.Issue
	}
	if doc != nil && doc.Issue.Key != "" {
		return doc.Issue.Key
	}
	if cp.State != nil {
		if k, ok := progress.NormalIssue(cp.State.Issue()); ok {
			return k
		}
	}
	return ""
}

// saveState records this checkpoint in the state file, unless that file is
// corrupt on disk, and stamps CCC's lastUpdatedAt (and createdAt for a new
// file) with the run's clock.
func (cp *Context) saveState() error {
	if cp.stateReadOnly || cp.Persist.KeepState {
		return nil
	}
	if k, ok := progress.NormalIssue(cp.Edits.Issue); ok {
		if err := cp.State.SetIssue(k); err != nil {
			return err
		}
	} else if cp.State.Issue() == "" && cp.Doc.Issue.Key != "" {
		if err := cp.State.SetIssue(cp.Doc.Issue.Key); err != nil {
			return err
		}
	}
	if err := cp.State.SetLastCheckpoint(state.Checkpoint{
		At: cp.Now.UTC(), Agent: cp.Agent, Branch: cp.branch, Head: cp.head,
	}); err != nil {
		return err
	}
	if err := cp.State.Touch(cp.Now, !fileExists(state.Path(cp.Root))); err != nil {
		return err
	}
	return cp.saveOwn(cp.State, state.SaveOver)
}

// updateState re-reads the state under the lock, changes it and saves it:
// later steps use it so they never clobber what another process wrote.
func (cp *Context) updateState(ctx context.Context, change func(*state.State) error) error {
	return cp.changeState(ctx, change, state.SaveOver)
}

// updateBookkeeping is updateState for a change the next run redoes when a
// crash loses it (state.SaveBookkeeping: no directory fsync).
func (cp *Context) updateBookkeeping(ctx context.Context, change func(*state.State) error) error {
	return cp.changeState(ctx, change, state.SaveBookkeeping)
}

// saveFunc is state.SaveOver or state.SaveBookkeeping.
type saveFunc func(root string, st *state.State, now time.Time, ours []byte) ([]byte, error)

func (cp *Context) changeState(ctx context.Context, change func(*state.State) error, save saveFunc) error {
	if cp.stateReadOnly {
		return cp.stateNotUpdated()
	}
	unlock, err := projectfs.Lock(ctx, cp.Root)
	if err != nil {
		return err
	}
	defer unlock()
	loaded, err := state.Load(cp.Root, cp.Now)
	if err != nil {
		return err
	}
	if loaded.Corrupt != nil {
		cp.stateReadOnly, cp.stateCorrupt = true, loaded.Corrupt
		return cp.stateNotUpdated()
	}
	if cp.Persist.KeepState && !fileExists(state.Path(cp.Root)) {
		return nil // the owner deleted it on purpose: do not bring it back
	}
	if err := change(loaded.State); err != nil {
		return err
	}
	cp.State = loaded.State
	return cp.saveOwn(loaded.State, save)
}

// saveOwn saves st, with no backup of what this run itself wrote there.
func (cp *Context) saveOwn(st *state.State, save saveFunc) error {
	wrote, err := save(cp.Root, st, cp.Now, cp.stateWrote)
	if err == nil {
		cp.stateWrote = wrote
	}
	return err
}

// stateNotUpdated is the error of a state change refused because the file
// on disk is corrupt; it wraps the *state.CorruptError, which names
// path:line.
func (cp *Context) stateNotUpdated() error {
	if cp.stateCorrupt == nil {
		return fmt.Errorf("%s is corrupt; not updated", state.FileName)
	}
	return fmt.Errorf("%s not updated: %w", state.FileName, cp.stateCorrupt)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}
