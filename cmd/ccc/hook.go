package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	agents "github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/all"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/hook"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/all"
)

// maxHookInput bounds what a hook reads from stdin: Claude Code sends a few
// kilobytes (last_assistant_message included); more is not a hook input.
const maxHookInput = 16 << 20

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
		Short: "Agent hook handlers: stop, pre-compact, session-start, session-end, capture",
		Long: `Handlers for the hooks of Claude Code, Codex CLI and Gemini CLI. Each reads the
hook's JSON object on stdin and answers with JSON on stdout in the agent's
shape, or with nothing. The Claude Code plugin in plugin/ wires them up; so
can the "hooks" section of .claude/settings.json, .codex/hooks.json or
.gemini/settings.json (ccc init codex|gemini writes the last two).

--agent names the agent; without it, the input tells (Gemini's own events
and fields, a Codex rollout log or turn_id, else Claude Code). Each handler
first folds the agent's own checklist (Codex's update_plan plan, Gemini's
write_todos list; Claude Code's task files or TodoWrite list) into
.ccc-progress.md. The agents' event names are
accepted for ccc's: Stop and AfterAgent for stop, PreCompact and
PreCompress for pre-compact, SessionStart, SessionEnd, and PostToolUse and
AfterTool for capture.

An unknown event is reported on stderr and does nothing, so an older ccc
never breaks a newer plugin.` + hookRootHelp + hookExitStatus,
		Example: `  # in .claude/settings.json
  {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "ccc hook stop", "timeout": 30}]}]}}

  # in .codex/hooks.json (timeouts in seconds)
  {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "ccc hook --agent codex stop", "timeout": 30}]}]}}

  # in .gemini/settings.json (timeouts in milliseconds)
  {"hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "ccc hook --agent gemini stop", "timeout": 30000}]}]}}

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

A state without totalTasks takes the task count from .ccc-progress.md, and
one whose totalTasks is below the tasks .ccc-progress.md lists takes the
file's count.
When the last task is done the hook deletes .ccc-state.json, as CCC does,
and names its backup in .ccc/backups/ on stderr. The assistant's last
output is last_assistant_message, else the transcript at transcript_path;
a transcript that does not exist is reported and counts as no output (a
retry). CCC_DEBUG=1 reports the rule that decided on stderr.

When another ccc process holds .ccc/lock, the hook waits for it 3s at most
(all its waits together); if it is still held, the hook answers as decided,
keeps the state change in .ccc/pending/, which the next stop hook applies
first (or discards, naming why, when the state has moved since), skips the
checkpoint and says so in one line. Every hook waits for the lock 3s at most.

First it captures the agent's own task list into .ccc-progress.md (see
ccc hook post-tool-use) and resolves an "API error: …" blocker; with a
list, a stop that ran no checkpoint of its own runs one.`,
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
project that has .ccc-progress.md or .ccc-state.json, after capturing the
agent's task list. It prints nothing, so the compaction always goes ahead.`,
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
blockers, age) and a warning when the branch or HEAD moved since, then the
task state captured from the agent's own list (current, done, remaining,
files touched, blockers, its last line, branch and HEAD); a session with no
list is told to re-create it from .ccc-progress.md. On /clear (source
clear) it adds nothing and carries the old session's task files over to
the new session.`,
			`  # in .claude/settings.json
  {"hooks": {"SessionStart": [{"matcher": "startup|resume|compact|clear", "hooks": [{"type": "command", "command": "ccc hook session-start", "timeout": 15}]}]}}

  # by hand: what a compacted session would be told
  echo '{"session_id":"s1","source":"compact"}' | ccc hook session-start`,
			func(ctx context.Context, env hook.Env, stdin []byte) []byte {
				return hook.SessionStart(ctx, env, stdin, f.hookResume)
			}),
		newCmdHookEvent(f, dir, "capture", "Fold the agent's checklist into the progress file after its checklist tool ran",
			`For the agent's tool event (Codex's PostToolUse, Gemini CLI's AfterTool) with
