package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
)

// helpFactory is a factory whose output a test reads.
func helpFactory() (*Factory, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &Factory{IO: IOStreams{Out: &out, ErrOut: &errOut}, Getenv: func(string) string { return "" }}, &out, &errOut
}

// commandPaths lists every command of the tree below root, hidden and
// cobra-generated ones (help, completion and its shells) included, as the
// words that run it.
func commandPaths(root *cobra.Command) [][]string {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(root, nil)
	return paths
}

// TestEveryCommandHelpHasExitStatusAndExample runs `--help` on every command
// a user can reach. cobra's hidden __complete command is not in the tree:
// cobra adds it only while a shell asks for completions, and `ccc __complete
// --help` completes flags instead of printing help.
func TestEveryCommandHelpHasExitStatusAndExample(t *testing.T) {
	t.Parallel()
	f, _, _ := helpFactory()
	paths := commandPaths(NewCmdRoot(f))
	var names []string
	for _, p := range paths {
		names = append(names, strings.Join(p, " "))
	}
	// The walk must see the generated commands, or it proves nothing about them.
	for _, want := range []string{"help", "completion", "completion bash", "completion zsh",
		"completion fish", "completion powershell", "hook stop", "checkpoint"} {
		require.Contains(t, names, want)
	}
	for _, path := range paths {
		t.Run("ccc "+strings.Join(path, " "), func(t *testing.T) {
			t.Parallel()
			f, out, errOut := helpFactory()
			code := run(append(append([]string(nil), path...), "--help"), f)
			require.Equal(t, 0, code, errOut.String())
			help := out.String()
			assert.Contains(t, help, "\nEXIT STATUS\n  0 ")
			if c, _, err := NewCmdRoot(f).Find(path); err == nil && c.IsAdditionalHelpTopicCommand() {
				return // a help topic (ccc help environment) is text only: cobra prints no usage or examples
			}
			_, examples, ok := strings.Cut(help, "\nExamples:\n")
			examples, _, _ = strings.Cut(examples, "\n\n")
			assert.True(t, ok, "no Examples section")
			assert.Regexp(t, `(?m)^  [^#\n]*\bccc\b`, examples, "an example is a command line")
			assert.NotRegexp(t, `(?i)\bseeds?\b`, help, "say what the behaviour is, not which protocol it came from")
		})
	}
}

// TestUsageErrorNamesTheCommandsHelp: a usage error points at the help of the
// command that was run, not the root's.
func TestUsageErrorNamesTheCommandsHelp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		wantErr  string
		wantHelp string
	}{
		{[]string{"checkpoint", "--bogus"}, "unknown flag: --bogus", "ccc checkpoint --help"},
		{[]string{"checkpoint", "extra"}, `unknown command "extra"`, "ccc checkpoint --help"},
		{[]string{"sync", "--timeout", "soon"}, `"soon" is not a duration`, "ccc sync --help"},
		{[]string{"cleanup", "--max-age", "7"}, "7d", "ccc cleanup --help"},
		{[]string{"completion", "bash", "extra"}, `unknown command "extra"`, "ccc completion bash --help"},
		{[]string{"bogus"}, `unknown command "bogus"`, "ccc --help"},
		{[]string{"--bogus"}, "unknown flag: --bogus", "ccc --help"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			f, out, errOut := helpFactory()
			assert.Equal(t, 2, run(tt.args, f))
			assert.Empty(t, out.String())
			lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
			require.Len(t, lines, 2, errOut.String())
			assert.Contains(t, lines[0], tt.wantErr)
			assert.Equal(t, "Run '"+tt.wantHelp+"' for usage.", lines[1])
		})
	}
}

// TestEveryDurationFlagTakesThePreferencesSyntax: a duration flag anywhere
// in the tree takes seconds, Go durations and days, as the preferences file
// does. cleanup's ages are strings on purpose: they refuse bare seconds
// (TestUsageErrorNamesTheCommandsHelp).
func TestEveryDurationFlagTakesThePreferencesSyntax(t *testing.T) {
	t.Parallel()
	f, _, _ := helpFactory()
	var seen []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if fl.Value.Type() != "duration" {
				return
			}
			name := c.CommandPath() + " --" + fl.Name
			seen = append(seen, name)
			d, ok := fl.Value.(*config.Duration)
			require.True(t, ok, "%s is not a config.Duration", name)
			for in, want := range map[string]time.Duration{"5": 5 * time.Second, "90s": 90 * time.Second, "1d": 24 * time.Hour} {
				require.NoError(t, fl.Value.Set(in), name)
				assert.Equal(t, want, time.Duration(*d), "%s %s", name, in)
			}
			assert.ErrorContains(t, fl.Value.Set("5x"), "write e.g. 45 for seconds", name)
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(f))
	assert.Subset(t, seen, []string{"ccc checkpoint --timeout", "ccc post --timeout", "ccc sync --timeout",
		"ccc sync --retry-every", "ccc sync --debounce", "ccc status --interval", "ccc doctor --timeout"})
}

// TestHookHelpStatesTheRootOrder: `ccc hook --help`, where a user setting up
// the hooks looks first, says how a hook finds its project, as each hook's
// own help does.
func TestHookHelpStatesTheRootOrder(t *testing.T) {
	t.Parallel()
	for _, path := range [][]string{{"hook"}, {"hook", "stop"}, {"hook", "session-start"}, {"hook", "pre-compact"}, {"hook", "session-end"}} {
		t.Run(strings.Join(path, " "), func(t *testing.T) {
			t.Parallel()
			f, out, errOut := helpFactory()
			require.Equal(t, 0, run(append(path, "--help"), f), errOut.String())
			assert.Contains(t, strings.Join(strings.Fields(out.String()), " "),
				`The project root is --dir, else $CCC_PROJECT_ROOT, else the git top level of Claude Code's directory (the "cwd" of the hook's stdin, else $CLAUDE_PROJECT_DIR, else the current directory)`)
		})
	}
}

// TestRootHelpSaysDoctorChecksLocalFiles: the command list says doctor
// checks the local files too, not only the network.
func TestRootHelpSaysDoctorChecksLocalFiles(t *testing.T) {
	t.Parallel()
	f, out, errOut := helpFactory()
	require.Equal(t, 0, run([]string{"--help"}, f), errOut.String())
	assert.Regexp(t, `(?m)^  doctor +Check the local files, configuration and tracker connectivity$`, out.String())
}
