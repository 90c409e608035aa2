package sinks

import (
	"fmt"
	"net/http"
	"strings"
)

// Env is what a sink constructor may use: the environment (credentials come
// only from there), an HTTP client, ccc's version for User-Agent, the
// project root that file paths are relative to, and the body limit the
// user set for this sink (0: the sink's own default; a sink never sends
// more than its tracker accepts).
type Env struct {
	Getenv     func(string) string
	HTTPClient *http.Client
	Version    string
	Root       string
	MaxBody    int
}

// Factory builds one kind of sink.
type Factory struct {
	Name string
	New  func(Env) Sink
}

// Registry is the explicit list of sinks ccc knows.
type Registry struct {
	factories []Factory
}

// Register adds a sink kind. Registering a name twice is a programming
// error and panics.
func (r *Registry) Register(f Factory) {
	for _, g := range r.factories {
		if g.Name == f.Name {
			panic(fmt.Sprintf("sinks: %q registered twice", f.Name))
		}
	}
	r.factories = append(r.factories, f)
}

// Names lists the registered sinks in registration order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.factories))
	for i, f := range r.factories {
		names[i] = f.Name
	}
	return names
}

// New builds the named sink.
func (r *Registry) New(name string, env Env) (Sink, error) {
	for _, f := range r.factories {
		if f.Name == name {
			return f.New(env), nil
		}
	}
	return nil, fmt.Errorf("unknown sink %q (known: %s)", name, strings.Join(r.Names(), ", "))
}
