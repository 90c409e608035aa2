//go:build reliability

package main

// How many ccc processes the crash test kills with -tags reliability.
const (
	crashKills       = 200
	crashKillsLinear = 100
)
