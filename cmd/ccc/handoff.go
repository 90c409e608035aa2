package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/machines"
	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/ui"
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
	remote := cmp.Or(opts.Remote, f.settings().Project(root).HandoffRemote, "origin")
	agent, machine := machines.ParseFrom(opts.From)
	res, warnings, err := machines.Resume(ctx, root, remote, agent, machine, opts.Force, f.self(), f.Now())
	if !opts.JSON {
		for _, w := range warnings {
			fmt.Fprintln(f.IO.ErrOut, "Warning: "+w)
		}
	}
	if err != nil {
		return &exitError{code: ExitFailed, err: fmt.Errorf("go --from: %w", err)}
	}
	if opts.JSON {
		if err := ui.JSON(f.IO.Out, res); err != nil {
			return err
		}
	} else {
		machines.PrintResumed(f.IO.Out, f.IO.ErrOut, res, f.Now())
	}
	if res.Failed() {
		return &exitError{code: ExitFailed, err: errors.New("go --from: a file could not be restored")}
	}
	return nil
}
