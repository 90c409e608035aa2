package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "ccc <command>",
		Short: "Keep an AI coding session's progress safe across context boundaries",
		Long: `ccc keeps an AI coding session's progress in .ccc-progress.md, snapshots the
in-scope files into git, keeps one status comment on the tracking issue up to
date, and prints the continuation prompt the next session starts from.

ENVIRONMENT
  CCC_PROJECT_ROOT     project root when --dir is not given
  CCC_AGENT            this writer's name (default main, for ccc post the GitHub
                       Actions job id, else ci; --agent wins)
  CCC_SINKS            sinks to update, e.g. linear,github,file (--sinks wins)
  LINEAR_API_KEY       Linear personal key (sent as Authorization: <key>)
  LINEAR_OAUTH_TOKEN   Linear OAuth token (sent as Authorization: Bearer <token>)
  LINEAR_API_URL       Linear GraphQL endpoint (default https://api.linear.app/graphql)
  GITHUB_TOKEN         GitHub token (else GH_TOKEN)
  GITHUB_API_URL       GitHub REST base (default https://api.github.com)
  CCC_GITHUB_BOT_LOGIN who a GitHub App installation token writes as (my-app[bot])
  CCC_DEBUG            print step details to stderr
  NO_COLOR             no colour
Credentials are never printed, logged, written to a file or sent to a
tracker in a body.`,
		Example: `  ccc checkpoint --issue CIA-1 --current "write parser" --add-task "write tests"
  ccc checkpoint --done "write parser" --next "run the parser tests"
  ccc go
  ccc validate`,
		Version:       version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	cmd.PersistentFlags().StringVar(&dir, "dir", "", "project root (default: $CCC_PROJECT_ROOT, else the git top level, else the current directory)")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)
	cmd.SetIn(f.IO.In)

	cmd.AddCommand(
		NewCmdCheckpoint(f, &dir, nil),
		NewCmdGo(f, &dir, nil),
		NewCmdValidate(f, &dir, nil),
		NewCmdPost(f, &dir, nil),
		NewCmdSync(f, &dir, nil),
		NewCmdDoctor(f, &dir, nil),
		NewCmdHook(f, &dir),
		NewCmdStatus(f, &dir, nil),
		NewCmdHeartbeat(f, &dir, nil),
		NewCmdList(f, &dir, nil),
		NewCmdShow(f, &dir, nil),
		NewCmdTakeover(f, &dir, nil),
		NewCmdCleanup(f, &dir, nil),
		NewCmdImport(f, &dir, nil),
		NewCmdRestore(f, &dir, nil),
	)
	return cmd
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

// exitStatusHelp ends a command's long help.
func exitStatusHelp(lines ...string) string {
	return "\n\nEXIT STATUS\n  " + strings.Join(lines, "\n  ")
}
