package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
)

// DrainLimit is how many queued deliveries of other targets or agents a
// hook's checkpoint retries before its own (within a third of its
// deadline): a backlog must not use up the hook's budget. The rest waits
// for `ccc sync` or the next run.
const DrainLimit = 3

// RunCheckpoint runs the automated profile prepared in cp (preferences,
// sinks, deadline) as the hook asked in c. Its report comes back as the
// error when a step failed.
func RunCheckpoint(ctx context.Context, c CheckpointRequest, cp *checkpoint.Context) error {
	cp.Persist.KeepState, cp.Persist.Loop = c.KeepState, c.Loop
	cp.Record.SessionID = c.SessionID
	cp.Outbox.Limit = DrainLimit
	// The stop hook may have deleted the state (the last task is done):
	// the issue it read there still names the tracker's target.
	if k, ok := progress.NormalIssue(c.Issue); ok {
		cp.Issue = k
	}
	report := checkpoint.Run(ctx, cp, checkpoint.Automated.Steps(cp))
	if report.Outcome() == checkpoint.OutcomeOK {
		if len(cp.Alerts) > 0 {
			// Quiet on success, but not about a project that tried to
			// post as its user.
			return errors.New(strings.Join(cp.Alerts, "; "))
		}
		return nil
	}
	return errors.New(strings.Join(report.Lines(), " "))
}

// ResumeEnv is what LoadResume needs from its command.
type ResumeEnv struct {
	// Settings name the agent (CCC_AGENT) and hold the preferences.
	Settings config.Settings
	Now      func() time.Time // nil: time.Now
	// Stderr is told, in one line, that the preferences are broken.
	Stderr io.Writer
	// Drift words what moved since the checkpoint (as ccc go says it).
	Drift func(r checkpoint.Resume, staleAfter time.Duration) []string
}

// LoadResume reads the last checkpoint for session-start, without
// writing anything; it is a ResumeLoader.
func LoadResume(ctx context.Context, root string, env ResumeEnv) (Resume, bool, error) {
	project := env.Settings.Project(root)
	prefs, err := project.Prefs, project.Problems.Commands
	prefsReported := err != nil
	if prefsReported {
		fmt.Fprintf(env.Stderr, "ccc hook session-start: %v; using defaults\n", err)
	}
	staleAfter := time.Duration(prefs.Checkpoint.StaleAfter)
	now := time.Now()
	if env.Now != nil {
		now = env.Now()
	}
	// Read-only: the hook reports, it never rebuilds a file. The age and
	// the drift come from the same checkpoint, dated by its own time (the
	// record every checkpoint writes, the **Session:** line, the state).
	r, err := checkpoint.LoadResumeWith(ctx, root, now, checkpoint.ResumeOptions{
		Agent: config.Agent("", env.Settings.Env), StaleAfter: staleAfter, ReadOnly: true})
	if errors.Is(err, checkpoint.ErrNoProgress) {
		return Resume{}, false, nil
	}
	if errors.Is(err, progress.ErrBroken) {
		return Resume{Broken: err.Error()}, true, nil
	}
	if err != nil {
		return Resume{}, false, err
	}
	path := filepath.Join(root, progress.FileName)
	out := Resume{Prompt: r.Prompt, Issue: r.Issue, TaskN: r.TaskN, TaskM: r.TaskM, Age: r.Age, Broken: r.Broken,
		PrefsReported: prefsReported}
	out.Warnings = append(out.Warnings, r.Warnings...)
	if env.Drift != nil {
		out.Warnings = append(out.Warnings, env.Drift(r, staleAfter)...)
	}
	if data, err := projectfs.ReadProjectFile(root, path, progress.MaxSize); err == nil && r.Broken == "" {
		if doc, err := progress.Parse(data); err == nil {
			for _, b := range doc.OpenBlockers() {
				out.Blockers = append(out.Blockers, b.String())
			}
		}
	}
	return out, true, nil
}
