// Package ui is how ccc presents things to a person or a program: aligned
// tables, colour, the live status line of a long-running command, and JSON
// output, each set up once for every command.
package ui

import (
	"encoding/json"
	"io"
)

// JSON writes v to w the one way every --json output is written: indented
// by two spaces, with <, > and & as they are (the output is read by
// programs and people, never embedded in HTML).
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
