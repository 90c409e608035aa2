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

// checkProgress: the progress document parses, as ccc validate checks it.
func checkProgress(ctx context.Context, e *Env) []Result {
	var out []Result
	add := func(s Status, path, msg, hint string) { out = append(out, at(s, path, msg, hint)) }
	root := e.Root
	path := filepath.Join(root, progress.FileName)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		add(Warn, progress.FileName, "no "+progress.FileName+" yet", "run ccc checkpoint to create it")
	case err != nil:
		add(Fail, progress.FileName, err.Error(), "")
	case !fi.Mode().IsRegular():
		add(Fail, progress.FileName, progress.FileName+" is not a regular file", "move it aside; ccc checkpoint then starts a new one")
	case fi.Size() > progress.MaxSize:
		add(Fail, progress.FileName, fmt.Sprintf("%s is %d MB, over the %d MB limit: not a progress document",
			progress.FileName, fi.Size()>>20, progress.MaxSize>>20), "move it aside; ccc restore --file progress brings the last good one back")
	default:
		data, err := projectfs.ReadProjectFile(root, path, progress.MaxSize)
		if err != nil {
			add(Fail, progress.FileName, err.Error(), "")
			break
		}
		probs := progress.Validate(progress.FileName, data)
		doc, perr := progress.Parse(data)
		broken := progress.Check(progress.FileName, data)
		switch {
		case broken != nil:
			// Conflict markers, or no section ccc knows: checkpoints refuse it.
			// Its message says how to fix it.
			add(Fail, progress.FileName, broken.Error(), "")
		case perr != nil:
			// Checkpoints cannot use a document that does not parse.
			add(Fail, progress.FileName, probs[0].String(),
				"fix that line (ccc validate lists every problem), or ccc restore --file progress")
		case len(probs) > 0:
			add(Warn, progress.FileName, fmt.Sprintf("%d problem(s), first: %s", len(probs), probs[0]), "run ccc validate")
		default:
			add(OK, progress.FileName, fmt.Sprintf("%s is valid (task %d of %d)", progress.FileName, doc.TaskN(), doc.TaskM()), "")
		}
	}
	return out
}

// checkState: the state file is one JSON object, and ccc's own key an
// object too.
func checkState(ctx context.Context, e *Env) []Result {
	var out []Result
	add := func(s Status, path, msg, hint string) { out = append(out, at(s, path, msg, hint)) }
	root := e.Root
	switch data, err := projectfs.ReadProjectFile(root, state.Path(root), state.MaxSize); {
	case errors.Is(err, os.ErrNotExist):
		add(OK, state.FileName, "no "+state.FileName+" yet (the first checkpoint writes it)", "")
	case err != nil:
		add(Fail, state.FileName, err.Error(), "")
	default:
		st, err := state.Parse(data)
		var ce *state.CorruptError
		if errors.As(err, &ce) {
			ce.Path = state.FileName
			add(Fail, state.FileName, ce.Where()+": not valid JSON: "+ce.Msg,
				"checkpoints leave it untouched and do not record themselves until it is fixed: edit it, or ccc restore --file state")
			break
		}
		var own map[string]json.RawMessage
		if _, err := st.Get("ccc", &own); err != nil {
			add(Fail, state.FileName, fmt.Sprintf("%s: key ccc: %v", state.FileName, err),
				"remove the ccc key (ccc rebuilds it), or ccc restore --file state")
			break
		}
		add(OK, state.FileName, state.FileName+" is a JSON object", "")
	}
	return out
}

// checkRecord: the agent's record decodes, and any other record file that
// cannot be read is a warning.
func checkRecord(ctx context.Context, e *Env) []Result {
	var out []Result
	add := func(s Status, path, msg, hint string) { out = append(out, at(s, path, msg, hint)) }
	dir, err := e.recordsDir(ctx)
	if err != nil {
		return one(Fail, err.Error(), "")
	}
	agent, rel := e.Agent, e.rel
	own := records.CurrentPath(dir, agent)
	switch data, err := projectfs.ReadProjectFile(dir, own, projectfs.MaxRecordSize); {
	case records.ValidAgent(agent) != nil:
		add(Fail, "", records.ValidAgent(agent).Error(), "pass --agent NAME")
	case errors.Is(err, os.ErrNotExist):
		add(OK, rel(own), fmt.Sprintf("no record of agent %s yet", agent), "")
	case err != nil:
		add(Fail, rel(own), err.Error(), "")
	default:
		if r, _, err := records.Decode(rel(own), data); err != nil {
			add(Fail, rel(own), strings.TrimPrefix(err.Error(), "records: "),
				"ccc restore --file record puts the newest valid backup back; or move the file aside and the next checkpoint writes a new one")
		} else {
			add(OK, rel(own), fmt.Sprintf("record of agent %s decodes (%s)", agent, r.Status), "")
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
			add(Warn, rel(p.Path), msg,
				"ccc status and ccc history skip it: fix or move it aside")
		}
	}
	return out
}

