package machines

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/handoff"
	"github.com/ccc-checkpoint/ccc/state/restore"
)

// PrintResumed says on errOut what `ccc go --from` restored, and puts the
// prompt on out; it reports whether a file could not be restored.
func PrintResumed(out, errOut io.Writer, res Resumed, now time.Time) (failed bool) {
	fmt.Fprintf(errOut, "Resuming %s@%s (%s), checkpoint %s, %s ago, %s.\n", res.Agent, res.Machine, res.Host,
		res.Checkpoint, ui.Age(max(now.Sub(res.Time), 0)), res.Trust)
	for _, r := range res.Restored {
		failed = failed || r.Action == restore.Failed
		line := fmt.Sprintf("%s: %s", filepath.Base(r.Path), r.Action)
		if r.Kept != "" {
			line += " (the previous one is in " + r.Kept + ")"
		}
		if r.Message != "" {
			line += ": " + r.Message
		}
		fmt.Fprintln(errOut, line)
	}
	fmt.Fprintln(out, res.Prompt)
	return failed
}

// Failed says whether a file of res could not be restored.
func (res Resumed) Failed() bool {
	for _, r := range res.Restored {
		if r.Action == restore.Failed {
			return true
		}
	}
	return false
}

// PrintReport writes `ccc status --all` as the table (or, markdown, the
// Markdown table) on out; with no agents, a line on errOut.
func PrintReport(out, errOut io.Writer, rep Report, markdown bool) error {
	var err error
	switch {
	case markdown:
		_, err = io.WriteString(out, Markdown(rep))
	case len(rep.Agents) == 0:
		fmt.Fprintf(errOut, "No agents on the checkpoint branch (%s, or %s's).\n", handoff.Ref, rep.Remote)
	default:
		_, err = io.WriteString(out, Table(rep))
	}
	return err
}

// Init is `ccc init handoff`: print this machine's signers line on out,
// and add it to root's signers file when yes, or when asked on a terminal
// (in, ask) the user agrees. on says whether the branch is on here.
func Init(in io.Reader, ask bool, out, errOut io.Writer, root string, self Self, yes, on bool) error {
	if self.Signer == nil {
		return fmt.Errorf("init handoff: no signing key")
	}
	fmt.Fprintln(out, handoff.SignersLine(self.Signer, self.Machine))
	if !yes && ask {
		fmt.Fprintf(errOut, "Add this machine (%s) to %s? [y/N] ", self.Machine, handoff.SignersFile)
		answer, _ := bufio.NewReader(in).ReadString('\n')
		yes = strings.HasPrefix(strings.ToLower(strings.TrimSpace(answer)), "y")
	}
	if !yes {
		fmt.Fprintf(errOut, "Not added: add the line above to %s (or run ccc init handoff --yes) and commit it.\n", handoff.SignersFile)
		return nil
	}
	_, added, err := AddSigner(root, self)
	if err != nil {
		return fmt.Errorf("init handoff: %w", err)
	}
	if added {
		fmt.Fprintf(errOut, "Added %s to %s: commit it so the other clones trust this machine.\n", self.Machine, handoff.SignersFile)
	} else {
		fmt.Fprintf(errOut, "%s already lists %s.\n", handoff.SignersFile, self.Machine)
	}
	if !on {
		fmt.Fprintln(errOut, "The branch is off here: set handoff: {remote: origin} in .ccc-preferences.yaml or your own preferences, or CCC_HANDOFF_REMOTE=origin.")
	}
	return nil
}
