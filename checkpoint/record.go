package checkpoint

import (
	"context"
	"errors"
	"strings"

	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// FailurePrefix starts a blocker that ends the work as failed: `ccc
// checkpoint --fail REASON` adds the blocker "FAILED: REASON", and an agent
// editing the progress file can write one too. While it is open the
// agent's record has status failed (an errors[] entry {type: "failure"})
// and moves to failed/; unblocking it reopens the work. The prompt's next
// action reads it too (progress.Document.Failure).
const FailurePrefix = progress.FailurePrefix

// recordStatus maps the document's status to a record's.
func recordStatus(d *progress.Document) string {
	switch d.Status() {
	case progress.Complete:
		return records.StatusComplete
	case progress.Blocked:
		return records.StatusBlocked
	}
	return records.StatusInProgress
}

// recordStep writes this agent's checkpoint record in the repository's
// shared records directory, so `ccc status` in any worktree sees it. It
// follows the git snapshot in the manual profile, to name the HEAD that
// snapshot made. It prints no line of its own: a failure is a warning,
// never the checkpoint's failure.
type recordStep struct{}

func (recordStep) String() string { return "Agent record" }

func (recordStep) unlisted() {}

func (recordStep) Run(ctx context.Context, cp *Context) error {
	if !cp.persisted.saved {
		return sinks.Skip("progress not saved")
	}
	cp.writeRecord(ctx)
	return nil
}

// writeRecord writes the record; a failure is a warning.
func (cp *Context) writeRecord(ctx context.Context) {
	if cp.Doc == nil {
		return
	}
	dir, err := records.Dir(ctx, cp.Root)
	if err != nil {
		cp.warnf("%s", recordProblem(err))
		return
	}
	head := cp.head
	if c := cp.snapshot.commit; c != "" {
		head = c
	}
	d := cp.Doc
	s := records.Snapshot{
		Agent:     cp.Agent,
		SessionID: cp.Record.SessionID,
		Issue:     d.Issue.Key,
		Status:    recordStatus(d),
		Prompt:    d.Prompt(),
		Branch:    cp.branch,
		Head:      head,
	}
	if cp.State != nil {
		s.Phase = cp.State.String("phase")
		s.Files = cp.State.ActiveTaskFiles()
		if s.Issue == "" {
			s.Issue = cp.State.Issue()
		}
	}
	if d.Current != nil && !d.Current.Done {
		s.Current = d.Current.Text
	}
	for _, t := range d.Completed {
		s.Completed = append(s.Completed, t.Text)
	}
	for _, t := range d.Remaining {
		s.Remaining = append(s.Remaining, t.Text)
	}
	for _, b := range d.OpenBlockers() {
		if reason, ok := strings.CutPrefix(b.String(), FailurePrefix); ok {
			s.Failures = append(s.Failures, strings.TrimSpace(reason))
			continue
		}
		s.Blockers = append(s.Blockers, b.String())
	}
	cp.recorded, err = records.Write(ctx, dir, cp.redactSnapshot(s), cp.Now)
	var corrupt *records.CorruptError
	if errors.As(err, &corrupt) {
		cp.warnf("%s", recordProblem(err)) // written; the unreadable old one was set aside
	} else if err != nil {
		cp.warnf("record not written: %v", err)
	}
}

// redactSnapshot replaces the credentials in a record's text: records are
// read by other agents, printed by ccc status and copied into prompts.
func (cp *Context) redactSnapshot(s records.Snapshot) records.Snapshot {
	one := func(v *string) { *v, _ = cp.Redactor.Redact(*v) }
	all := func(vs []string) []string {
		// Thousands of tasks: one look at them all, and the full scan
		// only of those where that finds something to look at.
		if cp.Redactor.Clean(strings.Join(vs, "\n")) {
			return vs
		}
		out := make([]string, len(vs))
		for i, v := range vs {
			if out[i] = v; !cp.Redactor.Clean(v) {
				out[i], _ = cp.Redactor.Redact(v)
			}
		}
		if vs == nil {
			return nil
		}
		return out
	}
	for _, v := range []*string{&s.Issue, &s.Phase, &s.Current, &s.Prompt, &s.Branch} {
		one(v)
	}
	s.Completed, s.Remaining, s.Blockers, s.Failures, s.Files = all(s.Completed), all(s.Remaining), all(s.Blockers), all(s.Failures), all(s.Files)
	return s
}

// recordProblem words a records error for a warning: "record: …", without
// the package's own "records: " prefix doubling it.
func recordProblem(err error) string {
	return "record: " + strings.TrimPrefix(err.Error(), "records: ")
}
