package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/hook"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
)

// maxHookInput bounds what a hook reads from stdin: Claude Code sends a few
// kilobytes (last_assistant_message included); more is not a hook input.
const maxHookInput = 16 << 20

// hookDrainLimit is how many queued deliveries of other targets or agents
// a hook's checkpoint retries before its own (within a third of its
// deadline): a backlog must not use up the hook's budget. The rest waits
// for `ccc sync` or the next run.
const hookDrainLimit = 3

// hookRootHelp is how every hook finds its project (see hookRoot).
const hookRootHelp = `

The project root is --dir, else $CCC_PROJECT_ROOT, else the git top level of
Claude Code's directory (the "cwd" of the hook's stdin, else
$CLAUDE_PROJECT_DIR, else the current directory), else that directory
itself. With --dir or $CCC_PROJECT_ROOT the stop hook's decision runs no
subprocess. An unknown flag is ignored with one line on stderr.`

var hookExitStatus = exitStatusHelp(
	"0  always: a hook speaks only through its JSON on stdout; problems are",
	"   reported on stderr, one line each")

// NewCmdHook builds `ccc hook`, the handlers Claude Code runs as hooks.
func NewCmdHook(f *Factory, dir *string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook <event>",
		Short: "Claude Code hook handlers: stop, pre-compact, session-start, session-end",
		Long: `Handlers for Claude Code's hooks. Each reads the hook's JSON object on stdin
and answers with JSON on stdout, or with nothing. The Claude Code plugin in
plugin/ wires them up; so can the "hooks" section of .claude/settings.json.

An unknown event is reported on stderr and does nothing, so an older ccc
never breaks a newer plugin.` + hookRootHelp + hookExitStatus,
		Example: `  # in .claude/settings.json
  {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "ccc hook stop", "timeout": 30}]}]}}

  # by hand
  echo '{"session_id":"s1","last_assistant_message":"TASK_COMPLETE"}' | ccc hook stop`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			fmt.Fprintf(f.IO.ErrOut, "ccc hook: unknown hook event %q; nothing done\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(
		newCmdHookEvent(f, dir, "stop", "Drive CCC's task loop when the agent stops; checkpoint at gate boundaries",
			`Claude Code's Stop hook: a drop-in replacement for CCC's ccc-stop-handler.sh.
It reads .ccc-state.json and .ccc-preferences.yaml at the project root and
decides, in CCC's order, whether the agent stops, retries its task, moves to
the next one or replans. A block prints {"decision":"block","reason":...}
with CCC's reason text (tasks counted from 1, as in .ccc-progress.md); a
halt (an iteration or replan limit) prints {"systemMessage":...} and lets
the agent stop; everything else prints nothing. At gate boundaries (a
pending gate, a halt, a replan, a finished task) it first runs the
automated checkpoint (persist progress, update the tracker) within
hooks.checkpoint_timeout (10s).

A state without totalTasks takes the task count from .ccc-progress.md.
When the last task is done the hook deletes .ccc-state.json, as CCC does,
and names its backup in .ccc/backups/ on stderr. The assistant's last
output is last_assistant_message, else the transcript at transcript_path;
a transcript that does not exist is reported and counts as no output (a
retry). CCC_DEBUG=1 reports the rule that decided on stderr.

When another ccc process holds .ccc/lock, the hook waits for it as long as
its 30s budget allows after the checkpoint; if it is still held, the hook
answers as decided and keeps the state change in .ccc/pending/, which the
next stop hook applies first (or discards, naming why, when the state has
moved since).`,
			`  # in .claude/settings.json
  {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "ccc hook stop", "timeout": 30}]}]}}

  # by hand, in a project with .ccc-state.json
  echo '{"session_id":"s1","last_assistant_message":"Lexer done. TASK_COMPLETE"}' | ccc hook stop

  # from anywhere: the cwd on stdin names the project
  echo '{"session_id":"s1","cwd":"'"$PWD"'","last_assistant_message":"TASK_COMPLETE"}' | (cd / && ccc hook stop)`,
			func(ctx context.Context, env hook.Env, stdin []byte) []byte {
				return hook.Stop(ctx, env, stdin).Stdout()
			}),
		newCmdHookEvent(f, dir, "pre-compact", "Save progress before Claude Code compacts the context",
			`Claude Code's PreCompact hook: runs the automated checkpoint (persist
progress, update the tracker) within hooks.checkpoint_timeout (10s), in a
project that has .ccc-progress.md or .ccc-state.json. It prints nothing, so
the compaction always goes ahead.`,
			`  # in .claude/settings.json
  {"hooks": {"PreCompact": [{"matcher": "manual|auto", "hooks": [{"type": "command", "command": "ccc hook pre-compact", "timeout": 30}]}]}}

  # by hand
  echo '{"session_id":"s1","trigger":"manual"}' | ccc hook pre-compact`,
			func(ctx context.Context, env hook.Env, stdin []byte) []byte {
				hook.PreCompact(ctx, env, stdin)
				return nil
			}),
		newCmdHookEvent(f, dir, "session-start", "Give a new session the continuation prompt",
			`Claude Code's SessionStart hook: after a compaction (source compact) or on
resume, and on startup when the last checkpoint is younger than
hooks.session_start_max_age (24h), it adds the continuation prompt of
.ccc-progress.md to the session, with one status line (task N of M,
blockers, age) and a warning when the branch or HEAD moved since.`,
			`  # in .claude/settings.json
  {"hooks": {"SessionStart": [{"matcher": "startup|resume|compact", "hooks": [{"type": "command", "command": "ccc hook session-start", "timeout": 15}]}]}}

  # by hand: what a compacted session would be told
  echo '{"session_id":"s1","source":"compact"}' | ccc hook session-start`,
			func(ctx context.Context, env hook.Env, stdin []byte) []byte {
				return hook.SessionStart(ctx, env, stdin, f.hookResume)
			}),
		newCmdHookEvent(f, dir, "session-end", "Keep a copy of the progress file when the session ends",
			`Claude Code's SessionEnd hook: copies .ccc-progress.md to
.ccc/sessions/.ccc-progress-<UTC time>.md and keeps the newest 20 copies.`,
			`  # in .claude/settings.json
  {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "ccc hook session-end", "timeout": 10}]}]}}

  # by hand
  echo '{"session_id":"s1","reason":"other"}' | ccc hook session-end && ls .ccc/sessions`,
			func(ctx context.Context, env hook.Env, stdin []byte) []byte {
				hook.SessionEnd(ctx, env, stdin)
				return nil
			}),
	)
	return cmd
}

