// Package all lists every sink ccc ships, in one place.
package all

import (
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/file"
	"github.com/ccc-checkpoint/ccc/sinks/github"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
)

// Registry returns the registry of every sink ccc ships.
func Registry() *sinks.Registry {
	r := &sinks.Registry{}
	r.Register(sinks.Factory{Name: "linear", New: func(env sinks.Env) sinks.Sink {
		cfg := linear.ConfigFromEnv(env.Getenv)
		cfg.StoredToken = linear.StoredTokenFromEnv(env.Getenv)
		if env.HTTPClient != nil {
			cfg.HTTPClient = env.HTTPClient
		}
		cfg.MaxBody = env.MaxBody
		return linear.New(cfg)
	}})
	r.Register(sinks.Factory{Name: "github", New: func(env sinks.Env) sinks.Sink {
		cfg := github.ConfigFromEnv(env.Getenv)
		if env.HTTPClient != nil {
			cfg.HTTPClient = env.HTTPClient
		}
		cfg.Version = env.Version
		if env.MaxBody > 0 {
			// GitHub refuses longer bodies.
			cfg.MaxBody = min(env.MaxBody, github.DefaultMaxBody)
		}
		return github.New(cfg)
	}})
	r.Register(sinks.Factory{Name: file.Name, New: func(env sinks.Env) sinks.Sink {
		return file.New(file.Config{Root: env.Root})
	}})
	return r
}
