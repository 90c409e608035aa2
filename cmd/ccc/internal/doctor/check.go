package doctor

import (
	"fmt"
	"io"

	"github.com/ccc-checkpoint/ccc/internal/ui"
)

// Check is one line of the doctor's findings.
type Check struct {
	Name    string `json:"name"`
	Status  string `json:"status"` // ok, warn, fail
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	Path    string `json:"path,omitempty"` // the file or folder checked, relative to the root when inside it
}

// Print writes the checks to w, as JSON or one line each (✓ ! X, with the
// hint of a line that is not ok), and reports whether one failed.
func Print(w io.Writer, asJSON bool, checks []Check) (failed bool, err error) {
	for _, c := range checks {
		failed = failed || c.Status == "fail"
	}
	if asJSON {
		return failed, ui.JSON(w, struct {
			OK     bool    `json:"ok"`
			Checks []Check `json:"checks"`
		}{!failed, checks})
	}
	marks := map[string]string{"ok": "✓", "warn": "!", "fail": "X"}
	for _, c := range checks {
		fmt.Fprintf(w, "%s %s: %s\n", marks[c.Status], c.Name, c.Message)
		if c.Hint != "" && c.Status != "ok" {
			fmt.Fprintf(w, "    hint: %s\n", c.Hint)
		}
	}
	return failed, nil
}
