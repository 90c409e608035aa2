package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/machines"
	"github.com/ccc-checkpoint/ccc/config"
)

// self is this machine for the checkpoint branch (machines.Identify); a
// warning without the user key.
func (f *Factory) self() machines.Self {
	key, err := config.UserKey(f.env())
	return machines.IdentifyOrWarn(f.IO.ErrOut, key, err)
}

// takeoverRemote is `ccc takeover` of an agent only the checkpoint branch
// holds (machines.Takeover).
func takeoverRemote(ctx context.Context, f *Factory, root string, opts *TakeoverOptions) error {
	agent, machine := machines.ParseFrom(opts.Agent)
	key, _ := config.UserKey(f.env())
	res, warnings, err := machines.Takeover(ctx, root, f.handoffRemote(root, ""), agent, machine, opts.As, f.self(), key, f.Now())
	return machines.ShowTakeover(f.IO.Out, f.IO.ErrOut, res, warnings, err, opts.JSON, f.Now())
}

// goFromRun is `ccc go --from`: restore another machine's agent here
// (machines.Resume) and print its prompt.
func goFromRun(ctx context.Context, f *Factory, opts *GoOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	agent, machine := machines.ParseFrom(opts.From)
	res, warnings, err := machines.Resume(ctx, root, f.handoffRemote(root, opts.Remote), agent, machine, opts.Force, f.self(), f.Now())
	if err != nil {
		for _, w := range warnings {
			fmt.Fprintln(f.IO.ErrOut, "Warning: "+w)
		}
		return &exitError{code: ExitFailed, err: fmt.Errorf("go --from: %w", err)}
	}
	if err := machines.ShowResumed(f.IO.Out, f.IO.ErrOut, res, warnings, opts.JSON, f.Now()); errors.Is(err, machines.ErrNotRestored) {
		return &exitError{code: ExitFailed, err: err}
	} else if err != nil {
		return err
	}
	return nil
}

// listAllRun is `ccc list --all` (machines.History).
func listAllRun(ctx context.Context, f *Factory, opts *ListOptions) error {
	root, err := f.root(ctx, opts.Dir)
	if err != nil {
		return err
	}
	l, err := machines.History(ctx, root, f.handoffRemote(root, opts.Remote), opts.Agent, f.self())
	if err != nil {
		return err
	}
	return machines.ShowHistory(f.IO.Out, f.IO.ErrOut, l, opts.JSON)
}

// handoffRemote is the remote the branch commands fetch from: the flag,
// else the handoff remote, else origin.
func (f *Factory) handoffRemote(root, flag string) string {
	return cmp.Or(flag, f.settings().Project(root).HandoffRemote, "origin")
}
