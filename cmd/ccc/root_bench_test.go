package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// BenchmarkNewCmdRoot is what building the whole command tree costs: every
// process paid it before NewCmdRootFor; now help, completion, gen-docs and
// lines that name no command do (BENCHMARKS.md, issue 26's third pass).
func BenchmarkNewCmdRoot(b *testing.B) {
	f := &Factory{
		IO:     IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard},
		Getenv: func(string) string { return "" },
		Getwd:  func() (string, error) { return b.TempDir(), nil },
		Now:    time.Now,
	}
	b.ReportAllocs()
	for b.Loop() {
		NewCmdRoot(f)
	}
}

// BenchmarkNewCmdRootFor is what building the tree a command line needs
// costs: the root with one top-level command, or alone for --version.
func BenchmarkNewCmdRootFor(b *testing.B) {
	f := &Factory{
		IO:     IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard},
		Getenv: func(string) string { return "" },
		Getwd:  func() (string, error) { return b.TempDir(), nil },
		Now:    time.Now,
	}
	for _, args := range [][]string{{"--version"}, {"hook", "stop"}, {"checkpoint"}} {
		b.Run(strings.Join(args, " "), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				NewCmdRootFor(f, args)
			}
		})
	}
}
