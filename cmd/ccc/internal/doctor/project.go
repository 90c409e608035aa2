package doctor

import (
	"context"
	"fmt"

	"github.com/ccc-checkpoint/ccc/config"
)

const prefsHint = "fix it; meanwhile checkpoints use the defaults without the repository's git hooks"

func checkProject(_ context.Context, e *Env) []Result {
	if e.RootErr != nil {
		return one(Fail, e.RootErr.Error(), "pass --dir or run ccc inside the project")
	}
	return one(OK, e.Root, "")
}

func checkPrefs(_ context.Context, e *Env) []Result {
	if err := e.Settings.Project(e.Root).Problems.Commands; err != nil {
		return one(Fail, err.Error(), prefsHint)
	}
	return one(OK, "loaded", "")
}

func checkUserPrefs(_ context.Context, e *Env) []Result {
	if e.UserPrefs == nil {
		return nil
	}
	if err := e.UserPrefs(); err != nil {
		return one(Fail, err.Error(), prefsHint)
	}
	return nil
}

func checkSignIn(ctx context.Context, e *Env) []Result {
	if e.SignIn == nil {
		return nil
	}
	return e.SignIn(ctx)
}

func checkIssue(ctx context.Context, e *Env) []Result {
	issue, from := e.target(ctx)
	if issue == "" {
		return one(Warn, "no issue found", "pass --issue KEY-123, or set linearIssue in .ccc-state.json")
	}
	return one(OK, fmt.Sprintf("%s (from %s)", issue, from), "")
}

// checkSinks: the warnings of choosing the trackers, then each tracker's
// own lines (Tracker).
func checkSinks(ctx context.Context, e *Env) []Result {
	if e.Trackers == nil {
		return nil
	}
	trackers, warnings := e.Trackers(e.Root, e.Settings.Project(e.Root).Prefs)
	var out []Result
	for _, w := range warnings {
		out = append(out, Result{Status: Warn, Message: w})
	}
	if len(trackers) == 0 {
		out = append(out, Result{Status: Warn, Message: "no tracker configured",
			Hint: "set LINEAR_API_KEY, pass --github owner/repo#N, or list sinks in " + config.PrefsFile})
	}
	issue, _ := e.target(ctx)
	for _, tr := range trackers {
		out = append(out, Tracker(ctx, tr, issue, e.Timeout)...)
	}
	return out
}