// newCmdHookEvent builds one hook subcommand. Nothing it meets changes its
// exit status: extra arguments are ignored, unknown flags are ignored with
// one line on stderr (an older ccc keeps working under a newer plugin), a
// panic is reported, and the output is written whole or not at all.
func newCmdHookEvent(f *Factory, dir *string, name, short, long, example string,
	run func(ctx context.Context, env hook.Env, stdin []byte) []byte) *cobra.Command {
	return &cobra.Command{
		Use:     name,
		Short:   short,
		Long:    long + hookRootHelp + hookExitStatus,
		Example: example,
		Args:    cobra.ArbitraryArgs,
		// The flags are parsed in RunE: cobra ignores unknown flags
		// without a trace, and the hook must name them.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			defer func() {
				if p := recover(); p != nil {
					fmt.Fprintf(f.IO.ErrOut, "ccc hook %s: internal error: %v\n", name, p)
				}
			}()
			flags := cmd.Flags()
			cmd.InheritedFlags() // merges --dir and the root's other flags into flags
			unknown := unknownFlags(flags, args)
			flags.ParseErrorsAllowlist.UnknownFlags = true
			if err := flags.Parse(args); err != nil {
				return err // main reports it in one line and exits 0
			}
			if help, _ := flags.GetBool("help"); help {
				return cmd.Help()
			}
			if len(unknown) > 0 {
				fmt.Fprintf(f.IO.ErrOut, "ccc hook %s: ignoring unknown flag %s\n", name, strings.Join(unknown, ", "))
			}
			var stdin []byte
			if f.IO.In != nil {
				var err error
				if stdin, err = io.ReadAll(io.LimitReader(f.IO.In, maxHookInput+1)); err != nil {
					fmt.Fprintf(f.IO.ErrOut, "ccc hook %s: stdin: %v\n", name, err)
					return nil
				}
				if len(stdin) > maxHookInput { // the rest is left unread
					fmt.Fprintf(f.IO.ErrOut, "ccc hook %s: stdin: over %d MB, not a hook input; ignored\n", name, maxHookInput>>20)
					return nil
				}
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			if out := run(ctx, f.hookEnv(*dir), stdin); len(out) > 0 {
				if _, err := f.IO.Out.Write(out); err != nil {
					fmt.Fprintf(f.IO.ErrOut, "ccc hook %s: stdout: %v\n", name, err)
				}
			}
			return nil
		},
	}
}

// unknownFlags lists the flags of args that fs does not define, as written
// (--name, -x), up to "--". It reads args the way pflag does: a known
// flag's value is skipped, and -h/--help are cobra's.
func unknownFlags(fs *pflag.FlagSet, args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		if name, ok := strings.CutPrefix(a, "--"); ok {
			name, _, hasValue := strings.Cut(name, "=")
			fl := fs.Lookup(name)
			switch {
			case fl == nil && name != "help":
				out = append(out, "--"+name)
			case fl != nil && !hasValue && fl.NoOptDefVal == "":
				i++ // --flag value
			}
			continue
		}
		for j := 1; j < len(a); j++ { // -abc: shorthands, until one takes a value
			c := a[j : j+1]
			fl := fs.ShorthandLookup(c)
			if fl == nil {
				if c != "h" {
					out = append(out, "-"+c)
				}
				break
			}
			if fl.NoOptDefVal == "" {
				if j == len(a)-1 {
					i++ // -x value
				}
				break
			}
		}
	}
	return out
}

