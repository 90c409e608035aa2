// Package all lists every sink ccc ships, in one place.
package all

import (
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/file"
	"github.com/ccc-checkpoint/ccc/sinks/github"
	"github.com/ccc-checkpoint/ccc/sinks/gitlab"
	"github.com/ccc-checkpoint/ccc/sinks/jira"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
	"github.com/ccc-checkpoint/ccc/sinks/linearagent"
)

// Registry returns the registry of every sink ccc ships. The order is the
// order in which a checkpoint's report lists them.
func Registry() *sinks.Registry {
	r := &sinks.Registry{}
	// With an app token, the agent session replaces the comment when
	// nothing lists the sinks.
	lin := linear.Spec()
	auto := lin.Auto
	lin.Auto = func(env sinks.ResolveEnv) bool { return auto(env) && !linearagent.Available(env.Env) }
	r.Register(lin)
	r.Register(linearagent.Spec())
	r.Register(github.Spec())
	r.Register(jira.Spec())
	r.Register(gitlab.Spec())
	r.Register(file.Spec())
	return r
}
