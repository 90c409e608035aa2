package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// BenchmarkNewCmdRoot is what building the whole command tree costs every
// process, whichever command it runs (issue 26 asked whether building only
// the invoked command's subtree is measurably cheaper: BENCHMARKS.md).
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
