package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/gitrepo"
	"github.com/ccc-checkpoint/ccc/markdown"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state"
)

// trackerStep is protocol step 3: upsert this agent's status comment on
// every configured tracker.
type trackerStep struct{ sinks []sinks.Sink }

func (t trackerStep) String() string {
	if len(t.sinks) == 1 {
		return t.sinks[0].Title() + " update"
	}
	return "Tracker update"
}

func (trackerStep) Consequence() string { return "status not persisted to issue tracker" }

func (t trackerStep) Run(ctx context.Context, cp *Checkpoint) error {
	switch {
	case cp.SkipTracker:
		flag := cp.SkipTrackerFlag
		if flag == "" {
			flag = "--skip-tracker"
		}
		return Skip("%s given", flag)
	case len(t.sinks) == 0:
		return Skip("no tracker configured")
	case cp.Doc == nil:
		return Skip("no progress document to report")
	}
	issue, from := cp.trackerIssue()
	if issue == "" {
		return Skip("no issue to update (pass --issue KEY-123, or set linearIssue in %s)", state.FileName)
	}
	cp.debugf("tracker: issue %s from %s", issue, from)
	if cp.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cp.Timeout)
		defer cancel()
	}
	body := markdown.StatusBody(statusInput(cp))

	var fails, notes []string
	var skips []string
	for _, s := range t.sinks {
		res, err := cp.deliver(ctx, s, issue, body)
		var skip *sinks.SkipError
		var serr *sinks.Error
		switch {
		case errors.As(err, &skip):
			skips = append(skips, skip.Reason)
		case errors.As(err, &serr):
			fails = append(fails, serr.Cause)
			cp.debugf("tracker: %s: %v", s.Name(), err)
		case err != nil:
			fails = append(fails, err.Error())
		case res.Action == sinks.Unchanged:
			skips = append(skips, "status unchanged")
		default:
			note := fmt.Sprintf("%s comment on %s", res.Action, issue)
			if res.Ref.URL != "" {
				note += " " + res.Ref.URL
			}
			notes = append(notes, note)
		}
	}
	switch {
	case len(fails) > 0:
		return &Failure{Cause: strings.Join(fails, "; ")}
	case len(notes) == 0:
		return Skip("%s", strings.Join(skips, "; "))
	}
	cp.notef("%s", strings.Join(notes, "; "))
	return nil
}

// deliver sends body through one sink and stores the reference it returns.
func (cp *Checkpoint) deliver(ctx context.Context, s sinks.Sink, issue, body string) (sinks.Result, error) {
	var prev sinks.Ref
	if cp.State != nil {
		if _, err := cp.State.Ref(s.Name(), issue, cp.Agent, &prev); err != nil {
			cp.warnf("%v", err)
		}
	}
	saveRef := func(ref sinks.Ref) error {
		return cp.updateState(ctx, func(st *state.State) error {
			if err := st.SetRef(s.Name(), issue, cp.Agent, ref); err != nil {
				return err
			}
			// The seed's key for the comment id: the main agent's Linear one.
			if s.Name() == "linear" && cp.Agent == "main" && ref.ID != "" {
				return st.Set("checkpointCommentId", ref.ID)
			}
			return nil
		})
	}
	res, err := sinks.Deliver(ctx, s, sinks.Delivery{
		Target:  sinks.Target{Issue: issue, Agent: cp.Agent},
		Body:    body,
		Prev:    prev,
		Persist: saveRef,
	})
	if err == nil && res.Action != sinks.Unchanged {
		res.Ref.UpdatedAt = cp.Now.UTC()
		if serr := saveRef(res.Ref); serr != nil {
			cp.warnf("%s: comment %s written but not recorded: %v", s.Title(), res.Ref.ID, serr)
		}
	}
	return res, err
}

var branchIssue = regexp.MustCompile(`(?i)(?:^|[^a-z0-9])([a-z][a-z0-9]*-[0-9]+)(?:[^0-9]|$)`)

// FindIssue resolves a project's tracker issue the way the tracker step does,
// for commands that report on it (`ccc doctor`).
func FindIssue(ctx context.Context, root, flag string, now time.Time) (issue, from string) {
	cp := &Checkpoint{Root: root, Issue: flag}
	if l, err := state.Load(root, now); err == nil {
		cp.State = l.State
	}
	if data, err := readProgress(filepath.Join(root, progress.FileName)); err == nil && data != nil {
		cp.Doc, _ = progress.Parse(data)
	}
	if repo, err := gitrepo.Open(ctx, root); err == nil {
		cp.branch, _ = repo.Branch(ctx)
	}
	return cp.trackerIssue()
}

// trackerIssue finds the issue to update: --issue, else the state's
// linearIssue/activeIssue, else the progress document's Issue, else a
// KEY-123 in the branch name. It says where it found it.
func (cp *Checkpoint) trackerIssue() (issue, from string) {
	if cp.Issue != "" {
		return cp.Issue, "--issue"
	}
	if cp.State != nil {
		if k := strings.TrimSpace(cp.State.Issue()); k != "" {
			return k, state.FileName
		}
	}
	if cp.Doc != nil && cp.Doc.Issue.Key != "" {
		return cp.Doc.Issue.Key, progress.FileName
	}
	if m := branchIssue.FindStringSubmatch(cp.branch); m != nil {
		return strings.ToUpper(m[1]), "branch " + cp.branch
	}
	return "", ""
}

func statusInput(cp *Checkpoint) markdown.StatusInput {
	d := cp.Doc
	in := markdown.StatusInput{
		Updated:   cp.Now.UTC(),
		TaskN:     d.TaskN(),
		TaskM:     d.TaskM(),
		Completed: d.CompletedCount(),
		Percent:   d.Percent(),
		Status:    d.Status().String(),
		Next:      d.Next(),
	}
	if d.Current != nil {
		in.Task = d.Current.Text
	}
	for _, dec := range d.Decisions {
		in.Decisions = append(in.Decisions, dec.String())
	}
	for _, b := range d.OpenBlockers() {
		in.Blockers = append(in.Blockers, b.String())
	}
	return in
}
