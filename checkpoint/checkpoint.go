package checkpoint

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// Profile names a step list.
type Profile string

const (
	// Manual is /ccc:checkpoint: all four steps.
	Manual Profile = "manual"
	// Automated is hooks and CI: no git snapshot (the execution engine
	// commits on TASK_COMPLETE) and no prompt (the stop hook injects it).
	Automated Profile = "automated"
	// Post is `ccc post`: a status delivered from CI without a progress
	// session, so its report talks about posting, not saving.
	Post Profile = "post"
)

// ParseProfile checks a --profile value.
func ParseProfile(s string) (Profile, error) {
	switch p := Profile(s); p {
	case Manual, Automated:
		return p, nil
	}
	return "", fmt.Errorf("unknown profile %q (want manual or automated)", s)
}

// Steps returns a profile's ordered steps. The record and the outbox drain
// are steps of their own that print no line of their own (unlisted): the
// report shows the protocol's steps. The record is written while the drain
// and the tracker wait on the network (Run: alongside, remote).
func (p Profile) Steps(cp *Context) []Step {
	switch p {
	case Post:
		return []Step{
			drainStep{cp.Trackers},   // older queued updates go first
			trackerStep{cp.Trackers}, // the one step with a line
		}
	case Automated:
		return []Step{
			persistStep{},            // first: every later step reads what it saved
			recordStep{},             // right after persist, while the two below wait on the tracker
			drainStep{cp.Trackers},   // before the tracker: older queued updates go first
			trackerStep{cp.Trackers}, // best-effort; the stop hook carries the prompt
			handoffStep{},            // after the record it carries; one git process when on
		}
	default:
		return []Step{
			persistStep{},            // first: every later step reads what it saved
			gitStep{},                // before the tracker, so a crash loses no work
			recordStep{},             // after the snapshot, with the HEAD it made
			drainStep{cp.Trackers},   // before the tracker: older queued updates go first
			trackerStep{cp.Trackers}, // best-effort, after the local work is safe
			handoffStep{},            // after the record it carries, naming the snapshot
			promptStep{},             // last: the human copies it as the session ends
		}
	}
}

// LoadProgress reads the progress document and the state without changing
// either, for runs that only report (`ccc post`). A missing progress file
// leaves Doc nil; a broken one (progress.Check) too, and is the error.
func (cp *Context) LoadProgress() error {
	loaded, err := state.Load(cp.Root, cp.Now)
	if err != nil {
		return err
	}
	cp.State, cp.stateReadOnly, cp.stateCorrupt = loaded.State, loaded.Corrupt != nil, loaded.Corrupt
	data, err := readProgress(filepath.Join(cp.Root, progress.FileName))
	if err != nil || data == nil {
		return err
	}
	if err := progress.Check(progress.FileName, data); err != nil {
		return err
	}
	if cp.Doc, err = progress.Parse(data); err != nil {
		return fileError(progress.FileName, err)
	}
	return nil
}

// Loop is a position in CCC's task loop: TaskIndex of TotalTasks tasks are
// done.
type Loop struct{ TaskIndex, TotalTasks int }

// Context is what the steps of one run share, like goreleaser's context:
// the run's inputs, which the steps only read, the outputs the report
// collects, and what each step returned for the steps after it. (Not to be
// confused with state.Checkpoint, the checkpoint recorded in the state file,
// or hook.CheckpointRequest, a hook's request for a run.)
//
// The inputs every run sets, or more than one step reads, are fields of
// their own; what one step alone reads is in that step's options (Persist,
// Git, Record, Outbox, Tracker), whose zero values are the defaults.
type Context struct {
	Root    string
	Now     time.Time
	Profile Profile
	Agent   string
	// Edits change the progress document (persist); the tracker step
	// reads whether one named the issue.
	Edits progress.Edits
	// Trackers are the sinks to update; none skips the tracker step.
	Trackers []Tracker
	// Issue is the tracker target given on the command line.
	Issue string
	// Timeout bounds the tracker step, retries included.
	Timeout time.Duration
	// Redactor hides credentials in everything the run writes or prints
	// (bodies, the outbox, commit messages, records, the prompt, the
	// report); nil is redact.Default.
	Redactor *redact.Redactor
	// Key is the user's signing key (config.UserKey): the outbox entries
	// and tracker references the run writes are signed with it, and only
	// signed ones are trusted. Nil trusts nothing: queued entries wait and
	// every stored comment is checked before it is updated.
	Key []byte
	// Debug receives details that do not belong in the report (nil: none).
	Debug io.Writer
	// Waiting is told before each delivery to a tracker what the run waits
	// for ("Linear (CIA-1)"), and the func it returns when the delivery
	// ended: the command shows a slow one on a terminal (nil: nothing).
	Waiting func(what string) (done func())

	// Each step's own options.
	Persist PersistOptions
	Git     GitOptions
	Record  RecordOptions
	Outbox  OutboxOptions
	Tracker TrackerOptions
	Handoff HandoffOptions

	// Alerts are the warnings about forged files (alertf), also in
	// Warnings, for a hook to say even when the run succeeded.
	Alerts []string

	// Filled by the steps.
	Doc      *progress.Document
	State    *state.State
	Prompt   string
	Warnings []string
	// StatusBody is what the tracker step delivered (for CI summaries).
	StatusBody  string
	sinkResults []SinkResult
	// stateReadOnly is set when the state file on disk is corrupt: it is
	// never overwritten.
	stateReadOnly bool
	// branch and head are the repository's as persist (or FindIssue) read
	// them.
	branch, head string
	note         string
	// notice reports a reconciliation of the state and the progress file.
	notice string
	// stateCorrupt says where and how (set with stateReadOnly).
	stateCorrupt *state.CorruptError
	// stateWrote is what this run last wrote to the state file: a save
	// over it needs no backup (state.SaveOver).
	stateWrote []byte

	// What the steps returned, each set by the step named and read by the
	// steps after it: a step hands nothing on any other way.
	persisted persisted       // persistStep
	snapshot  snapshot        // gitStep
	recorded  *records.Record // recordStep: the record it wrote
	drained   drained         // drainStep
}

