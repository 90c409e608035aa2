package main

import (
	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/codex"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/gemini"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/install"
)

// initAgent is `ccc init <agent>` for an agent other than Claude Code: its
// installer (root, dry run) and its help.
type initAgent struct {
	name, short, long, file string
	install                 func(string, bool) (install.Result, error)
}

// initAgents are the agents other than Claude Code that `ccc init` knows,
// in the order its help lists them.
func initAgents() []initAgent {
	return []initAgent{
		{
			name:    "codex",
			file:    ".codex/hooks.json",
			short:   "Write ccc's Codex CLI hooks into .codex/hooks.json",
			install: codex.Install,
			long: `Add ccc's hooks to the project's .codex/hooks.json, the project layer Codex
CLI reads beside .codex/config.toml: SessionStart (startup|resume|compact),
PreCompact, Stop and SessionEnd, each running ccc hook --agent codex. Codex has no hook
event for its plan tool, so the task list is read from its rollout log at
these events. Every other hook of the user's stays. A file that is not a
JSON object is reported and left alone.

Codex runs a project's hooks only in a trusted project and only after you
trust them in /hooks (it keeps their hash in ~/.codex/config.toml, which
ccc never writes); after a change to the file it asks again.`,
		},
		{
			name:    "gemini",
			file:    ".gemini/settings.json",
			short:   "Write ccc's Gemini CLI hooks into .gemini/settings.json",
			install: gemini.Install,
			long: `Add ccc's hooks to the project's .gemini/settings.json: SessionStart,
AfterTool on write_todos (captures the task list as it changes), PreCompress,
AfterAgent and SessionEnd, each running ccc hook --agent gemini. Every other setting
and hook of the user's stays. A settings file with comments (Gemini CLI
allows them) or one that is not a JSON object is reported and left alone:
add the hooks by hand (docs/other-agents.md lists them).

Gemini CLI runs project hooks only in a trusted folder (/permissions).`,
		},
	}
}

func newCmdInitAgent(f *Factory, dir *string, a initAgent) *cobra.Command {
	opts := &InitOptions{}
	return initFlags(&cobra.Command{
		Use:   a.name,
		Short: a.short,
		Long: a.long + exitStatusHelp(
			"0  written, or nothing to change (or, with --dry-run, shown)",
			"1  "+a.file+" cannot be read as JSON, or cannot be written",
			"2  usage error"),
		Example: "  ccc init " + a.name + " --dry-run\n  ccc init " + a.name + "\n  ccc init " + a.name + " --remove",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Dir = *dir
			root, err := f.root(cmd.Context(), opts.Dir)
			if err != nil {
				return err
			}
			if opts.Remove {
				return removeHooks(f, root, a.name, opts.DryRun)
			}
			res, err := a.install(root, opts.DryRun)
			if err != nil {
				return err
			}
			printInstall(f, res, opts.DryRun)
			return nil
		},
	}, opts)
}
