//go:build !gendocs

package main

import "github.com/spf13/cobra"

// devCommands are the commands only a development build has; the shipped
// binary has none. `go run -tags gendocs ./cmd/ccc gen-docs` adds the
// reference generator (gendocs.go).
func devCommands() []*cobra.Command { return nil }