// PersistOptions are what persist alone reads (and ccc sync, which
// persists no progress).
type PersistOptions struct {
	// RefreshPrompt regenerates the continuation prompt even when the
	// agent wrote it (so do the edits Next, Current and Done).
	RefreshPrompt bool
	// KeepState leaves .ccc-state.json as it is apart from the tracker's
	// bookkeeping (references, checkpointCommentId), and never creates it:
	// for the stop hook, which owns CCC's loop state.
	KeepState bool
	// Loop, when set, is CCC's loop position as the stop hook just left it:
	// persist aligns the progress document to it, whatever .ccc-state.json
	// says or how old it is. At the end of the loop the hook has deleted
	// the state file, so this is the only record that every task is done.
	Loop *Loop
}

// GitOptions are what the git snapshot alone reads, resolved by the
// command from its flags, the environment and the preferences.
type GitOptions struct {
	// Skip skips the snapshot (--skip-git).
	Skip bool
	// NoHooks runs none of the repository's hooks, fsmonitor or commit
	// signing (config.GitHooks is false).
	NoHooks bool
	// CommitMessage is the message template (checkpoint.commit_message);
	// "" is config.DefaultCommitMessage.
	CommitMessage string
}

// RecordOptions are what the agent's record alone reads.
type RecordOptions struct {
	// SessionID names the coding session (the hook's session_id).
	SessionID string
}

// OutboxOptions are what the outbox drain alone reads.
type OutboxOptions struct {
	// Limit, when above 0, bounds the queued deliveries (of other
	// targets or agents) retried before the tracker step's own: at most
	// this many, this agent's first, within a third of Timeout. The hooks
	// set it, so a backlog never uses up a hook's budget; the rest waits
	// for `ccc sync` or a later run. 0: every due entry, in the whole
	// Timeout.
	Limit int
}

// TrackerOptions are what the tracker step alone reads.
type TrackerOptions struct {
	// Skip skips the step; SkipFlag names the flag that did, for its
	// reason.
	Skip     bool
	SkipFlag string
	// Body, when set, is delivered instead of the status rendered from the
	// progress document (`ccc post --body-file`).
	Body string
	// FullText says where the whole of Body is, for a tracker's truncation
	// note ("report.md", "the job summary"); empty: the progress file.
	FullText string
	// NoRedact names the sinks whose user turned pattern redaction off
	// (config.Project.NoRedact); the held credentials are redacted for
	// them too.
	NoRedact map[string]bool
}

// waitFor tells Waiting that a delivery to title's target starts.
func (cp *Context) waitFor(title, target string) (done func()) {
	if cp.Waiting == nil {
		return func() {}
	}
	what := title
	if target != "" {
		what += " (" + target + ")"
	}
	return cp.Waiting(what)
}

func (cp *Context) warnf(format string, args ...any) {
	cp.Warnings = append(cp.Warnings, fmt.Sprintf(format, args...))
}

// alertf is a warning that must reach the user even from a hook that
// otherwise stays quiet when it succeeds: something in the project tried
// to make ccc act for its user (a forged outbox entry or comment
// reference). It is one line.
func (cp *Context) alertf(format string, args ...any) {
	s := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", "; ")
	cp.Warnings = append(cp.Warnings, s)
	cp.Alerts = append(cp.Alerts, s)
}

// notef records what a succeeding step did, for its report line.
func (cp *Context) notef(format string, args ...any) {
	cp.note = fmt.Sprintf(format, args...)
}

func (cp *Context) takeNote() string {
	n := cp.note
	cp.note = ""
	return n
}

func (cp *Context) debugf(format string, args ...any) {
	if cp.Debug != nil {
		msg, _ := cp.Redactor.Redact(fmt.Sprintf(strings.TrimSuffix(format, "\n"), args...))
		fmt.Fprintln(cp.Debug, msg)
	}
}
