package doctor

import (
	"context"
	"fmt"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/machines"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/internal/ui"
	"github.com/ccc-checkpoint/ccc/state/handoff"
)

// checkHandoff: with the checkpoint branch on, the remote exists and
// answers, .ccc-signers reads, and whether this clone's branch is the
// remote's (its last push went through). Nothing when the branch is off.
func checkHandoff(ctx context.Context, e *Env) []Result {
	remote := e.Settings.Project(e.Root).HandoffRemote
	if remote == "" {
		return nil
	}
	var out []Result
	if _, err := machines.Trusted(e.Root, machines.Self{}); err != nil {
		out = append(out, at(Fail, handoff.SignersFile, err.Error(), "fix the line; until then its keys after it are not trusted"))
	}
	r, err := machines.Open(ctx, e.Root)
	if err != nil {
		return append(out, Result{Status: Fail, Message: err.Error(), Hint: "the checkpoint branch needs a git repository"})
	}
	if url, err := gitrepo.RemoteURL(ctx, r.Dir, remote); err != nil || url == "" {
		return append(out, Result{Status: Fail, Message: fmt.Sprintf("no git remote %q", remote),
			Hint: fmt.Sprintf("git remote add %s URL, or set handoff.remote / CCC_HANDOFF_REMOTE to an existing remote", remote)})
	}
	local, err := gitrepo.ReadRef(ctx, r.CommonDir, handoff.Ref)
	if err != nil {
		return append(out, Result{Status: Fail, Message: err.Error()})
	}
	if e.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.Timeout)
		defer cancel()
	}
	theirs, err := gitrepo.RemoteRef(ctx, r.Dir, remote, handoff.Ref)
	switch {
	case err != nil:
		out = append(out, Result{Status: Warn, Message: fmt.Sprintf("%s does not answer: %v", remote, err),
			Hint: "checkpoints stay on this clone's branch until ccc sync can push"})
	case local == "" && theirs == "":
		out = append(out, Result{Status: OK, Message: fmt.Sprintf("on (remote %s); no checkpoint on the branch yet", remote)})
	case local == theirs:
		out = append(out, Result{Status: OK, Message: fmt.Sprintf("on; %s has this clone's branch (%s): the last push went through", remote, ui.ShortSHA(local))})
	case local == "":
		out = append(out, Result{Status: OK, Message: fmt.Sprintf("on; %s has other machines' checkpoints, none of this clone's yet", remote)})
	default:
		out = append(out, Result{Status: Warn, Message: fmt.Sprintf("this clone's branch (%s) is not %s's (%s): checkpoints not published yet",
			ui.ShortSHA(local), remote, ui.Dash(ui.ShortSHA(theirs))), Hint: "run ccc sync"})
	}
	if local != "" {
		out = append(out, epochResult(ctx, r, local, e.Settings.Project(e.Root)))
	}
	return out
}

// epochResult says the epoch of this clone's branch, how long it is and
// the retention rule that rolls it (ccc sync).
func epochResult(ctx context.Context, r handoff.Repo, local string, p config.Project) Result {
	ep, err := handoff.ReadEpoch(ctx, r.Dir, local)
	if err != nil {
		return Result{Status: Warn, Message: err.Error()}
	}
	return Result{Status: OK, Message: fmt.Sprintf("epoch %d: %d commit(s) since %s; retention keeps %d commit(s) and %s (0: no limit), then ccc sync starts a new epoch",
		ep.N, ep.Commits, ep.Start.UTC().Format("2006-01-02 15:04"), p.HandoffKeep, ui.Age(p.HandoffKeepFor))}
}
