// Package restore puts back a file ccc keeps (the state file, the progress
// file, an agent's record) from its newest valid backup under .ccc/backups:
// which files there are, which backups each has, which of them are valid
// (a corrupt or conflicted copy is skipped for the next older), and the
// restore itself, which keeps the file it replaces.
package restore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// The files restore knows, as `ccc restore --file` names them.
const (
	State    = "state"
	Progress = "progress"
	Record   = "record"
)

// Kinds lists them in the order they are worked on.
var Kinds = []string{State, Progress, Record}

// Target is one file restore can put back.
type Target struct {
	Kind  string `json:"file"`
	Agent string `json:"agent,omitempty"`
	Path  string `json:"path"`
	// backupRoot holds the .ccc/backups the file's backups are in.
	backupRoot string
	lock       func(context.Context) (func(), error)
	validate   func([]byte) error
}

func (t Target) backups() ([]string, error) {
	return projectfs.Backups(t.backupRoot, filepath.Base(t.Path))
}

// Targets lists the files of the kinds given (none: every kind) in root. A
// record target is agent's; everyAgent instead covers every agent whose
// record has backups, and agent.
func Targets(ctx context.Context, root string, kinds []string, agent string, everyAgent bool) ([]Target, error) {
	if len(kinds) == 0 {
		kinds = Kinds
	}
	projectLock := func(ctx context.Context) (func(), error) { return projectfs.Lock(ctx, root) }
	var out []Target
	for _, k := range Kinds {
		if !slices.Contains(kinds, k) {
			continue
		}
		switch k {
		case State:
			out = append(out, Target{Kind: k, Path: state.Path(root), backupRoot: root, lock: projectLock, validate: validState})
		case Progress:
			out = append(out, Target{Kind: k, Path: filepath.Join(root, progress.FileName), backupRoot: root, lock: projectLock, validate: validProgress})
		case Record:
			dir, err := records.Dir(ctx, root)
			if err != nil {
				return nil, err
			}
			agents := []string{agent}
			if everyAgent {
				agents = recordBackupAgents(records.Root(dir), agents[0])
			}
			for _, a := range agents {
				out = append(out, Target{Kind: k, Agent: a, Path: records.CurrentPath(dir, a), backupRoot: records.Root(dir),
					lock: func(ctx context.Context) (func(), error) { return records.Lock(ctx, dir) }, validate: validRecord(a)})
			}
		}
	}
	return out, nil
}

// recordBackupAgents finds the agents whose records have backups, plus
// always the default agent, sorted.
func recordBackupAgents(backupRoot, always string) []string {
	agents := []string{always}
	entries, _ := os.ReadDir(filepath.Join(backupRoot, projectfs.Dir, projectfs.BackupDir))
	for _, e := range entries {
		name, _, ok := strings.Cut(e.Name(), ".json.")
		if !ok || strings.HasPrefix(name, ".") || slices.Contains(agents, name) || records.ValidAgent(name) != nil {
			continue
		}
		if b, _ := projectfs.Backups(backupRoot, name+".json"); len(b) > 0 {
			agents = append(agents, name)
		}
	}
	slices.Sort(agents)
	return agents
}

func validState(data []byte) error {
	_, err := state.Parse(data)
	var ce *state.CorruptError
	if errors.As(err, &ce) && ce.Line > 0 {
		return fmt.Errorf("line %d: %s", ce.Line, ce.Msg)
	}
	return err
}

func validProgress(data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("empty file")
	}
	// Parse refuses NUL bytes and invalid UTF-8: what a torn or foreign
	// write leaves. A broken file (a merge conflict) is no better.
	if _, err := progress.Parse(data); err != nil {
		return err
	}
	return progress.Check(progress.FileName, data)
}

// validRecord accepts a checkpoint record of the agent that states its
// schemaVersion and that records can read.
func validRecord(agent string) func([]byte) error {
	return func(data []byte) error {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			return fmt.Errorf("not a JSON object: %w", err)
		}
		if _, ok := top["schemaVersion"]; !ok {
			return errors.New("no schemaVersion")
		}
		r, _, err := records.Decode("backup", data)
		if err != nil {
			return err
		}
		if r.Agent != agent {
			return fmt.Errorf("a record of agent %q, not %q", r.Agent, agent)
		}
		return nil
	}
}

// Backup is one backup of a target as `ccc restore --list` shows it.
type Backup struct {
	Path    string    `json:"path"`
	Time    time.Time `json:"time"`
	Valid   bool      `json:"valid"`
	Problem string    `json:"problem,omitempty"`
}

