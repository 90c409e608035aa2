// Package doctor holds `ccc doctor`'s checks: the local files a checkpoint
// reads and writes (Local, one named check per entry of localChecks, run in
// order), a tracker's credentials, target and rate limit (Tracker), and the
// report of them (Print). The command gathers the project and its
// trackers; the checks change nothing but what they say they do.
package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/outbox"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// localChecks are doctor's checks of the files a checkpoint reads and
// writes: what makes checkpoints fail while every tracker answers. Each adds
// its lines, in this order.
var localChecks = []struct {
	name string
	run  func(l *localRun)
}{
	{"progress", checkProgress},    // the check ccc validate makes
	{"state", checkState},          // .ccc-state.json is a JSON object
	{"record", checkRecord},        // the agent's record, and every other one
	{"outbox", checkOutbox},        // every queued update decodes
	{"writable", checkWritable},    // where every checkpoint writes
	{"temp files", checkTempFiles}, // left by writes killed before their rename
	{"locks", checkLocks},          // which are held, which cannot be opened
}

// localRun is one run of the local checks in root, for agent's record.
type localRun struct {
	root, agent string
	// dir is the repository's records directory ("" when it cannot be
	// found; dirErr says why).
	dir    string
	dirErr error
	checks []Check
}

func (l *localRun) add(name, status, path, msg, hint string) {
	l.checks = append(l.checks, Check{Name: name, Status: status, Path: path, Message: msg, Hint: hint})
}

// rel names p relative to the root when it is inside it.
func (l *localRun) rel(p string) string {
	if r, err := filepath.Rel(l.root, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return r
	}
	return p
}

// Local runs every local check in root, for agent's record.
func Local(ctx context.Context, root, agent string) []Check {
	l := &localRun{root: root, agent: agent}
	l.dir, l.dirErr = records.Dir(ctx, root)
	for _, c := range localChecks {
		c.run(l)
	}
	return l.checks
}

// checkProgress: the progress document parses, as ccc validate checks it.
func checkProgress(l *localRun) {
	root, add := l.root, l.add
	path := filepath.Join(root, progress.FileName)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		add("progress", "warn", progress.FileName, "no "+progress.FileName+" yet", "run ccc checkpoint to create it")
	case err != nil:
		add("progress", "fail", progress.FileName, err.Error(), "")
	case !fi.Mode().IsRegular():
		add("progress", "fail", progress.FileName, progress.FileName+" is not a regular file", "move it aside; ccc checkpoint then starts a new one")
	case fi.Size() > progress.MaxSize:
		add("progress", "fail", progress.FileName, fmt.Sprintf("%s is %d MB, over the %d MB limit: not a progress document",
			progress.FileName, fi.Size()>>20, progress.MaxSize>>20), "move it aside; ccc restore --file progress brings the last good one back")
	default:
		data, err := projectfs.ReadProjectFile(root, path, progress.MaxSize)
		if err != nil {
			add("progress", "fail", progress.FileName, err.Error(), "")
			break
		}
		probs := progress.Validate(progress.FileName, data)
		doc, perr := progress.Parse(data)
		broken := progress.Check(progress.FileName, data)
		switch {
		case broken != nil:
			// Conflict markers, or no section ccc knows: checkpoints refuse it.
			// Its message says how to fix it.
			add("progress", "fail", progress.FileName, broken.Error(), "")
		case perr != nil:
			// Checkpoints cannot use a document that does not parse.
			add("progress", "fail", progress.FileName, probs[0].String(),
				"fix that line (ccc validate lists every problem), or ccc restore --file progress")
		case len(probs) > 0:
			add("progress", "warn", progress.FileName, fmt.Sprintf("%d problem(s), first: %s", len(probs), probs[0]), "run ccc validate")
		default:
			add("progress", "ok", progress.FileName, fmt.Sprintf("%s is valid (task %d of %d)", progress.FileName, doc.TaskN(), doc.TaskM()), "")
		}
	}
}

