package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/handoff"
)

// HandoffOptions are what the checkpoint branch's step alone reads (and the
// git snapshot, for its trailer). The zero value is off: the step skips
// without a system call, so a checkpoint costs what it cost before.
type HandoffOptions struct {
	// Remote is the remote the branch is published to (config.HandoffRemote);
	// "" turns the branch off.
	Remote string
	// Signer signs the entry; Machine is this machine's id
	// (handoff.MachineID) and Host its hostname.
	Signer        *handoff.Signer
	Machine, Host string
}

// on says the branch is on and can be written.
func (o HandoffOptions) on() bool { return o.Remote != "" && o.Signer != nil && o.Machine != "" }

// TrailerKey is the git trailer that names, in a snapshot commit, the
// checkpoint it belongs to on the checkpoint branch.
const TrailerKey = "Ccc-Checkpoint"

// CheckpointID names this run's checkpoint on the branch:
// <machine>/<agent>/<time>, the same in the snapshot's trailer and the
// entry's meta.json.
func (cp *Context) CheckpointID() string {
	return cp.Handoff.Machine + "/" + cp.Agent + "/" + cp.Now.UTC().Format("20060102T150405.000000000Z")
}

// handoffStep records the checkpoint on the branch every clone shares
// (state/handoff): the record, the progress file, the state and the
// prompt, redacted like a tracker comment and signed. One git process
// (fast-import); the push is `ccc sync`'s. It follows the record, whose
// content it carries, and prints no line of its own.
type handoffStep struct{}

func (handoffStep) String() string { return "Checkpoint branch" }

func (handoffStep) unlisted() {}

func (handoffStep) Run(ctx context.Context, cp *Context) error {
	if !cp.Handoff.on() {
		return sinks.Skip("the checkpoint branch is off")
	}
	if !cp.persisted.saved || cp.Doc == nil {
		return sinks.Skip("progress not saved")
	}
	repo, err := gitrepo.Open(ctx, cp.Root)
	if errors.Is(err, gitrepo.ErrNotRepo) {
		return sinks.Skip("not a git repository")
	}
	if err != nil {
		return err
	}
	e, err := cp.handoffEntry()
	if err != nil {
		return err
	}
	cp.Handoff.Signer.Seal(&e)
	if err := handoff.Write(ctx, handoff.Repo{Dir: repo.Dir, CommonDir: repo.CommonDir}, e); err != nil {
		return err
	}
	return nil
}

// handoffEntry is the run's checkpoint as the branch holds it, every text
// redacted with the tracker's redactor (the branch is pushed where many
// read it).
func (cp *Context) handoffEntry() (handoff.Entry, error) {
	red := func(b []byte) []byte {
		s, _ := cp.Redactor.Redact(string(b))
		return []byte(s)
	}
	d := cp.Doc
	commit := cp.head
	if c := cp.snapshot.commit; c != "" {
		commit = c
	}
	m := handoff.Meta{
		ID: cp.CheckpointID(), Machine: cp.Handoff.Machine, Host: cp.Handoff.Host, Agent: cp.Agent,
		Time: cp.Now.UTC(), Commit: commit, Branch: cp.branch, Issue: d.Issue.Key,
		TaskN: d.TaskN(), TaskM: d.TaskM(), Status: recordStatus(d),
	}
	// An agent that took over another machine's keeps saying so.
	m.TakenFrom = handoff.TakenOver(cp.Root, cp.Agent, cp.Key)
	if m.Issue == "" && cp.State != nil {
		m.Issue = cp.State.Issue()
	}
	if d.Current != nil && !d.Current.Done {
		m.Current = d.Current.Text
	}
	for _, v := range []*string{&m.Branch, &m.Issue, &m.Current, &m.Host} {
		*v, _ = cp.Redactor.Redact(*v)
	}
	files := map[string][]byte{
		handoff.ProgressFile: red(cp.persisted.src),
		handoff.PromptFile:   red([]byte(d.Prompt())),
	}
	if r := cp.recorded; r != nil {
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return handoff.Entry{}, fmt.Errorf("record: %w", err)
		}
		files[handoff.RecordFile] = red(data)
		m.Status = r.Status
	}
	if cp.State != nil && !cp.stateReadOnly {
		data, err := cp.State.Marshal()
		if err != nil {
			return handoff.Entry{}, fmt.Errorf("%s: %w", state.FileName, err)
		}
		files[handoff.StateFile] = red(data)
	}
	return handoff.Entry{Meta: m, Files: files}, nil
}