// Listing is a target and its backups, newest first.
type Listing struct {
	Target
	Backups []Backup `json:"backups"`
}

// List lists the backups of each target and whether each is valid; it
// changes nothing.
func List(targets []Target) ([]Listing, error) {
	var ls []Listing
	for _, t := range targets {
		paths, err := t.backups()
		if err != nil {
			return nil, fmt.Errorf("restore: %w", err)
		}
		l := Listing{Target: t, Backups: []Backup{}}
		for _, p := range paths {
			l.Backups = append(l.Backups, inspect(t, p))
		}
		ls = append(ls, l)
	}
	return ls, nil
}

func inspect(t Target, path string) Backup {
	b := Backup{Path: path}
	if ts, err := projectfs.ParseStamp(strings.TrimPrefix(filepath.Base(path), filepath.Base(t.Path)+".")); err == nil {
		b.Time = ts
	}
	data, err := projectfs.ReadProjectFile(t.backupRoot, path, projectfs.MaxCopySize)
	if err == nil {
		err = t.validate(data)
	}
	b.Valid = err == nil
	if err != nil {
		b.Problem = err.Error()
	}
	return b
}

// What One did to a file: Result.Action.
const (
	Restored  = "restored"
	Unchanged = "unchanged" // valid, or missing, in repair mode
	Failed    = "failed"
)

// Result is what happened to one file.
type Result struct {
	Target
	// Action is Restored, Unchanged or Failed.
	Action string `json:"action"`
	From   string `json:"from,omitempty"`
	// Kept is where the replaced file went.
	Kept    string   `json:"kept,omitempty"`
	Skipped []Backup `json:"skipped,omitempty"`
	Message string   `json:"message,omitempty"`
}

// One restores t under its lock. named: the user asked for this file
// (restore whatever its state); otherwise only a corrupt file is restored.
func One(ctx context.Context, t Target, named bool, now time.Time) Result {
	res := Result{Target: t}
	fail := func(format string, args ...any) Result {
		res.Action, res.Message = Failed, fmt.Sprintf(format, args...)
		return res
	}
	unlock, err := t.lock(ctx)
	if err != nil {
		return fail("%v", err)
	}
	defer unlock()

	cur, err := projectfs.ReadProjectFile(t.backupRoot, t.Path, projectfs.MaxCopySize)
	missing := errors.Is(err, os.ErrNotExist)
	if err != nil && !missing {
		return fail("%v", err)
	}
	var curErr error
	if !missing {
		curErr = t.validate(cur)
	}
	if !named {
		switch {
		case missing:
			res.Action, res.Message = Unchanged, "missing; name it with --file to bring it back"
			return res
		case curErr == nil:
			res.Action, res.Message = Unchanged, "valid; name it with --file to roll it back"
			return res
		}
	}
	backups, err := t.backups()
	if err != nil {
		return fail("%v", err)
	}
	var data []byte
	for _, b := range backups {
		info := inspect(t, b)
		if !info.Valid {
			res.Skipped = append(res.Skipped, info)
			continue
		}
		d, err := projectfs.ReadProjectFile(t.backupRoot, b, projectfs.MaxCopySize)
		if err != nil {
			info.Valid, info.Problem = false, err.Error()
			res.Skipped = append(res.Skipped, info)
			continue
		}
		if !missing && bytes.Equal(d, cur) {
			info.Problem = "same as the current file"
			res.Skipped = append(res.Skipped, info)
			continue
		}
		data, res.From = d, b
		break
	}
	if data == nil {
		what := "it has no backups"
		if len(backups) > 0 {
			what = fmt.Sprintf("none of its %d backup(s) is usable", len(backups))
		}
		if curErr != nil {
			return fail("not valid (%v), and %s; left as it is", curErr, what)
		}
		return fail("%s", what)
	}
	if !missing {
		keep := projectfs.Backup
		if curErr != nil {
			// Rotation must never prune what was there, however broken.
			keep = projectfs.SetAside
		}
		if res.Kept, err = keep(t.backupRoot, t.Path, now); err != nil {
			return fail("keep the current file: %v", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o755); err != nil {
		return fail("%v", err)
	}
	if err := projectfs.WriteFileAtomic(t.Path, data, 0o644); err != nil {
		return fail("write: %v", err)
	}
	res.Action = Restored
	return res
}
