package main

import (
	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/machines"
	"github.com/ccc-checkpoint/ccc/state/handoff"
)

// InitHandoffOptions is `ccc init handoff` as parsed.
type InitHandoffOptions struct {
	Dir string
	// Yes adds the key without asking (no terminal: nothing is added
	// without it).
	Yes bool
	// PrePush installs a pre-push hook that runs ccc sync.
	PrePush bool
}

// NewCmdInitHandoff builds `ccc init handoff`: trust this machine's
// checkpoints on the branch.
func NewCmdInitHandoff(f *Factory, dir *string, runF func(*InitHandoffOptions) error) *cobra.Command {
	opts := &InitHandoffOptions{}
	cmd := &cobra.Command{
		Use:   "handoff",
		Short: "Share checkpoints across machines: trust this machine's key in .ccc-signers",
		Long: `The checkpoint branch (` + handoff.Ref + `) carries every agent's
checkpoints to the other clones of the repository: turn it on with the
preference handoff: {remote: origin} (yours or the repository's) or
CCC_HANDOFF_REMOTE=origin, publish with ccc sync, look with ccc status
--all, resume with ccc go --from.

Each entry is signed with a key derived from your own ccc key. Other clones
believe an entry only when its key is listed in .ccc-signers, a file you
commit. This command prints this machine's line and, when you agree (a
question on a terminal, or --yes), adds it to .ccc-signers; commit the file
so the other machines trust this one. Nothing is added silently.

--pre-push also installs a git pre-push hook (where git looks for hooks:
core.hooksPath is honoured) that runs ccc sync after every git push's own
checks, so the branch travels with your pushes. A pre-push hook already
there is kept as pre-push.before-ccc and runs first; its verdict is the
push's. ccc sync's never is.` + exitStatusHelp(
			"0  the key is listed (added, or already there), or printed without --yes",
			"1  .ccc-signers cannot be read or written, or there is no signing key",
			"2  usage error"),
		Example: `  ccc init handoff
  ccc init handoff --yes && git add .ccc-signers
  ccc init handoff --yes --pre-push`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Dir = *dir
			if runF != nil {
				return runF(opts)
			}
			return initHandoffRun(cmd, f, opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "add the key to .ccc-signers without asking")
	cmd.Flags().BoolVar(&opts.PrePush, "pre-push", false, "also install a git pre-push hook that runs ccc sync (an existing hook is chained)")
	return cmd
}

func initHandoffRun(cmd *cobra.Command, f *Factory, opts *InitHandoffOptions) error {
	root, err := f.root(cmd.Context(), opts.Dir)
	if err != nil {
		return err
	}
	on := f.settings().Project(root).HandoffRemote != ""
	if err := machines.Init(f.IO.In, f.IO.InTTY, f.IO.Out, f.IO.ErrOut, root, f.self(), opts.Yes, on); err != nil || !opts.PrePush {
		return err
	}
	return machines.SayPrePush(cmd.Context(), f.IO.ErrOut, root)
}
