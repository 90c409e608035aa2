// Package linearschema holds Linear's published GraphQL schema, vendored so
// that a plain clone validates every document ccc sends to Linear (the
// tests of sinks/linear, sinks/linearagent and the OAuth client) instead
// of skipping. Source: the project's shared/schemas/linear.graphql (Linear's
// public API schema as the project keeps it), copied 2026-11-28;
// TestVendoredCopyIsCurrent fails when shared/ holds another one.
package linearschema

import (
	_ "embed"
	"sync"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

//go:embed linear.graphql
var source string

var load = sync.OnceValues(func() (*ast.Schema, error) {
	s, err := gqlparser.LoadSchema(&ast.Source{Name: "linear.graphql", Input: source})
	if err != nil {
		return nil, err
	}
	return s, nil
})

// Load parses the schema once per test binary.
func Load() (*ast.Schema, error) { return load() }

// Source is the schema's text.
func Source() string { return source }
