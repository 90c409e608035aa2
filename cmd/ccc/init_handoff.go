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
so the other machines trust this one. Nothing is added silently.` + exitStatusHelp(
			"0  the key is listed (added, or already there), or printed without --yes",
			"1  .ccc-signers cannot be read or written, or there is no signing key",
			"2  usage error"),
		Example: `  ccc init handoff
  ccc init handoff --yes && git add .ccc-signers`,
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
	return cmd
}

func initHandoffRun(cmd *cobra.Command, f *Factory, opts *InitHandoffOptions) error {
	root, err := f.root(cmd.Context(), opts.Dir)
	if err != nil {
		return err
	}
	on := f.settings().Project(root).HandoffRemote != ""
	return machines.Init(f.IO.In, f.IO.InTTY, f.IO.Out, f.IO.ErrOut, root, f.self(), opts.Yes, on)
}