// checkOutbox: every queued update must decode to be delivered.
func checkOutbox(ctx context.Context, e *Env) []Result {
	var out []Result
	add := func(s Status, path, msg, hint string) { out = append(out, at(s, path, msg, hint)) }
	root, rel := e.Root, e.rel
	entries, bad, err := outbox.Read(root)
	outboxDir := filepath.Join(projectfs.Dir, outbox.Dir)
	switch {
	case err != nil:
		add(Fail, outboxDir, err.Error(), "")
	case len(bad) == 0:
		add(OK, outboxDir, fmt.Sprintf("%d queued update(s) decode", len(entries)), "")
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
		add(Fail, rel(b.Path), msg, hint)
	}
	return out
}

// checkWritable probes where every checkpoint writes. The project root
// comes first: .ccc-progress.md and .ccc-state.json are replaced through a
// temp file beside them. A folder that does not exist yet is made by the
// first run in its parent.
func checkWritable(ctx context.Context, e *Env) []Result {
	var out []Result
	add := func(s Status, path, msg, hint string) { out = append(out, at(s, path, msg, hint)) }
	root, rel := e.Root, e.rel
	dir, _ := e.recordsDir(ctx)
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
		add(Fail, unwritable[0], fmt.Sprintf("cannot create a file in %s: %v", strings.Join(unwritable, ", "), why),
			"ccc writes there on every checkpoint: give the user ccc runs as write access (owner, mode), or remount read-write")
	} else {
		add(OK, projectfs.Dir, "the project root, "+projectfs.Dir+" and its folders are writable", "")
	}
	return out
}

// checkTempFiles removes the temp files of writes killed before their
// rename.
func checkTempFiles(ctx context.Context, e *Env) []Result {
	var out []Result
	add := func(s Status, path, msg, hint string) { out = append(out, at(s, path, msg, hint)) }
	root, rel := e.Root, e.rel
	rep := projectfs.RemoveStaleTemp(root)
	if len(rep.Removed) > 0 {
		names := make([]string, len(rep.Removed))
		for i, p := range rep.Removed {
			names[i] = rel(p)
		}
		add(Warn, "", fmt.Sprintf("removed %d temp file(s) left by an interrupted write: %s",
			len(rep.Removed), strings.Join(names, ", ")), "a ccc process was killed while writing; nothing else was lost")
	}
	for _, err := range rep.Failed {
		add(Fail, "", "cannot remove a leftover temp file: "+err.Error(), "remove it by hand (rm)")
	}
	switch {
	case len(rep.Kept) > 0:
		add(OK, "", fmt.Sprintf("%d temp file(s) of a write in progress left alone", len(rep.Kept)), "")
	case len(rep.Removed) == 0 && len(rep.Failed) == 0:
		add(OK, "", "no leftover temp files", "")
	}
	return out
}

// checkLocks: flocks die with their process, so none is stale; a lock file
// that cannot be opened stops every run.
func checkLocks(ctx context.Context, e *Env) []Result {
	var out []Result
	add := func(s Status, path, msg, hint string) { out = append(out, at(s, path, msg, hint)) }
	root, rel := e.Root, e.rel
	dir, _ := e.recordsDir(ctx)
	var extra []string
	if dir != "" {
		extra = append(extra, filepath.Join(dir, "lock"))
	}
	held, failed := 0, 0
	for _, l := range projectfs.Locks(root, extra...) {
		switch {
		case l.Err != nil:
			failed++
			add(Fail, rel(l.Path), l.Err.Error(), "fix its owner or mode, or delete it: a lock file holds nothing")
		case l.Held:
			held++
			add(OK, rel(l.Path), rel(l.Path)+" is held by a running ccc process", "")
		}
	}
	if held == 0 && failed == 0 {
		add(OK, "", "none held (a lock is released when its process ends, so none is stale)", "")
	}
	return out
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
