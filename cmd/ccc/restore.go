package main

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

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// The files `ccc restore` knows, as --file names them.
const (
	restoreState    = "state"
	restoreProgress = "progress"
	restoreRecord   = "record"
)

var restoreKinds = []string{restoreState, restoreProgress, restoreRecord}

// RestoreOptions is `ccc restore` as parsed from its flags.
type RestoreOptions struct {
	Dir string
	// Agent owns the record (default $CCC_AGENT, else main).
	Agent string
	// Files are the files named with --file; none means repair mode.
	Files []string
	List  bool
	JSON  bool
}

// NewCmdRestore builds `ccc restore`.
func NewCmdRestore(f *Factory, dir *string, runF func(*RestoreOptions) error) *cobra.Command {
	opts := &RestoreOptions{}
	cmd := &cobra.Command{
		Use:   "restore",
		Short: "Restore .ccc-state.json, .ccc-progress.md or an agent's record from a backup",
		Long: `Restore a file ccc keeps from its newest valid backup. ccc backs a file up
before it replaces it and keeps the last 10 backups of each in .ccc/backups:

  state      .ccc-state.json
  progress   .ccc-progress.md
  record     the agent's checkpoint record, .ccc/checkpoints/<agent>.json

Every backup is checked before it is used (state: a JSON object; progress:
text that parses as a progress file; record: a checkpoint record with a
schemaVersion, of this agent); a corrupt one is skipped for the next older,
and so is one identical to the file as it is. The file being replaced is
itself backed up first (a corrupt one is set aside as .corrupt, never
pruned), so a restore can be undone by restoring again.

Without --file, restore repairs: each of the three files that exists but is
not valid is restored; valid and missing files are left as they are. Name a
file with --file to roll it back, or bring it back, whatever its state.

--list shows the backups of each file, newest first, and whether each is
valid; it changes nothing.` + exitStatusHelp(
			"0  restored what was asked (or nothing needed restoring); --list printed",
			"1  a file that needed restoring has no valid backup, or could not be written",
			"2  usage error"),
		Example: `  # repair whatever is corrupt
  ccc restore

  # roll the progress file back to its previous version
  ccc restore --file progress

  # an agent's record
  ccc restore --file record --agent secondary-a

  ccc restore --list
  ccc restore --list --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, k := range opts.Files {
				if !slices.Contains(restoreKinds, k) {
					return &usageError{fmt.Errorf("--file %q: want state, progress or record", k)}
				}
			}
			if opts.Agent != "" {
				if err := records.ValidAgent(opts.Agent); err != nil {
					return &usageError{fmt.Errorf("--agent: %w", err)}
				}
			}
			opts.Dir = *dir
			if runF != nil {
				return runF(opts)
			}
			return restoreRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.Files, "file", nil, "the file to restore: state, progress or record (repeatable; default: repair every corrupt one)")
	fl.StringVar(&opts.Agent, "agent", "", "the agent whose record to restore or list (default $CCC_AGENT, else main; --list without it lists every agent)")
	fl.BoolVar(&opts.List, "list", false, "list the backups and whether each is valid; change nothing")
	fl.BoolVar(&opts.JSON, "json", false, "print the result as JSON on stdout")
	return cmd
}

// restoreTarget is one file restore can put back.
type restoreTarget struct {
	Kind  string `json:"file"`
	Agent string `json:"agent,omitempty"`
	Path  string `json:"path"`
	// backupRoot holds the .ccc/backups the file's backups are in.
	backupRoot string
	lock       func(context.Context) (func(), error)
	validate   func([]byte) error
}

func (t restoreTarget) backups() ([]string, error) {
	return projectfs.Backups(t.backupRoot, filepath.Base(t.Path))
}

// restoreTargets lists the files to work on. A record target needs an
// agent; listing without --agent covers every agent that has backups.
func restoreTargets(ctx context.Context, f *Factory, root string, opts *RestoreOptions) ([]restoreTarget, error) {
	kinds := opts.Files
	if len(kinds) == 0 {
		kinds = restoreKinds
	}
	projectLock := func(ctx context.Context) (func(), error) { return projectfs.Lock(ctx, root) }
	var out []restoreTarget
	for _, k := range restoreKinds {
		if !slices.Contains(kinds, k) {
			continue
		}
		switch k {
		case restoreState:
			out = append(out, restoreTarget{Kind: k, Path: state.Path(root), backupRoot: root, lock: projectLock, validate: restoreValidState})
		case restoreProgress:
			out = append(out, restoreTarget{Kind: k, Path: filepath.Join(root, progress.FileName), backupRoot: root, lock: projectLock, validate: restoreValidProgress})
		case restoreRecord:
			dir, err := records.Dir(ctx, root)
			if err != nil {
				return nil, err
			}
			agents := []string{config.Agent(opts.Agent, f.Getenv)}
			if opts.List && opts.Agent == "" {
				agents = recordBackupAgents(records.Root(dir), agents[0])
			}
			for _, a := range agents {
				out = append(out, restoreTarget{Kind: k, Agent: a, Path: records.CurrentPath(dir, a), backupRoot: records.Root(dir),
					lock: func(ctx context.Context) (func(), error) { return records.Lock(ctx, dir) }, validate: restoreValidRecord(a)})
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

func restoreValidState(data []byte) error {
	_, err := state.Parse(data)
	var ce *state.CorruptError
	if errors.As(err, &ce) && ce.Line > 0 {
		return fmt.Errorf("line %d: %s", ce.Line, ce.Msg)
	}
	return err
}

func restoreValidProgress(data []byte) error {
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

// restoreValidRecord accepts a checkpoint record of the agent that states its
// schemaVersion and that records can read.
func restoreValidRecord(agent string) func([]byte) error {
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

// backupEntry is one backup as --list shows it.
type backupEntry struct {
	Path    string    `json:"path"`
	Time    time.Time `json:"time"`
	Valid   bool      `json:"valid"`
	Problem string    `json:"problem,omitempty"`
}

type restoreListing struct {
	restoreTarget
	Backups []backupEntry `json:"backups"`
}

func inspectBackup(t restoreTarget, path string) backupEntry {
	b := backupEntry{Path: path}
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

// restoreResult is what happened to one file.
type restoreResult struct {
	restoreTarget
	// Action is restored, unchanged (valid, or missing, in repair mode)
	// or failed.
	Action string `json:"action"`
	From   string `json:"from,omitempty"`
	// Kept is where the replaced file went.
	Kept    string        `json:"kept,omitempty"`
	Skipped []backupEntry `json:"skipped,omitempty"`
	Message string        `json:"message,omitempty"`
}

func restoreRun(ctx context.Context, f *Factory, opts *RestoreOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	targets, err := restoreTargets(ctx, f, root, opts)
	if err != nil {
		return err
	}
	if opts.List {
		return restoreList(f, root, targets, opts.JSON)
	}
	var results []restoreResult
	failed := 0
	for _, t := range targets {
		r := restoreOne(ctx, t, len(opts.Files) > 0, f.Now())
		if r.Action == "failed" {
			failed++
		}
		results = append(results, r)
	}
	if opts.JSON {
		if err := restoreJSON(f, results); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			printRestore(f, root, r)
		}
	}
	if failed > 0 {
		return &exitError{code: 1, err: fmt.Errorf("restore: %d file(s) not restored", failed)}
	}
	return nil
}

// restoreOne restores t under its lock. named: the user asked for this file
// (restore whatever its state); otherwise only a corrupt file is restored.
func restoreOne(ctx context.Context, t restoreTarget, named bool, now time.Time) restoreResult {
	res := restoreResult{restoreTarget: t}
	fail := func(format string, args ...any) restoreResult {
		res.Action, res.Message = "failed", fmt.Sprintf(format, args...)
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
			res.Action, res.Message = "unchanged", "missing; name it with --file to bring it back"
			return res
		case curErr == nil:
			res.Action, res.Message = "unchanged", "valid; name it with --file to roll it back"
			return res
		}
	}
	backups, err := t.backups()
	if err != nil {
		return fail("%v", err)
	}
	var data []byte
	for _, b := range backups {
		info := inspectBackup(t, b)
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
	res.Action = "restored"
	return res
}

func restoreList(f *Factory, root string, targets []restoreTarget, asJSON bool) error {
	var ls []restoreListing
	for _, t := range targets {
		paths, err := t.backups()
		if err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		l := restoreListing{restoreTarget: t, Backups: []backupEntry{}}
		for _, p := range paths {
			l.Backups = append(l.Backups, inspectBackup(t, p))
		}
		ls = append(ls, l)
	}
	if asJSON {
		return restoreJSON(f, ls)
	}
	for _, l := range ls {
		name := l.Kind
		if l.Agent != "" {
			name += " " + l.Agent
		}
		fmt.Fprintf(f.IO.Out, "%s (%s): ", name, rootRel(root, l.Path))
		if len(l.Backups) == 0 {
			fmt.Fprintln(f.IO.Out, "no backups")
			continue
		}
		fmt.Fprintf(f.IO.Out, "%d backup(s), newest first\n", len(l.Backups))
		for _, b := range l.Backups {
			status := "valid"
			if !b.Valid {
				status = "corrupt: " + b.Problem
			}
			fmt.Fprintf(f.IO.Out, "  %s  %s  %s\n", b.Time.UTC().Format("2006-01-02 15:04:05"), rootRel(root, b.Path), status)
		}
	}
	return nil
}

func printRestore(f *Factory, root string, r restoreResult) {
	name := rootRel(root, r.Path)
	for _, s := range r.Skipped {
		markStatus(f.IO, '!', fmt.Sprintf("Skipped backup %s: %s", rootRel(root, s.Path), s.Problem))
	}
	switch r.Action {
	case "restored":
		line := fmt.Sprintf("Restored %s from %s", name, rootRel(root, r.From))
		if r.Kept != "" {
			line += fmt.Sprintf("; the file it replaced is kept as %s", rootRel(root, r.Kept))
		}
		markStatus(f.IO, 'v', line)
	case "unchanged":
		markStatus(f.IO, 'v', fmt.Sprintf("%s is %s", name, r.Message))
	case "failed":
		markStatus(f.IO, 'X', fmt.Sprintf("Failed: %s: %s", name, r.Message))
	}
}

func restoreJSON(f *Factory, v any) error {
	enc := json.NewEncoder(f.IO.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
