package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/all"
)

// checkHooks says how each agent's ccc hooks stand in the project: only
// for an agent whose configuration file the project has (an agent the user
// does not use is not mentioned), and never a failure: a missing or stale
// hook costs captures, not data.
func checkHooks(_ context.Context, e *Env) []Result {
	root := e.Root
	var out []Result
	for _, a := range all.Agents() {
		inst, ok := a.(agent.HookInstaller)
		if !ok {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, inst.ConfigFile())); err != nil {
			continue
		}
		name := "hooks (" + a.Name() + ")"
		c, err := inst.CheckHooks(root)
		if err != nil {
			out = append(out, Result{Name: name, Status: Warn, Message: err.Error(), Hint: "fix the file, then run ccc init " + a.Name()})
			continue
		}
		var problems []string
		if len(c.Missing) > 0 {
			problems = append(problems, "missing: "+strings.Join(c.Missing, ", "))
		}
		if len(c.Stale) > 0 {
			problems = append(problems, "stale: "+strings.Join(c.Stale, "; "))
		}
		if len(problems) == 0 {
			out = append(out, Result{Name: name, Status: OK, Message: fmt.Sprintf("%d hooks in %s", len(c.Installed), inst.ConfigFile())})
			continue
		}
		hint := "run ccc init " + a.Name()
		if len(c.Stale) > 0 {
			hint = "run ccc init " + a.Name() + " --remove, then ccc init " + a.Name()
		}
		if len(c.Installed) == 0 && len(c.Stale) == 0 {
			hint += " (not needed if a plugin wires ccc's hooks)"
		}
		out = append(out, Result{Name: name, Status: Warn, Message: inst.ConfigFile() + ": " + strings.Join(problems, "; "), Hint: hint})
	}
	return out
}
