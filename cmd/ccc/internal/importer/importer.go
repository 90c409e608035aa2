// Package importer turns the checkpoint files of neighbouring protocols
// (seeds 000–003: initiative.json, workflow checkpoints, sitebuilder
// checkpoints, agent_checkpoints) into a ccc checkpoint record and a progress
// document, so teams that used them can switch to ccc without losing state.
//
// Import only converts: it reads nothing but the file it is given (and, for
// seed 000, the WORKFLOW-STATUS.yaml beside it) and writes nothing. Whatever
// the record has no place for is kept in the record's extra object under its
// original key, so nothing is lost.
package importer

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// Format is a checkpoint protocol Import understands.
type Format string

const (
	// Initiative is seed 000: .claude/initiative.json, milestones, and an
	// optional WORKFLOW-STATUS.yaml beside it.
	Initiative Format = "initiative"
	// Workflow is seed 001: {workflow}_{project}_{timestamp}.json, phases.
	Workflow Format = "workflow"
	// Sitebuilder is seed 002: subtasks, acceptance criteria, errors.
	Sitebuilder Format = "sitebuilder"
	// AgentCheckpoint is seed 003: agent_checkpoints/{agent_id}.json, steps
	// and recovery instructions.
	AgentCheckpoint Format = "agent-checkpoint"
)

// Description names the format the way its users know it: its kind and the
// files it lives in.
func (f Format) Description() string {
	switch f {
	case Initiative:
		return "initiative checkpoint, .claude/initiative.json"
	case Workflow:
		return "workflow checkpoint, {workflow}_{project}_{timestamp}.json"
	case Sitebuilder:
		return "sitebuilder checkpoint, progress/checkpoints/*.json"
	case AgentCheckpoint:
		return "agent checkpoint, agent_checkpoints/*.json"
	}
	return string(f)
}

// ErrUnrecognised means a file is valid JSON but not a checkpoint of any
// protocol Import knows.
var ErrUnrecognised = errors.New("not a checkpoint of a known protocol (initiative.json, workflow, sitebuilder or agent_checkpoints)")

