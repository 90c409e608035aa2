package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/all"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/claudecode"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/install"
)

// InitOptions is `ccc init <agent>` as parsed.
type InitOptions struct {
	Dir       string
	DryRun    bool
	TodoTools bool
	// Remove takes ccc's hooks out instead of adding them.
	Remove bool
}

// NewCmdInit builds `ccc init`, which wires ccc's hooks into an agent's
// project configuration.
func NewCmdInit(f *Factory, dir *string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init <agent>",
		Short: "Write ccc's hooks into the project's configuration for an agent",
		Long: `Write the hook configuration that lets an agent run ccc by itself (capture
its task list, checkpoint at its boundaries, re-inject the continuation
prompt) into the project. It is idempotent, prints what it changes as a
diff, and never changes or removes the user's own hooks. --remove takes
exactly ccc's hooks out again (the same diff, --dry-run too).` + exitStatusHelp(
			"0  help printed (name an agent: ccc init claude, codex or gemini)",
			"2  usage error: an unknown agent"),
		Example: `  ccc init claude --dry-run
  ccc init claude
  ccc init codex
  ccc init gemini`,
	}
	cmd.AddCommand(newCmdInitClaude(f, dir))
	for _, a := range initAgents() {
		cmd.AddCommand(newCmdInitAgent(f, dir, a))
	}
	return cmd
}

func newCmdInitClaude(f *Factory, dir *string) *cobra.Command {
	opts := &InitOptions{}
	cmd := &cobra.Command{
		Use:   "claude",
		Short: "Write ccc's Claude Code hooks into .claude/settings.json",
		Long: `Add ccc's hooks to the project's .claude/settings.json: Stop, PreCompact,
SessionStart, SessionEnd, PostToolUse (TaskCreate|TaskUpdate|TodoWrite),
TaskCompleted, PostCompact, StopFailure, SubagentStart and SubagentStop,
each as a group of its own,
unless the settings already run that command for that event. Every other
key and every hook of the user's stays, keys in their order. A file that
is not a JSON object is reported and left alone. The plugin in plugin/
wires the same hooks: use one or the other.

Newer models get no checklist tool unless CLAUDE_CODE_ENABLE_TODO_TOOLS=1;
--enable-todo-tools sets it in the settings' env. ccc never sets it by
itself.` + exitStatusHelp(
			"0  written, or nothing to change (or, with --dry-run, shown)",
			"1  the settings file cannot be read as JSON, or cannot be written",
			"2  usage error"),
		Example: `  ccc init claude --dry-run
  ccc init claude
  ccc init claude --enable-todo-tools`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Dir = *dir
			root, err := f.root(cmd.Context(), opts.Dir)
			if err != nil {
				return err
			}
			if opts.Remove {
				return removeHooks(f, root, "claude", opts.DryRun)
			}
			res, err := claudecode.Install(root, opts.DryRun, claudecode.InstallOptions{TodoTools: opts.TodoTools})
			if err != nil {
				return err
			}
			printInstall(f, res, opts.DryRun)
			return nil
		},
	}
	initFlags(cmd, opts)
	cmd.Flags().BoolVar(&opts.TodoTools, "enable-todo-tools", false, "also set CLAUDE_CODE_ENABLE_TODO_TOOLS=1 in the settings' env")
	return cmd
}

// initFlags adds the flags every agent's init takes.
func initFlags(cmd *cobra.Command, opts *InitOptions) *cobra.Command {
	cmd.Flags().BoolVarP(&opts.DryRun, "dry-run", "n", false, "print the change; write nothing")
	cmd.Flags().BoolVar(&opts.Remove, "remove", false, "take ccc's hooks out instead (every other hook stays)")
	return cmd
}

// removeHooks is `ccc init <agent> --remove`: the agent's installer takes
// ccc's hooks out of the project's configuration.
func removeHooks(f *Factory, root, name string, dryRun bool) error {
	a, err := all.Lookup(name)
	if err != nil {
		return err
	}
	inst, ok := a.(agent.HookInstaller)
	if !ok {
		return fmt.Errorf("ccc does not install hooks for %s", name)
	}
	res, err := inst.RemoveHooks(root, dryRun)
	if err != nil {
		return err
	}
	switch {
	case !res.Changed:
		fmt.Fprintf(f.IO.ErrOut, "%s runs none of ccc's hooks; nothing to remove\n", res.Path)
	case dryRun:
		fmt.Fprint(f.IO.Out, res.Diff)
		fmt.Fprintf(f.IO.ErrOut, "would remove ccc's hooks from %s (dry run; nothing written)\n", res.Path)
	default:
		fmt.Fprint(f.IO.Out, res.Diff)
		fmt.Fprintf(f.IO.ErrOut, "removed ccc's hooks from %s\n", res.Path)
	}
	return nil
}

// printInstall prints an installer's result: the diff on stdout, one line
// and the notes on stderr.
func printInstall(f *Factory, res install.Result, dryRun bool) {
	switch {
	case !res.Changed:
		fmt.Fprintf(f.IO.ErrOut, "%s already runs ccc's hooks; nothing to change\n", res.Path)
	case dryRun:
		fmt.Fprint(f.IO.Out, res.Diff)
		fmt.Fprintf(f.IO.ErrOut, "would update %s (dry run; nothing written)\n", res.Path)
	default:
		fmt.Fprint(f.IO.Out, res.Diff)
		fmt.Fprintf(f.IO.ErrOut, "updated %s\n", res.Path)
	}
	for _, n := range res.Notes {
		fmt.Fprintln(f.IO.ErrOut, "Note: "+n)
	}
}
