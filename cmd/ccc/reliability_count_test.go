//go:build !reliability

package main

// How many ccc processes the crash test kills in the default run, which CI
// runs on every change: `go test -tags reliability` kills far more.
const (
	crashKills       = 40
	crashKillsLinear = 20
)
