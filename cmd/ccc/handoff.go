package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/machines"
	"github.com/ccc-checkpoint/ccc/config"
)

// self is this machine for the checkpoint branch; without the user key it
// has no signer (its own entries are then unverified too), with a warning.
func (f *Factory) self() machines.Self {
	key, err := config.UserKey(f.env())
	if err == nil {
		var self machines.Self
		if self, err = machines.Identify(key); err == nil {
			return self
		}
	}
	fmt.Fprintf(f.IO.ErrOut, "Warning: %v: this machine's own entries count as unverified\n", err)
	return machines.Self{}
}

// absPath is path from the current directory.
func (f *Factory) absPath(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	if cwd, err := f.Getwd(); err == nil {
		return filepath.Join(cwd, path)
	}
	return path
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
