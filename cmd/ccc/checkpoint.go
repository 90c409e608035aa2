package main

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/machines"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/progress"
)

// CheckpointOptions is `ccc checkpoint` as parsed from its flags.
type CheckpointOptions struct {
	Dir           string
	Profile       checkpoint.Profile
	Edits         progress.Edits
	RefreshPrompt bool
	SkipGit       bool
	SkipTracker   string // the flag that skipped it, "" when none
	Agent         string
	Timeout       time.Duration
	JSON          bool
	Trackers      TrackerFlags
	// Fail is why the work failed (--fail), "" when it did not.
	Fail string
}

// NewCmdCheckpoint builds `ccc checkpoint`; runF replaces the run in tests
// of flag parsing.
func NewCmdCheckpoint(f *Factory, dir *string, runF func(*CheckpointOptions) error) *cobra.Command {
	opts := &CheckpointOptions{}
	var profile string
	var skipLinear, skipTracker bool
	cmd := &cobra.Command{
		Use:   "checkpoint [flags]",
		Short: "Save progress, snapshot in-scope files, update the tracker, print the continuation prompt",
		Long: `Run the checkpoint protocol. The manual profile (the default, /ccc:checkpoint)
runs four steps: persist progress to .ccc-progress.md, git snapshot of the
files listed in activeTaskFiles of .ccc-state.json, tracker update, and the
continuation prompt. The automated profile (hooks, CI) runs persist and the
tracker update only. Every step runs even when an earlier one failed; the
report on stderr says what each did.

The git snapshot commits like git commit: the repository's hooks (also a
committed folder core.hooksPath names), fsmonitor and commit signing run.
CCC_GIT_HOOKS=false, or checkpoint.git_hooks: false in your own preferences
($CCC_CONFIG_DIR/preferences.yaml) or in .ccc-preferences.yaml, turns them off (git -c core.hooksPath=/dev/null -c core.fsmonitor=false
-c commit.gpgsign=false commit --no-verify); a repository's git_hooks: true
never turns them back on.

The tracker step updates every configured sink (--sinks, else $CCC_SINKS,
else the preferences' sinks:, else Linear when LINEAR_API_KEY is set, GitHub
inside GitHub Actions or with --github, Jira when JIRA_BASE_URL and its
credentials are set or with --jira, GitLab inside GitLab CI with GITLAB_TOKEN
or with --gitlab), each independently. The sinks are
linear, github, jira, gitlab and file (this agent's section of a Markdown file, STATUS.md
unless sinks.file.path says otherwise; that path must stay inside the project:
no absolute path, no "..", no symlink out).

The edit flags change .ccc-progress.md before it is saved (created from the
template when missing). --done TEXT moves the current task to Completed when
TEXT matches it (or is empty) and promotes the next remaining task; a TEXT
that matches a remaining task moves that one; any other TEXT is added to
Completed. An edit that cannot apply (--unblock matching no blocker, --done ""
with no current task, an empty --add-task) stops the checkpoint before
anything is written, with exit status 2.

The continuation prompt is regenerated when it is empty, when it is still
the one ccc generated (ccc marks it with a hidden line after it,
<!-- ccc:generated sha256:... -->, which an edit of the text voids), and
whenever --next, --current, --done or --refresh-prompt is given. A prompt
the agent wrote is otherwise kept; when one of those flags replaces it, a
warning names the backup in .ccc/backups that holds the old text. A failed
checkpoint's prompt tells the next session to investigate the failure.

Every checkpoint, in both profiles, also writes the agent's record,
.ccc/checkpoints/<agent>.json at the root of the repository's main worktree
(shared by all its worktrees; see ccc status, ccc list). --fail REASON ends
the work as failed: it adds the blocker "FAILED: REASON" to the progress
file, and the record gets status failed and an errors[] entry, and moves to
.ccc/checkpoints/failed/ (ccc cleanup removes it after --failed-max-age).
Unblocking that blocker (--unblock FAILED) reopens the work.` + exitStatusHelp(
			"0  every step succeeded or skipped",
			"3  partial success: the progress was saved, and a later step (or one of several trackers) failed",
			"1  nothing saved: .ccc-progress.md could not be written (a read-only project; the prompt printed\n     still holds the edits), or it is too broken to touch (merge conflict, no section ccc knows,\n     not text), or nothing could run",
			"2  usage error, or an edit flag that cannot apply; nothing was written"),
		Example: `  # start a session
  ccc checkpoint --issue CIA-1 --current "write parser" --add-task "write tests"

  # finish a task and say what comes next
  ccc checkpoint --done "write parser" --next "run go test ./progress/"

  # record a decision and a blocker; no git commit
  ccc checkpoint --decision "goldmark: keeps source positions" \
    --blocker "schema unknown (unblocked by: API docs)" --skip-git

  # give up: the record moves to failed/
  ccc checkpoint --fail "the upstream API was removed"

  # from a hook or CI: persist and tracker update only, as JSON
  ccc checkpoint --profile automated --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.complete(cmd.Flags(), profile, skipLinear, skipTracker); err != nil {
				return err
			}
			opts.Dir = *dir
			if runF != nil {
				return runF(opts)
			}
			return checkpointRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.Edits.Done, "done", nil, "mark a task done (the current one when TEXT matches it or is \"\"); repeatable")
	fl.StringVar(&opts.Edits.Current, "current", "", "set the current task (\"description — status\")")
	fl.StringArrayVar(&opts.Edits.AddTasks, "add-task", nil, "add a remaining task; repeatable")
	fl.StringArrayVar(&opts.Edits.Decisions, "decision", nil, "record a decision as \"what: why\"; repeatable")
	fl.StringArrayVar(&opts.Edits.Blockers, "blocker", nil, "add a blocker (\"text (unblocked by: condition)\"); repeatable")
	fl.StringArrayVar(&opts.Edits.Unblock, "unblock", nil, "remove the blocker matching TEXT; repeatable")
	fl.StringVar(&opts.Edits.Next, "next", "", "the next action, for the prompt and the tracker")
	fl.StringVar(&opts.Fail, "fail", "", "end the work as failed, for REASON: a FAILED blocker, and the record moves to failed/")
	fl.StringVar(&opts.Edits.Issue, "issue", "", "the tracked issue, KEY-123 (any case: cia-12 is CIA-12)")
	fl.BoolVar(&opts.RefreshPrompt, "refresh-prompt", false, "regenerate the continuation prompt even if the agent wrote it (--next, --current and --done do too)")
	fl.StringVar(&profile, "profile", string(checkpoint.Manual), "manual (all four steps) or automated (persist and tracker update)")
	fl.BoolVar(&opts.SkipGit, "skip-git", false, "skip the git snapshot")
	fl.BoolVar(&skipLinear, "skip-linear", false, "skip the tracker update")
	fl.BoolVar(&skipTracker, "skip-tracker", false, "skip the tracker update (same as --skip-linear)")
	fl.StringVar(&opts.Agent, "agent", "", "this writer's name: its record is .ccc/checkpoints/<agent>.json, and each agent owns one status comment (default $CCC_AGENT, else main)")
	durationVar(fl, &opts.Timeout, "timeout", 0, "deadline for the tracker update, retries included (default 30s manual, 10s automated; preferences checkpoint.timeout, checkpoint.automated_timeout)")
	fl.BoolVar(&opts.JSON, "json", false, "print the report as one JSON object on stdout")
	addTrackerFlags(fl, &opts.Trackers)
	return cmd
}

// complete checks the flags and fills in what they imply: the profile,
// --fail's blocker, the flag that skipped the tracker.
func (opts *CheckpointOptions) complete(fl *pflag.FlagSet, profile string, skipLinear, skipTracker bool) error {
	p, err := checkpoint.ParseProfile(profile)
	if err != nil {
		return &usageError{err}
	}
	opts.Profile = p
	if err := validateTargets(&opts.Edits.Issue, opts.Trackers); err != nil {
		return err
	}
	if fl.Changed("fail") {
		reason := strings.Join(strings.Fields(opts.Fail), " ")
		if reason == "" {
			return &usageError{fmt.Errorf("--fail needs a reason")}
		}
		opts.Edits.Blockers = append(opts.Edits.Blockers, checkpoint.FailurePrefix+reason)
	}
	if opts.Timeout < 0 {
		return &usageError{fmt.Errorf("--timeout must not be negative")}
	}
	switch {
	case skipLinear:
		opts.SkipTracker = "--skip-linear"
	case skipTracker:
		opts.SkipTracker = "--skip-tracker"
	}
	return nil
}

func addTrackerFlags(fl *pflag.FlagSet, t *TrackerFlags) {
	fl.StringSliceVar(&t.Sinks, "sinks", nil, "sinks to update, e.g. linear,github,file (default: $CCC_SINKS, else the preferences' sinks:, else those with credentials)")
	fl.StringVar(&t.GitHub, "github", "", "GitHub issue or pull request to comment on, owner/repo#N (default: the GitHub Actions event)")
	fl.StringVar(&t.GitLab, "gitlab", "", "GitLab issue or merge request to comment on, group/project#N or group/project!N (default: the GitLab CI merge request)")
	fl.StringVar(&t.Jira, "jira", "", "Jira issue to comment on, PROJ-123 (default: the issue key of --issue, the state, the progress file or the branch)")
}

func checkpointRun(ctx context.Context, f *Factory, opts *CheckpointOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	cp, err := f.newCheckpoint(root, opts.Profile, runFlags{Agent: opts.Agent, Timeout: opts.Timeout, Trackers: opts.Trackers})
	if err != nil {
		return err
	}
	cp.Edits = opts.Edits
	cp.Issue = opts.Edits.Issue
	cp.Persist.RefreshPrompt = opts.RefreshPrompt
	cp.Git.Skip = opts.SkipGit
	cp.Tracker.Skip, cp.Tracker.SkipFlag = opts.SkipTracker != "", opts.SkipTracker
	cp.Waiting = f.waiting(opts.JSON)

	report := checkpoint.Run(ctx, cp, opts.Profile.Steps(cp))
	return f.finish(report, "ccc checkpoint", opts.JSON, opts.Profile == checkpoint.Manual)
}

// runFlags are the flags that override a setting of the environment or
// the preferences ("" and 0: not given).
type runFlags struct {
	Agent    string
	Timeout  time.Duration
	Trackers TrackerFlags
}

// resolve is each setting a flag overrides, resolved once: the flag, else
// the environment, else the preferences, else the default. The agent is
// --agent, CCC_AGENT, main (ccc post: config.CIAgent, never main unless
// asked for); the deadline --timeout, else the profile's preference.
func (f *Factory) resolve(root string, profile checkpoint.Profile, fl runFlags) (config.Project, string, time.Duration) {
	project, agent := f.settings().Project(root), config.Agent(fl.Agent, f.env())
	timeout := project.Prefs.Checkpoint.Timeout
	if profile == checkpoint.Post {
		agent = config.CIAgent(fl.Agent, f.env())
	}
	if profile != checkpoint.Manual {
		timeout = project.Prefs.Checkpoint.AutomatedTimeout
	}
	return project, agent, cmp.Or(fl.Timeout, time.Duration(timeout))
}

// newCheckpoint prepares a run in root with everything but the edits:
// preferences (a broken file is a warning), the agent, the deadline, the
// sinks (resolve) and the clock.
func (f *Factory) newCheckpoint(root string, profile checkpoint.Profile, fl runFlags) (*checkpoint.Context, error) {
	project, agent, timeout := f.resolve(root, profile, fl)
	prefs, tf := project.Prefs, fl.Trackers
	if err := project.Problems.Commands; err != nil {
		fmt.Fprintf(f.IO.ErrOut, "Warning: %v; using the defaults, without the repository's git hooks\n", err)
	}
	cp := &checkpoint.Context{
		Root:    root,
		Now:     f.Now(),
		Profile: profile,
		Agent:   agent,
		Timeout: timeout,
		Git: checkpoint.GitOptions{
			NoHooks:       !config.GitHooks(prefs, f.env()),
			CommitMessage: prefs.Checkpoint.CommitMessage,
		},
	}
	if f.env().Debug {
		cp.Debug = f.IO.ErrOut
	}
	cp.Trackers, cp.Warnings = f.trackers(root, prefs, tf)
	if uerr := project.User; uerr != nil {
		cp.Warnings = append(cp.Warnings, fmt.Sprintf("%v; using the defaults, without the repository's git hooks", uerr))
	}
	held := append(f.env().Secrets(), linearStoredSecrets(f)...)
	var err error
	if cp.Redactor, err = redact.New(held, project.Patterns); err != nil {
		// The built-in patterns and the held secrets still apply.
		cp.Redactor, _ = redact.New(held, nil)
		cp.Warnings = append(cp.Warnings, fmt.Sprintf("%s: %v; redacting with the built-in patterns only", config.PrefsFile, err))
	}
	if cp.Key, err = config.UserKey(f.env()); err != nil {
		cp.Warnings = append(cp.Warnings, fmt.Sprintf("%v: queued updates wait, stored comment references are checked", err))
	}
	if project.HandoffRemote != "" && cp.Key != nil { // without the key (warned above) nothing can be signed
		cp.Handoff, err = machines.RunOptions(cp.Key, project.HandoffRemote)
		if err != nil {
			cp.Warnings = append(cp.Warnings, fmt.Sprintf("checkpoint branch: %v", err))
		}
	}
	cp.Tracker.NoRedact = project.NoRedact
	if ignored := project.Ignored; len(ignored) > 0 {
		where := "the user preferences"
		if p, err := f.settings().UserPrefsPath(); err == nil {
			where = p
		}
		cp.Warnings = append(cp.Warnings, fmt.Sprintf("%s: redact: false (sinks %s) ignored: a repository cannot turn redaction off; set it in %s",
			config.PrefsFile, strings.Join(ignored, ", "), where))
	}
	return cp, nil
}

// waitAfter is how long a delivery runs before a terminal shows what ccc
// waits for: a quick one shows nothing, a slow one is never silent.
const waitAfter = time.Second

// waiting is the run's Waiting: on a terminal only, and never with --json
// (a program reads that run) nor in hooks (which do not set it).
func (f *Factory) waiting(asJSON bool) func(string) func() {
	if !f.IO.ErrTTY || asJSON {
		return nil
	}
	return ui.NewWaiter(f.IO.ErrOut, waitAfter, func() int { return ui.TermWidth(f.IO.ErrOut, f.env().Columns) }).Wait
}

// reportMarks are the marks of report lines on a terminal, with their
// colours.
var reportMarks = map[checkpoint.Mark]struct{ mark, colour string }{
	checkpoint.MarkOK:   {"✓", "32"},
	checkpoint.MarkWarn: {"!", "33"},
	checkpoint.MarkFail: {"X", "31"},
}

// printReport writes the report's lines to stderr, marked and coloured on a
// terminal.
func printReport(io IOStreams, r checkpoint.Report) {
	for _, line := range r.Marked() {
		if !io.ErrTTY {
			fmt.Fprintln(io.ErrOut, line.Text)
			continue
		}
		m := reportMarks[line.Mark]
		fmt.Fprintf(io.ErrOut, "\x1b[%sm%s\x1b[0m %s\n", m.colour, m.mark, line.Text)
	}
}
