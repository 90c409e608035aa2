package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/sinks/linear/oauth"
)

// NewCmdRoot builds the whole command tree (help, completion, gen-docs).
func NewCmdRoot(f *Factory) *cobra.Command { return NewCmdRootFor(f, nil) }

// NewCmdRootFor builds the tree a command line needs: the root with the one
// top-level command its first word names, or alone for --version, else the
// whole tree (DESIGN.md, "The command tree").
func NewCmdRootFor(f *Factory, args []string) *cobra.Command {
	root, dir := NewCmdRootOnly(f)
	// ccc's top-level commands, in help's order: a command's names (its
	// name, then its aliases), known without building it, and its builder.
	top := []struct {
		names []string
		build func(f *Factory, dir *string) *cobra.Command
	}{
		{[]string{"checkpoint"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdCheckpoint(f, dir, nil) }},
		{[]string{"go"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdGo(f, dir, nil) }},
		{[]string{"validate"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdValidate(f, dir, nil) }},
		{[]string{"post"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdPost(f, dir, nil) }},
		{[]string{"sync"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdSync(f, dir, nil) }},
		{[]string{"doctor"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdDoctor(f, dir, nil) }},
		{[]string{"hook"}, NewCmdHook},
		{[]string{"init"}, NewCmdInit},
		{[]string{"status"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdStatus(f, dir, nil) }},
		{[]string{"heartbeat"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdHeartbeat(f, dir, nil) }},
		{[]string{"list", "history"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdList(f, dir, nil) }},
		{[]string{"show"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdShow(f, dir, nil) }},
		{[]string{"takeover"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdTakeover(f, dir, nil) }},
		{[]string{"cleanup"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdCleanup(f, dir, nil) }},
		{[]string{"import"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdImport(f, dir, nil) }},
		{[]string{"restore"}, func(f *Factory, dir *string) *cobra.Command { return NewCmdRestore(f, dir, nil) }},
		{[]string{"linear"}, func(f *Factory, _ *string) *cobra.Command { return NewCmdLinear(f, nil) }},
		{[]string{"environment"}, func(*Factory, *string) *cobra.Command { return NewCmdEnvironment() }},
	}
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-v") {
		// ccc --version: cobra prints the root's version before it looks
		// for a command or runs anything.
		root.Version = versionString(version, buildInfo())
		root.CompletionOptions.DisableDefaultCmd = true
		return root
	}
	for _, c := range top {
		if len(args) > 0 && slices.Contains(c.names, args[0]) {
			root.AddCommand(c.build(f, dir))
			// cobra would add its completion command and its four shells
			// at Execute; the first word is another command, so nothing
			// could run them. (Its help command is one value: left.)
			root.CompletionOptions.DisableDefaultCmd = true
			strictGroups(root)
			return root
		}
	}
	// What only the root's own help and --version show: only a whole tree
	// is asked for them.
	root.Long = `ccc keeps an AI coding session's progress in .ccc-progress.md, snapshots the
in-scope files into git, keeps one status comment on the tracking issue up to
date, and prints the continuation prompt the next session starts from.

Every duration flag (--timeout, --interval, ...) takes seconds (5), a Go
duration (90s, 1h30m) or days (7d), as .ccc-preferences.yaml does.

` + config.RootEnvironmentHelp() + `Credentials are never printed, logged, written to a file or sent to a
tracker in a body.` + exitStatusHelp(
		"0  success (each command's --help lists its own statuses)",
		"1  the command failed (checkpoint: nothing saved)",
		"2  usage error: an unknown command or flag, or a bad flag value",
		"3  checkpoint, post: a step or a tracker failed, the rest ran (checkpoint: the progress was saved)",
		"4  status: an agent is STALE",
		"75 sync: updates are still queued",
		"ccc hook ... always exits 0.")
	root.Example = `  ccc checkpoint --issue CIA-1 --current "write parser" --add-task "write tests"
  ccc checkpoint --done "write parser" --next "run the parser tests"
  ccc go
  ccc validate`
	root.Version = versionString(version, buildInfo())
	for _, c := range top {
		root.AddCommand(c.build(f, dir))
	}
	root.AddCommand(devCommands()...)
	documentGenerated(root)
	strictGroups(root)
	return root
}

// NewCmdRootOnly is the bare root (no sub-commands, long help or version).
func NewCmdRootOnly(f *Factory) (*cobra.Command, *string) {
	dir := new(string)
	cmd := &cobra.Command{
		Use:           "ccc <command>",
		Short:         "Keep an AI coding session's progress safe across context boundaries",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	// The secret files of the user's config directory are checked before
	// any command reads them, so that a refusal fails every command the
	// same way (and is one line from a hook), and a repaired mode is said
	// once per run rather than by each reader.
	cmd.PersistentPreRunE = func(*cobra.Command, []string) error { return checkPrivateFiles(f) }
	cmd.PersistentFlags().StringVar(dir, "dir", "", "project root (default: $CCC_PROJECT_ROOT, else the git top level, else the current directory)")
	cmd.SetVersionTemplate("ccc {{.Version}}\n")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)
	cmd.SetIn(f.IO.In)
	return cmd, dir
}

