// Package all lists every sink ccc ships, in one place.
package all

import (
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/file"
	"github.com/ccc-checkpoint/ccc/sinks/github"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
)

// Registry returns the registry of every sink ccc ships. The order is the
// order in which a checkpoint's report lists them.
func Registry() *sinks.Registry {
	r := &sinks.Registry{}
	r.Register(linear.Spec())
	r.Register(github.Spec())
	r.Register(file.Spec())
	return r
}