// hookEnv is what the hooks need, built from the factory: the root is
// found lazily, after stdin was accepted, because it may run git.
func (f *Factory) hookEnv(dir string) hook.Env {
	now := f.Now
	if now == nil {
		now = time.Now
	}
	return hook.Env{
		Root:       func(ctx context.Context, cwd string) (string, error) { return f.hookRoot(ctx, dir, cwd) },
		Now:        now,
		Checkpoint: f.hookCheckpoint,
		Stderr:     f.IO.ErrOut,
		Debug:      f.Getenv("CCC_DEBUG") != "",
	}
}

// hookRoot finds a hook's project root. A root named on purpose wins
// (--dir, then $CCC_PROJECT_ROOT): it is the only way to name a project
// below the git top level. Otherwise the root is the git top level of
// Claude Code's directory, else that directory: the cwd of the hook's
// stdin (where the session works now), else $CLAUDE_PROJECT_DIR (where it
// started), else the process's own. A directory that does not exist is
// skipped.
func (f *Factory) hookRoot(ctx context.Context, dir, cwd string) (string, error) {
	if dir == "" && f.Getenv("CCC_PROJECT_ROOT") == "" {
		for _, d := range []string{cwd, f.Getenv("CLAUDE_PROJECT_DIR")} {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() && filepath.IsAbs(d) {
				return config.FindRoot(ctx, "", f.Getenv, d)
			}
		}
	}
	return f.root(ctx, dir)
}

// hookCheckpoint is the automated profile run by the hooks: persist the
// progress document, then update the configured trackers. Its report comes
// back as the error when a step failed.
func (f *Factory) hookCheckpoint(ctx context.Context, c hook.CheckpointRequest) error {
	// The hook has said what is wrong with the preferences in its own line
	// (hook.PrefsOf); newCheckpoint's "Warning: …" would be a second one.
	quiet := *f
	quiet.IO.ErrOut = io.Discard
	cp, err := quiet.newCheckpoint(c.Root, checkpoint.Automated, "", c.Deadline, TrackerFlags{})
	if err != nil {
		return err
	}
	if cp.Debug != nil {
		cp.Debug = f.IO.ErrOut
	}
	cp.KeepState, cp.SessionID = c.KeepState, c.SessionID
	cp.DrainLimit = hookDrainLimit
	if l := c.Loop; l != nil {
		cp.Loop = &checkpoint.Loop{TaskIndex: int(l.TaskIndex), TotalTasks: int(l.TotalTasks)}
	}
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

// hookResume reads the last checkpoint for session-start.
func (f *Factory) hookResume(ctx context.Context, root string) (hook.Resume, bool, error) {
	prefs, err := config.LoadPrefs(root)
	prefsReported := err != nil
	if prefsReported {
		fmt.Fprintf(f.IO.ErrOut, "ccc hook session-start: %v; using defaults\n", err)
	}
	staleAfter := time.Duration(prefs.Checkpoint.StaleAfter)
	now := time.Now()
	if f.Now != nil {
		now = f.Now()
	}
	// Read-only: the hook reports, it never rebuilds a file. The age and
	// the drift come from the same checkpoint, dated by its own time (the
	// record every checkpoint writes, the **Session:** line, the state).
	r, err := checkpoint.LoadResumeWith(ctx, root, now, checkpoint.ResumeOptions{
		Agent: config.Agent("", f.Getenv), StaleAfter: staleAfter, ReadOnly: true})
	if errors.Is(err, checkpoint.ErrNoProgress) {
		return hook.Resume{}, false, nil
	}
	if errors.Is(err, progress.ErrBroken) {
		return hook.Resume{Broken: err.Error()}, true, nil
	}
	if err != nil {
		return hook.Resume{}, false, err
	}
	path := filepath.Join(root, progress.FileName)
	out := hook.Resume{Prompt: r.Prompt, Issue: r.Issue, TaskN: r.TaskN, TaskM: r.TaskM, Age: r.Age, Broken: r.Broken,
		PrefsReported: prefsReported}
	out.Warnings = append(append(out.Warnings, r.Warnings...), driftWarnings(r, staleAfter)...)
	if data, err := state.ReadProjectFile(root, path, progress.MaxSize); err == nil && r.Broken == "" {
		if doc, err := progress.Parse(data); err == nil {
			for _, b := range doc.Blockers {
				if b.Checkbox && b.Checked {
					continue // resolved
				}
				text := b.Description
				if b.UnblockedBy != "" {
					text += " (unblocked by: " + b.UnblockedBy + ")"
				}
				out.Blockers = append(out.Blockers, text)
			}
		}
	}
	return out, true, nil
}
