package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wholeTree is NewCmdRoot with NewCmdRootFor's signature: the tree every
// command line got before NewCmdRootFor, which the one-command trees are
// compared with.
func wholeTree(f *Factory, _ []string) *cobra.Command { return NewCmdRoot(f) }

func treeFactory(t *testing.T) *Factory {
	t.Helper()
	dir := t.TempDir()
	return &Factory{
		IO:     IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}},
		Getenv: func(string) string { return "" },
		Getwd:  func() (string, error) { return dir, nil },
		Now:    func() time.Time { return hookNow },
	}
}

// TestCommandTreeMatchesWholeTree: a command line whose first word names a
// top-level command (or an alias) builds the root with that command alone,
// and what cobra finds there is what it finds in the whole tree: the same
// commands below it, with the same names, help texts, flags (their own and
// the root's), and the same --help output, usage errors and exit statuses.
// Every top-level command of the whole tree but cobra's own (help,
// completion) and the development ones (gen-docs) is checked, by each of
// its names, so a command missing from the table fails too.
func TestCommandTreeMatchesWholeTree(t *testing.T) {
	t.Parallel()
	skip := map[string]bool{"help": true, "completion": true}
	for _, c := range devCommands() {
		skip[c.Name()] = true
	}
	checked := 0
	for _, top := range NewCmdRoot(treeFactory(t)).Commands() {
		if skip[top.Name()] {
			continue
		}
		checked++
		for _, word := range append([]string{top.Name()}, top.Aliases...) {
			t.Run(word, func(t *testing.T) {
				t.Parallel()
				one := NewCmdRootFor(treeFactory(t), []string{word})
				require.Len(t, one.Commands(), 1, "the one-command tree of %q", word)
				whole := NewCmdRoot(treeFactory(t))
				oneCmd, _, err := one.Find([]string{word})
				require.NoError(t, err)
				wholeCmd, _, err := whole.Find([]string{word})
				require.NoError(t, err)
				require.NotEqual(t, whole, wholeCmd)
				assert.Equal(t, describeTree(wholeCmd), describeTree(oneCmd))
				assert.Equal(t, describeFlags("root persistent", whole.PersistentFlags()), describeFlags("root persistent", one.PersistentFlags()))

				var lines [][]string
				for _, path := range commandPaths(wholeCmd) {
					path = append([]string{word}, path...)
					lines = append(lines, append(path, "--help"), append(path, "-h"))
				}
				lines = append(lines, []string{word, "--no-such-flag"}, []string{word, "--version"}, []string{word, "no-such-command", "--help"})
				if wholeCmd.HasAvailableSubCommands() {
					lines = append(lines, []string{word, "no-such-command"}, []string{word})
				}
				for _, args := range lines {
					wantCode, wantOut, wantErr := runWith(t, wholeTree, args)
					code, out, errs := runWith(t, NewCmdRootFor, args)
					assert.Equal(t, wantCode, code, "exit status of ccc %s", strings.Join(args, " "))
					assert.Equal(t, wantOut, out, "stdout of ccc %s", strings.Join(args, " "))
					assert.Equal(t, wantErr, errs, "stderr of ccc %s", strings.Join(args, " "))
				}
			})
		}
	}
	assert.GreaterOrEqual(t, checked, 18, "top-level commands checked")
}

// TestVersionMatchesWholeTree: ccc --version (and -v) builds the root
// alone, and prints what the whole tree prints.
func TestVersionMatchesWholeTree(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--version", "-v"} {
		assert.Empty(t, NewCmdRootFor(treeFactory(t), []string{flag}).Commands(), "the tree of ccc %s", flag)
		wantCode, wantOut, wantErr := runWith(t, wholeTree, []string{flag})
		code, out, errs := runWith(t, NewCmdRootFor, []string{flag})
		assert.Equal(t, 0, wantCode)
		assert.Contains(t, wantOut, "ccc ")
		assert.Equal(t, []any{wantCode, wantOut, wantErr}, []any{code, out, errs}, "ccc %s", flag)
	}
}

// TestWholeTreeWhenNeeded: every command line that does not start with a
// top-level command's name gets the whole tree.
func TestWholeTreeWhenNeeded(t *testing.T) {
	t.Parallel()
	want := len(NewCmdRoot(treeFactory(t)).Commands())
	for _, args := range [][]string{
		nil, {"--version", "--dir", "x"}, {"-v", "hook"}, {"--help"}, {"--dir", "hook", "stop"}, {"--dir=x", "hook", "stop"},
		{"help"}, {"help", "hook", "stop"}, {"completion", "bash"}, {cobra.ShellCompRequestCmd, "ch"},
		{"chekpoint"}, {"Hook", "stop"}, {"gen-docs"}, {""},
	} {
		got := NewCmdRootFor(treeFactory(t), args)
		assert.Len(t, got.Commands(), want, "ccc %q", args)
	}
}

// describeTree writes out everything of c and the commands below it that
// a command line or its help can show.
func describeTree(c *cobra.Command) string {
	var b strings.Builder
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		fmt.Fprintf(&b, "command %q use=%q aliases=%q hidden=%v deprecated=%q runnable=%v args=%v noflags=%v prerun=%v\nshort=%q\nlong=%q\nexample=%q\nusage:\n%s\n",
			c.CommandPath(), c.Use, c.Aliases, c.Hidden, c.Deprecated, c.Runnable(), c.Args != nil, c.DisableFlagParsing,
			c.PersistentPreRunE != nil || c.PersistentPreRun != nil, c.Short, c.Long, c.Example, c.UsageString())
		b.WriteString(describeFlags("local", c.LocalFlags()))
		b.WriteString(describeFlags("inherited", c.InheritedFlags()))
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(c)
	return b.String()
}

func describeFlags(kind string, fs *pflag.FlagSet) string {
	var b strings.Builder
	fs.VisitAll(func(fl *pflag.Flag) {
		fmt.Fprintf(&b, "%s flag --%s -%s type=%s default=%q noopt=%q hidden=%v deprecated=%q annotations=%v usage=%q\n",
			kind, fl.Name, fl.Shorthand, fl.Value.Type(), fl.DefValue, fl.NoOptDefVal, fl.Hidden, fl.Deprecated, fl.Annotations, fl.Usage)
	})
	return b.String()
}

// runWith runs one command line on the tree that tree builds.
func runWith(t *testing.T, tree func(*Factory, []string) *cobra.Command, args []string) (code int, stdout, stderr string) {
	t.Helper()
	f := treeFactory(t)
	var out, errs bytes.Buffer
	f.IO.Out, f.IO.ErrOut = &out, &errs
	code = runTree(args, f, tree)
	return code, out.String(), errs.String()
}
