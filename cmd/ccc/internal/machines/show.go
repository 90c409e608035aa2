package machines

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/ui"
)

// warn prints each warning as one "Warning: " line on w.
func warn(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintln(w, "Warning: "+s)
	}
}

// ShowReport prints `ccc status --all`: JSON, the Markdown table (to the
// file output when it is not ""), or the table; the warnings on errOut
// except with JSON (which holds them).
func ShowReport(out, errOut io.Writer, rep Report, asJSON, markdown bool, output string) error {
	if asJSON {
		return ui.JSON(out, rep)
	}
	warn(errOut, rep.Warnings)
	if markdown && output != "" {
		return projectfs.WriteFileAtomic(output, []byte(Markdown(rep)), 0o644)
	}
	return PrintReport(out, errOut, rep, markdown)
}

// ErrNotRestored is a `ccc go --from` whose entry was found but a file of
// it could not be restored.
var ErrNotRestored = errors.New("go --from: a file could not be restored")

// ShowResumed prints `ccc go --from`'s outcome: JSON, or the lines on
// errOut and the prompt on out.
func ShowResumed(out, errOut io.Writer, res Resumed, warnings []string, asJSON bool, now time.Time) error {
	if asJSON {
		if err := ui.JSON(out, res); err != nil {
			return err
		}
	} else {
		warn(errOut, warnings)
		PrintResumed(out, errOut, res, now)
	}
	if res.Failed() {
		return ErrNotRestored
	}
	return nil
}

// ShowHistory prints `ccc list --all`: JSON, or the warnings and the table.
func ShowHistory(out, errOut io.Writer, l Listed, asJSON bool) error {
	if asJSON {
		return ui.JSON(out, l)
	}
	warn(errOut, l.Warnings)
	return PrintHistory(out, l)
}

// IdentifyOrWarn is Identify of the user key (key, err as config.UserKey
// returned them); without one, a warning on w and no signer (this
// machine's own entries then count as unverified too).
func IdentifyOrWarn(w io.Writer, key []byte, err error) Self {
	if err == nil {
		var self Self
		if self, err = Identify(key); err == nil {
			return self
		}
	}
	fmt.Fprintf(w, "Warning: %v: this machine's own entries count as unverified\n", err)
	return Self{}
}

// ShowTakeover prints a takeover across machines (Takeover's outcome, err
// its error): the restored files and the prompt, as `ccc go --from` does,
// then who now owns the work.
func ShowTakeover(out, errOut io.Writer, res Resumed, warnings []string, err error, asJSON bool, now time.Time) error {
	if err != nil {
		warn(errOut, warnings)
		return fmt.Errorf("takeover: %w", err)
	}
	if err := ShowResumed(out, errOut, res, warnings, asJSON, now); err != nil {
		return err
	}
	if !asJSON {
		fmt.Fprintf(errOut, "Took over %s@%s's work here; the branch says so once ccc sync pushes it.\n", res.Agent, res.Machine)
	}
	return nil
}