// checkState: the state file is one JSON object, and ccc's own key an
// object too.
func checkState(l *localRun) {
	root, add := l.root, l.add
	switch data, err := projectfs.ReadProjectFile(root, state.Path(root), state.MaxSize); {
	case errors.Is(err, os.ErrNotExist):
		add("state", "ok", state.FileName, "no "+state.FileName+" yet (the first checkpoint writes it)", "")
	case err != nil:
		add("state", "fail", state.FileName, err.Error(), "")
	default:
		st, err := state.Parse(data)
		var ce *state.CorruptError
		if errors.As(err, &ce) {
			ce.Path = state.FileName
			add("state", "fail", state.FileName, ce.Where()+": not valid JSON: "+ce.Msg,
				"checkpoints leave it untouched and do not record themselves until it is fixed: edit it, or ccc restore --file state")
			break
		}
		var own map[string]json.RawMessage
		if _, err := st.Get("ccc", &own); err != nil {
			add("state", "fail", state.FileName, fmt.Sprintf("%s: key ccc: %v", state.FileName, err),
				"remove the ccc key (ccc rebuilds it), or ccc restore --file state")
			break
		}
		add("state", "ok", state.FileName, state.FileName+" is a JSON object", "")
	}
}

// checkRecord: the agent's record decodes, and any other record file that
// cannot be read is a warning.
func checkRecord(l *localRun) {
	if l.dirErr != nil {
		l.add("record", "fail", "", l.dirErr.Error(), "")
		return
	}
	dir, agent, add, rel := l.dir, l.agent, l.add, l.rel
	own := records.CurrentPath(dir, agent)
	switch data, err := projectfs.ReadProjectFile(dir, own, projectfs.MaxRecordSize); {
	case records.ValidAgent(agent) != nil:
		add("record", "fail", "", records.ValidAgent(agent).Error(), "pass --agent NAME")
	case errors.Is(err, os.ErrNotExist):
		add("record", "ok", rel(own), fmt.Sprintf("no record of agent %s yet", agent), "")
	case err != nil:
		add("record", "fail", rel(own), err.Error(), "")
	default:
		if r, _, err := records.Decode(rel(own), data); err != nil {
			add("record", "fail", rel(own), strings.TrimPrefix(err.Error(), "records: "),
				"ccc restore --file record puts the newest valid backup back; or move the file aside and the next checkpoint writes a new one")
		} else {
			add("record", "ok", rel(own), fmt.Sprintf("record of agent %s decodes (%s)", agent, r.Status), "")
		}
	}
	_, terr := records.Top(dir)
	for _, p := range records.Problems(terr) {
		if p.Path != own {
			msg := p.Error()
			var ce *records.CorruptError
			if errors.As(p.Err, &ce) {
				msg = rel(p.Path) + ": " + ce.Msg
			}
			add("record", "warn", rel(p.Path), msg,
				"ccc status and ccc history skip it: fix or move it aside")
		}
	}
}

// checkOutbox: every queued update must decode to be delivered.
func checkOutbox(l *localRun) {
	root, add, rel := l.root, l.add, l.rel
	entries, bad, err := outbox.Read(root)
	outboxDir := filepath.Join(projectfs.Dir, outbox.Dir)
	switch {
	case err != nil:
		add("outbox", "fail", outboxDir, err.Error(), "")
	case len(bad) == 0:
		add("outbox", "ok", outboxDir, fmt.Sprintf("%d queued update(s) decode", len(entries)), "")
	}
	for _, b := range bad {
		msg := rel(b.Path) + ": " + b.Err.Error()
		hint := "give the user ccc runs as read access to it"
		var ee *outbox.EntryError
		if errors.As(b.Err, &ee) {
			msg = rel(b.Path) + ": " + ee.Err.Error()
			if ee.Line > 0 {
				msg = fmt.Sprintf("%s:%d: %v", rel(b.Path), ee.Line, ee.Err)
			}
			hint = "ccc sync moves it aside to " + filepath.Join(projectfs.Dir, projectfs.BackupDir) + " (as .corrupt); or delete it"
		}
		add("outbox", "fail", rel(b.Path), msg, hint)
	}
}

