package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/all"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/install"
)

// InitOptions is `ccc init <agent>` as parsed.
type InitOptions struct {
	Dir    string
	DryRun bool
	// Remove takes ccc's hooks out instead of adding them.
	Remove bool
	// Options are the agent's own switches (agent.OptionsInstaller), by
	// name.
	Options map[string]*bool
}

// NewCmdInit builds `ccc init`, which wires ccc's hooks into an agent's
// project configuration: `ccc init <name>` for each agent of the registry
// that installs hooks, its help and options its own.
func NewCmdInit(f *Factory, dir *string) *cobra.Command {
	var (
		names, examples []string
		subs            []*cobra.Command
	)
	for _, n := range all.Names() {
		a, _ := all.Lookup(n)
		inst, ok := a.(agent.HookInstaller)
		if !ok {
			continue
		}
		names = append(names, n)
		if a == all.Default {
			examples = append(examples, "  ccc init "+n+" --dry-run")
		}
		examples = append(examples, "  ccc init "+n)
		subs = append(subs, newCmdInitAgent(f, dir, n, inst))
	}
	cmd := &cobra.Command{
		Use:   "init <agent>",
		Short: "Write ccc's hooks into the project's configuration for an agent",
		Long: `Write the hook configuration that lets an agent run ccc by itself (capture
its task list, checkpoint at its boundaries, re-inject the continuation
prompt) into the project. It is idempotent, prints what it changes as a
diff, and never changes or removes the user's own hooks. --remove takes
exactly ccc's hooks out again (the same diff, --dry-run too).` + exitStatusHelp(
			"0  help printed (name an agent: ccc init "+orList(names)+")",
			"2  usage error: an unknown agent"),
		Example: strings.Join(examples, "\n"),
	}
	cmd.AddCommand(subs...)
	cmd.AddCommand(NewCmdInitHandoff(f, dir, nil))
	return cmd
}

// newCmdInitAgent is `ccc init <name>`: the agent's installer and help,
// the flags every init takes and the agent's own.
func newCmdInitAgent(f *Factory, dir *string, name string, inst agent.HookInstaller) *cobra.Command {
	opts := &InitOptions{Options: map[string]*bool{}}
	help := inst.InitHelp()
	cmd := &cobra.Command{
		Use:   name,
		Short: help.Short,
		Long: help.Long + exitStatusHelp(
			"0  written, or nothing to change (or, with --dry-run, shown)",
			"1  "+help.Unreadable+" cannot be read as JSON, or cannot be written",
			"2  usage error"),
		Example: help.Example,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Dir = *dir
			root, err := f.root(cmd.Context(), opts.Dir)
			if err != nil {
				return err
			}
			if opts.Remove {
				return removeHooks(f, root, inst, opts.DryRun)
			}
			res, err := installHooks(inst, root, opts)
			if err != nil {
				return err
			}
			printInstall(f, res, opts.DryRun)
			return nil
		},
	}
	initFlags(cmd, opts)
	if o, ok := inst.(agent.OptionsInstaller); ok {
		for _, opt := range o.InstallOptions() {
			opts.Options[opt.Name] = cmd.Flags().Bool(opt.Name, false, opt.Usage)
		}
	}
	return cmd
}

// installHooks runs the agent's installer, with its own options when it
// has any.
func installHooks(inst agent.HookInstaller, root string, opts *InitOptions) (install.Result, error) {
	o, ok := inst.(agent.OptionsInstaller)
	if !ok {
		return inst.InstallHooks(root, opts.DryRun)
	}
	on := map[string]bool{}
	for name, v := range opts.Options {
		on[name] = *v
	}
	return o.InstallWith(root, opts.DryRun, on)
}

// orList is "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// initFlags adds the flags every agent's init takes.
func initFlags(cmd *cobra.Command, opts *InitOptions) *cobra.Command {
	cmd.Flags().BoolVarP(&opts.DryRun, "dry-run", "n", false, "print the change; write nothing")
	cmd.Flags().BoolVar(&opts.Remove, "remove", false, "take ccc's hooks out instead (every other hook stays)")
	return cmd
}

// removeHooks is `ccc init <agent> --remove`: the agent's installer takes
// ccc's hooks out of the project's configuration.
func removeHooks(f *Factory, root string, inst agent.HookInstaller, dryRun bool) error {
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
