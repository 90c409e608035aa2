package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/state/records"
)

// IOStreams carries the standard streams and whether they are terminals.
// The product goes to Out; status lines, progress and warnings to ErrOut.
type IOStreams struct {
	In          io.Reader
	Out, ErrOut io.Writer
	// ErrTTY enables colour on ErrOut (a terminal, and NO_COLOR unset).
	ErrTTY bool
	// InTTY says a person can answer questions on In.
	InTTY bool
	// OutTTY says Out is a terminal (tables redraw in place there).
	OutTTY bool
}

// Factory holds what commands need from the outside world, lazily, so flag
// parsing never does I/O and tests can swap any of it.
type Factory struct {
	IO IOStreams
	// Getenv is where the settings' environment is read from, once
	// (Factory.settings); nothing else reads it.
	Getenv     func(string) string
	Getwd      func() (string, error)
	Now        func() time.Time
	HTTPClient *http.Client

	// cfg is the settings, built from Getenv at the first use.
	cfg *config.Settings
}

// settings is the process's settings (config.Settings): the environment,
// read once through Getenv, and the user's preferences, read at most once.
func (f *Factory) settings() config.Settings {
	if f.cfg == nil {
		getenv := f.Getenv
		if getenv == nil {
			getenv = func(string) string { return "" }
		}
		s := config.NewSettings(config.ReadEnv(getenv))
		f.cfg = &s
	}
	return *f.cfg
}

// env is the settings' environment.
func (f *Factory) env() config.Env { return f.settings().Env }

func systemFactory() *Factory {
	f := &Factory{
		IO:         IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr},
		Getenv:     os.Getenv,
		Getwd:      os.Getwd,
		HTTPClient: http.DefaultClient,
	}
	f.IO.ErrTTY = isTerminal(os.Stderr) && !f.env().NoColor
	f.IO.InTTY = isTerminal(os.Stdin) && isTerminal(os.Stderr)
	f.IO.OutTTY = isTerminal(os.Stdout)
	f.Now = clock(f.env())
	return f
}

// clock is time.Now, unless CCC_NOW (RFC 3339) pins it: a testing aid that
// makes timestamps in files and reports reproducible.
func clock(env config.Env) func() time.Time {
	return func() time.Time {
		if v := env.Now; v != "" {
			if t, err := time.Parse(time.RFC3339, v); err == nil {
				return t
			}
		}
		return time.Now()
	}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// root resolves the project root for a command: --dir, $CCC_PROJECT_ROOT,
// the git top level, the current directory.
func (f *Factory) root(ctx context.Context, dir string) (string, error) {
	cwd, err := f.Getwd()
	if err != nil {
		return "", fmt.Errorf("current directory: %w", err)
	}
	return config.FindRoot(ctx, dir, f.env(), cwd)
}

// recordsDir resolves the project root and the repository's shared records
// directory, for the commands about agents.
func (f *Factory) recordsDir(ctx context.Context, dir string) (root, recs string, err error) {
	if root, err = f.root(ctx, dir); err != nil {
		return "", "", err
	}
	recs, err = records.Dir(ctx, root)
	return root, recs, err
}