// Error is a file that cannot be imported. Line and Col locate a JSON syntax
// error (1-based; 0 when the error has no position).
type Error struct {
	Path      string
	Line, Col int
	Err       error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("import: %s:%d:%d: %v", e.Path, e.Line, e.Col, e.Err)
	}
	return fmt.Sprintf("import: %s: %v", e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Options are the inputs of an import that do not come from the file.
type Options struct {
	// Agent names the record when the file names no agent; when it is also
	// empty, the file's base name does.
	Agent string
	// Now stands in for timestamps the file lacks or holds only as a
	// template placeholder.
	Now time.Time
	// ReadFile reads the files beside the imported one (seed 000's
	// WORKFLOW-STATUS.yaml); nil means a bounded read of a regular file
	// (projectfs.ReadProjectFile).
	ReadFile func(string) ([]byte, error)
}

// Imported is one file converted.
type Imported struct {
	// Source is the path the file was read from.
	Source string
	Format Format
	// Agent is the record's agent, already safe as a file name.
	Agent  string
	Record records.Record
	// Progress is the progress document the import describes, for projects
	// that have none yet.
	Progress *progress.Document
	// Warnings say what could not be carried over as it was (it is then in
	// the record's extra) and what was assumed.
	Warnings []string
}

// RecordJSON is the record as ccc writes it (records.Encode): indented, one
// trailing newline.
func (im *Imported) RecordJSON() ([]byte, error) {
	data, err := records.Encode(&im.Record)
	if err != nil {
		return nil, fmt.Errorf("import: %s: %w", im.Source, err)
	}
	return data, nil
}

// MaxSize is the largest checkpoint file Import reads. The protocols' files
// are JSON objects of a few kilobytes, read like a state file (state.MaxSize);
// a 59 MB one once took 630 MB.
const MaxSize = state.MaxSize

// TooBig is the error of a checkpoint file of size bytes, over MaxSize.
func TooBig(path string, size int64) error {
	return &Error{Path: path, Err: fmt.Errorf("%d bytes, over the %d KB a checkpoint file may hold; not imported", size, MaxSize>>10)}
}

// Import converts the checkpoint file at path, whose content is data.
func Import(path string, data []byte, opts Options) (*Imported, error) {
	if len(data) > MaxSize {
		return nil, TooBig(path, int64(len(data)))
	}
	if opts.ReadFile == nil {
		opts.ReadFile = func(p string) ([]byte, error) { return projectfs.ReadProjectFile("", p, projectfs.MaxCopySize) }
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	st, err := state.Parse(data)
	if err != nil {
		var ce *state.CorruptError
		if errors.As(err, &ce) {
			return nil, &Error{Path: path, Line: ce.Line, Col: ce.Col, Err: errors.New(ce.Msg)}
		}
		return nil, &Error{Path: path, Err: err}
	}
	format, ok := detect(path, st)
	if !ok {
		return nil, &Error{Path: path, Err: ErrUnrecognised}
	}
	d := newDraft(path, format, opts)
	root := d.object("", st)
	switch format {
	case Initiative:
		d.initiative(root)
	case Workflow:
		d.workflow(root)
	case Sitebuilder:
		d.sitebuilder(root)
	case AgentCheckpoint:
		d.agentCheckpoint(root)
	}
	return d.finish(root)
}

// Detect reports the format of a checkpoint file from its content and name.
func Detect(path string, data []byte) (Format, error) {
	st, err := state.Parse(data)
	if err != nil {
		var ce *state.CorruptError
		if errors.As(err, &ce) {
			return "", &Error{Path: path, Line: ce.Line, Col: ce.Col, Err: errors.New(ce.Msg)}
		}
		return "", &Error{Path: path, Err: err}
	}
	f, ok := detect(path, st)
	if !ok {
		return "", &Error{Path: path, Err: ErrUnrecognised}
	}
	return f, nil
}

// workflowNameRe is seed 001's file name: {workflow_type}_{project}_{YYYYMMDD_HHMMSS}.json.
var workflowNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]*_.+_\d{8}_\d{6}\.json$`) })

// detect scores each format by the keys only it uses, plus a point for its
// usual file name, and takes the best. Keys several formats share (status,
// files_modified, updated_at) count for none.
func detect(path string, st *state.State) (Format, bool) {
	signs := map[Format][]string{
		Initiative:      {"currentMilestone", "lastUpdated", "milestones"},
		Workflow:        {"workflow_type", "workflow_description", "workflow_state", "current_phase", "total_phases", "completed_phases", "last_error"},
		Sitebuilder:     {"task_id", "task_title", "progress_percent", "subtasks", "acceptance_criteria_met", "resumable", "resume_instructions", "review_scores", "files_created"},
		AgentCheckpoint: {"agent_id", "agent_type", "last_checkpoint", "next_checkpoint_expected", "can_resume", "recovery_instructions", "completed_steps", "next_steps", "current_step", "coordination_state", "stage"},
	}
	score := map[Format]int{}
	for f, keys := range signs {
		for _, k := range keys {
			if st.Has(k) {
				score[f] += 2
			}
		}
	}
	// Seed 000's progress is a map of milestone → status; a generic key,
	// so it needs the file name or another key of the format beside it.
	if raw, ok := st.Raw("progress"); ok && strings.HasPrefix(strings.TrimSpace(string(raw)), "{") {
		score[Initiative]++
	}
	slash := filepath.ToSlash(path)
	base := filepath.Base(path)
	switch {
	case base == "initiative.json":
		score[Initiative]++
	case strings.Contains(slash, "agent_checkpoints/"):
		score[AgentCheckpoint]++
	case strings.Contains(slash, "progress/checkpoints/"):
		score[Sitebuilder]++
	case workflowNameRe().MatchString(base):
		score[Workflow]++
	}
	best, top := Format(""), 1 // a file name alone is not enough
	for _, f := range []Format{AgentCheckpoint, Sitebuilder, Workflow, Initiative} {
		if score[f] > top {
			best, top = f, score[f]
		}
	}
	return best, best != ""
}