// strictGroups makes an unknown sub-command of a command group (ccc init
// foo, ccc linear foo) and an unknown help topic usage errors naming the
// choices; cobra checks only the root's. A group named alone still prints
// its help (and, runnable now, its usage line: Use names the argument).
// ccc hook is no group: an event it does not know is its own
// business (an older ccc under a newer plugin), and a hook never fails.
func strictGroups(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c == root || c.Runnable() || !c.HasAvailableSubCommands() {
			return
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return unknownSubcommand(cmd, args[0])
		}
	}
	walk(root)
	for _, c := range root.Commands() {
		if c.Name() != "help" {
			continue
		}
		c.Run = nil
		c.RunE = func(_ *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || target == nil {
				return &usageError{fmt.Errorf("unknown help topic %q; choose one of: %s", strings.Join(args, " "), strings.Join(subcommandNames(root), ", "))}
			}
			if len(rest) > 0 && target.HasAvailableSubCommands() {
				return unknownSubcommand(target, rest[0])
			}
			target.InitDefaultHelpFlag()
			target.InitDefaultVersionFlag()
			return target.Help()
		}
	}
}

func unknownSubcommand(c *cobra.Command, name string) error {
	return &usageError{fmt.Errorf("unknown command %q for %q; choose one of: %s", name, c.CommandPath(), strings.Join(subcommandNames(c), ", "))}
}

// subcommandNames are c's sub-commands a user may run, as its help lists them.
func subcommandNames(c *cobra.Command) []string {
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return names
}

// completionExamples load each shell's completion script in the current
// session, as cobra's own help for that shell says.
var completionExamples = map[string]string{
	"bash":       "source <(ccc completion bash)",
	"zsh":        "source <(ccc completion zsh)",
	"fish":       "ccc completion fish | source",
	"powershell": "ccc completion powershell | Out-String | Invoke-Expression",
}

// documentGenerated adds cobra's own commands (help, completion) now rather
// than when the command line runs, and gives them what every ccc command's
// help has: examples and EXIT STATUS.
func documentGenerated(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Long = `Print the help of a command: the same text as 'ccc COMMAND --help'.` + exitStatusHelp(
				"0  help printed",
				"2  usage error: an unknown command or help topic (the message lists the choices)")
			c.Example = "  ccc help checkpoint\n  ccc help hook stop"
		case "completion":
			c.Use = "completion <shell>"
			c.Long = strings.TrimSpace(c.Long) + exitStatusHelp(
				"0  this help was printed (a shell's sub-command prints its script)",
				"2  usage error")
			c.Example = "  source <(ccc completion bash)\n  ccc completion zsh > \"${fpath[1]}/_ccc\""
			for _, sh := range c.Commands() {
				sh.Long = strings.TrimSpace(sh.Long) + exitStatusHelp(
					"0  the script was printed on stdout",
					"1  it could not be written",
					"2  usage error")
				sh.Example = "  " + completionExamples[sh.Name()]
			}
		}
	}
}

// noArgs is cobra.NoArgs reporting a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if err := cobra.NoArgs(cmd, args); err != nil {
		return &usageError{err}
	}
	return nil
}

// isCobraUsage recognises the usage errors cobra reports itself.
func isCobraUsage(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown shorthand flag") ||
		strings.HasPrefix(msg, "unknown flag")
}

// durationVar defines a duration flag that takes what every duration of
// .ccc-preferences.yaml takes: seconds (5), a Go duration (90s) or days (7d).
func durationVar(fl *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fl.Var((*config.Duration)(p), name, usage)
}

// exitStatusHelp ends a command's long help.
func exitStatusHelp(lines ...string) string {
	return "\n\nEXIT STATUS\n  " + strings.Join(lines, "\n  ")
}

// checkPrivateFiles checks the signing key and the Linear token store
// (config.CheckPrivateFiles) and says each repaired mode on stderr.
func checkPrivateFiles(f *Factory) error {
	dir, err := f.settings().ConfigDir()
	if err != nil {
		return nil // no config directory: nothing stored to check
	}
	notes, err := config.CheckPrivateFiles(dir, filepath.Join(dir, config.KeyName), oauth.StorePath(dir))
	for _, n := range notes {
		fmt.Fprintln(f.IO.ErrOut, "Warning: "+n)
	}
	return err
}