a matcher on its checklist tool (update_plan, write_todos): reads the list
from the tool's input, else from the agent's log at transcript_path, and
folds it into .ccc-progress.md, writing only when it changed. No checkpoint,
no tracker, no output.`,
			`  # in .gemini/settings.json
  {"hooks": {"AfterTool": [{"matcher": "^write_todos$", "hooks": [{"type": "command", "command": "ccc hook --agent gemini capture", "timeout": 10000}]}]}}`,
			func(ctx context.Context, env hook.Env, stdin []byte) []byte {
				hook.Capture(ctx, env, stdin)
				return nil
			}),
		newCmdHookEvent(f, dir, "session-end", "Keep a copy of the progress file when the session ends",
			`Claude Code's SessionEnd hook: captures the agent's task list and, when
there is one, runs the automated checkpoint; then copies .ccc-progress.md
to .ccc/sessions/.ccc-progress-<UTC time>.md and keeps the newest 20 copies.`,
			`  # in .claude/settings.json
  {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "ccc hook session-end", "timeout": 10}]}]}}

  # by hand
  echo '{"session_id":"s1","reason":"other"}' | ccc hook session-end && ls .ccc/sessions`,
			func(ctx context.Context, env hook.Env, stdin []byte) []byte {
				hook.SessionEnd(ctx, env, stdin)
				return nil
			}),
	)
	cmd.AddCommand(NewCmdHookCapture(f, dir)...)
	cmd.PersistentFlags().String("agent", "", "the agent running the hook: claude, codex or gemini (default: detected from the input)")
	// Each agent's event names (sorted) become aliases of the ccc event
	// they play: each name asked once, not once per sub-command.
	aliases := map[string][]string{}
	for _, native := range agents.NativeEvents() {
		ev := hook.Event(native)
		aliases[ev] = append(aliases[ev], native)
	}
	for _, sub := range cmd.Commands() {
		sub.Aliases = append(sub.Aliases, aliases[sub.Name()]...)
	}
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
			unknown := hook.UnknownFlags(flags, args)
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
			stdin, ok := f.hookInput(name)
			if !ok {
				return nil
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			env := f.hookEnv(*dir)
			agent, _ := flags.GetString("agent")
			var err error
			if env.Agent, err = hook.ParseAgent(agent); err != nil {
				fmt.Fprintf(f.IO.ErrOut, "ccc hook %s: %v; detecting it from the input\n", name, err)
			}
			if out := run(ctx, env, stdin); len(out) > 0 {
				if _, err := f.IO.Out.Write(out); err != nil {
					fmt.Fprintf(f.IO.ErrOut, "ccc hook %s: stdout: %v\n", name, err)
				}
			}
			return nil
		},
	}
}

// hookInputWait bounds how long a hook waits for its stdin to end: an agent
// host writes its JSON and closes the pipe at once, and one that keeps it
// open must not hang the hook until the host kills it.
const hookInputWait = 2 * time.Second

// hookInput reads a hook's stdin, at most maxHookInput bytes (more is not
// a hook's input, and is left unread) until it ends or hookInputWait has
// passed; then what was read is used when it is a whole JSON value. ok is
// false when the hook has nothing to read (said in one stderr line).
func (f *Factory) hookInput(name string) (stdin []byte, ok bool) {
	if f.IO.In == nil {
		return nil, true
	}
	data, warning, ok := hook.ReadStdin(f.IO.In, maxHookInput, hookInputWait)
	if warning != "" {
		fmt.Fprintf(f.IO.ErrOut, "ccc hook %s: %s\n", name, warning)
	}
	return data, ok
}

// hookEnv is what the hooks need, built from the factory: the root is
// found lazily, after stdin was accepted, because it may run git.
func (f *Factory) hookEnv(dir string) hook.Env {
	claude := f.env().Claude
	now := f.Now
	if now == nil {
		now = time.Now
	}
	return hook.Env{
		Root:       func(ctx context.Context, cwd string) (string, error) { return f.hookRoot(ctx, dir, cwd) },
		Now:        now,
		Settings:   f.settings(),
		Checkpoint: f.hookCheckpoint,
		Stderr:     f.IO.ErrOut,
		Debug:      f.env().Debug,
		Claude:     &claude,
		Replies:    f.hookReplies,
		StopCheck:  f.hookStopCheck,
		KeepAlive:  f.keepAlive,
	}
}

// hookAgent is the ccc agent a hook runs for, whose record its
// checkpoints write (hookCheckpoint: $CCC_AGENT, else main) and so whose
// Linear agent session it reads. The hook's --agent names the host
// (claude, codex, gemini), not this.
func (f *Factory) hookAgent() string { return config.Agent("", f.env()) }

// hookReplies reads the Linear agent session of the hook's agent.
func (f *Factory) hookReplies(ctx context.Context, root string) (replies, stoppedBy string) {
	c, ok := all.Registry().Conversation(sinks.Env{Settings: f.settings(), HTTPClient: f.HTTPClient, Root: root})
	if !ok {
		return "", "" // no app token: no session, and no git run to find the issue
	}
	issue, _ := checkpoint.FindIssue(ctx, root, "", time.Now())
	replies, stoppedBy, err := c.Replies(ctx, issue, f.hookAgent())
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "ccc hook: Linear replies not read: %v\n", err)
	}
	return replies, stoppedBy
}

// hookStopCheck asks the hook's agent's Linear agent session whether someone
// pressed stop, for the tool hooks (at most one query a minute).
func (f *Factory) hookStopCheck(ctx context.Context, root string) (stoppedBy string) {
	c, ok := all.Registry().Conversation(sinks.Env{Settings: f.settings(), HTTPClient: f.HTTPClient, Root: root})
	if !ok {
		return ""
	}
	sc, ok := c.(interface {
		StopRequested(ctx context.Context, issue, agent string) (string, error)
	})
	if !ok {
		return ""
	}
	issue, _ := checkpoint.FindIssue(ctx, root, "", time.Now())
	by, err := sc.StopRequested(ctx, issue, f.hookAgent())
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "ccc hook: Linear stop not checked: %v\n", err)
	}
	return by
}

// hookRoot finds a hook's project root: --dir or $CCC_PROJECT_ROOT, else
// the git top level of the directory the agent works in (hook.AgentDir),
// else that directory, else the process's own.
func (f *Factory) hookRoot(ctx context.Context, dir, cwd string) (string, error) {
	if d, ok := hook.AgentDir(dir, f.env(), cwd); ok {
		return config.FindRoot(ctx, "", f.env(), d)
	}
	return f.root(ctx, dir)
}

// hookCheckpoint is the automated profile run by the hooks
// (hook.RunCheckpoint), prepared as every checkpoint is.
func (f *Factory) hookCheckpoint(ctx context.Context, c hook.CheckpointRequest) error {
	// The hook has said what is wrong with the preferences in its own line
	// (hook.PrefsOf); newCheckpoint's "Warning: …" would be a second one.
	quiet := *f
	quiet.IO.ErrOut = io.Discard
	cp, err := quiet.newCheckpoint(c.Root, checkpoint.Automated, runFlags{Timeout: c.Deadline})
	if err != nil {
		return err
	}
	if cp.Debug != nil {
		cp.Debug = f.IO.ErrOut
	}
	return hook.RunCheckpoint(ctx, c, cp)
}

// hookResume reads the last checkpoint for session-start.
func (f *Factory) hookResume(ctx context.Context, root string) (hook.Resume, bool, error) {
	return hook.LoadResume(ctx, root, hook.ResumeEnv{Settings: f.settings(), Now: f.Now, Stderr: f.IO.ErrOut, Drift: driftWarnings})
}

// keepAlive sends the Linear agent session an ephemeral thought (at most
// one per few minutes) so it does not turn stale while the agent works.
func (f *Factory) keepAlive(ctx context.Context, root, what string) {
	f.keepAliveAs(ctx, root, f.hookAgent(), what)
}

func (f *Factory) keepAliveAs(ctx context.Context, root, agent, what string) {
	c, ok := all.Registry().Conversation(sinks.Env{Settings: f.settings(), HTTPClient: f.HTTPClient, Root: root})
	if !ok {
		return
	}
	issue, _ := checkpoint.FindIssue(ctx, root, "", time.Now())
	if _, err := c.KeepAlive(ctx, issue, agent, what); err != nil {
		fmt.Fprintf(f.IO.ErrOut, "ccc: Linear agent session not kept alive: %v\n", err)
	}
}
