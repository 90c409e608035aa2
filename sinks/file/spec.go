package file

import (
	"cmp"
	"strings"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// Spec registers the file sink: its target is the preferences'
// sinks.file.path, else DefaultPath, and must stay inside the project.
func Spec() sinks.Factory {
	return sinks.Factory{
		Name: Name,
		New: func(env sinks.Env) sinks.Sink {
			return New(Config{Root: env.Root})
		},
		Target: func(env sinks.ResolveEnv) (target, skip string) {
			target = cmp.Or(strings.TrimSpace(env.Prefs.Path), DefaultPath)
			if err := CheckTarget(env.Env.Root, target); err != nil {
				skip = err.Error()
			}
			return target, skip
		},
	}
}