// checkWritable probes where every checkpoint writes. The project root
// comes first: .ccc-progress.md and .ccc-state.json are replaced through a
// temp file beside them. A folder that does not exist yet is made by the
// first run in its parent.
func checkWritable(l *localRun) {
	root, dir, add, rel := l.root, l.dir, l.add, l.rel
	targets := []string{root, filepath.Join(root, projectfs.Dir)}
	for _, sub := range []string{projectfs.BackupDir, outbox.Dir, "checkpoints", "deliveries"} {
		targets = append(targets, filepath.Join(root, projectfs.Dir, sub))
	}
	if !strings.HasPrefix(dir, filepath.Join(root, projectfs.Dir)) && dir != "" {
		targets = append(targets, dir) // the main worktree's records
	}
	var unwritable []string
	var why error
	for _, d := range targets {
		if _, err := os.Stat(d); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := projectfs.Inside(root, d); err != nil && d != dir {
			// A .ccc folder symlinked out of the project: not probed (that
			// would write there), and ccc refuses it on every checkpoint.
			unwritable = append(unwritable, rel(d))
			if why == nil {
				why = err
			}
			continue
		}
		if err := writable(d); err != nil {
			name := rel(d)
			if d == root {
				name = root
			}
			unwritable = append(unwritable, name)
			if why == nil {
				why = err
			}
		}
	}
	if len(unwritable) > 0 {
		add("writable", "fail", unwritable[0], fmt.Sprintf("cannot create a file in %s: %v", strings.Join(unwritable, ", "), why),
			"ccc writes there on every checkpoint: give the user ccc runs as write access (owner, mode), or remount read-write")
	} else {
		add("writable", "ok", projectfs.Dir, "the project root, "+projectfs.Dir+" and its folders are writable", "")
	}
}

// checkTempFiles removes the temp files of writes killed before their
// rename.
func checkTempFiles(l *localRun) {
	root, add, rel := l.root, l.add, l.rel
	rep := projectfs.RemoveStaleTemp(root)
	if len(rep.Removed) > 0 {
		names := make([]string, len(rep.Removed))
		for i, p := range rep.Removed {
			names[i] = rel(p)
		}
		add("temp files", "warn", "", fmt.Sprintf("removed %d temp file(s) left by an interrupted write: %s",
			len(rep.Removed), strings.Join(names, ", ")), "a ccc process was killed while writing; nothing else was lost")
	}
	for _, err := range rep.Failed {
		add("temp files", "fail", "", "cannot remove a leftover temp file: "+err.Error(), "remove it by hand (rm)")
	}
	switch {
	case len(rep.Kept) > 0:
		add("temp files", "ok", "", fmt.Sprintf("%d temp file(s) of a write in progress left alone", len(rep.Kept)), "")
	case len(rep.Removed) == 0 && len(rep.Failed) == 0:
		add("temp files", "ok", "", "no leftover temp files", "")
	}
}

// checkLocks: flocks die with their process, so none is stale; a lock file
// that cannot be opened stops every run.
func checkLocks(l *localRun) {
	root, dir, add, rel := l.root, l.dir, l.add, l.rel
	var extra []string
	if dir != "" {
		extra = append(extra, filepath.Join(dir, "lock"))
	}
	held, failed := 0, 0
	for _, l := range projectfs.Locks(root, extra...) {
		switch {
		case l.Err != nil:
			failed++
			add("locks", "fail", rel(l.Path), l.Err.Error(), "fix its owner or mode, or delete it: a lock file holds nothing")
		case l.Held:
			held++
			add("locks", "ok", rel(l.Path), rel(l.Path)+" is held by a running ccc process", "")
		}
	}
	if held == 0 && failed == 0 {
		add("locks", "ok", "", "none held (a lock is released when its process ends, so none is stale)", "")
	}
}

// writable says whether a file can be created in dir, by creating and
// removing one (named like an atomic write's temp file, so a doctor killed
// in between leaves nothing the next checkpoint does not remove).
func writable(dir string) error {
	f, err := os.CreateTemp(dir, ".ccc-doctor.tmp-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(name)
}
