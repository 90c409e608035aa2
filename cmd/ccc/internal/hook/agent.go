package hook

import (
	"os"
	"path/filepath"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/all"
	"github.com/ccc-checkpoint/ccc/config"
)

// Input is the part of a hook's stdin that ccc reads (agent.Input).
type Input = agent.Input

// ParseAgent reads --agent; "" (nil) means detect it from the input.
func ParseAgent(s string) (agent.Agent, error) { return all.Lookup(s) }

// DetectAgent tells which agent sent a hook's input (all.Detect).
func DetectAgent(stdin []byte) agent.Agent { return all.Detect(stdin) }

// Event is the ccc hook that plays an agent's event: Gemini's AfterAgent
// is the stop hook, PreCompress is pre-compact; "" when ccc has none.
func Event(native string) string { return all.Event(native) }

// agentOf is the input's agent; an Input built without one (a library
// caller, a test) is the default agent's.
func agentOf(in Input) agent.Agent {
	if in.Agent == nil {
		return all.Default
	}
	return in.Agent
}

// AgentDir is the directory a hook's agent works in, when no root was named
// on purpose (dir, the --dir flag, and $CCC_PROJECT_ROOT win: they are the
// only way to name a project below the git top level): the cwd of the stdin
// (where the session works now), else $CLAUDE_PROJECT_DIR (where it
// started), the first that is an existing absolute directory. An unset or
// relative one is skipped without a look. ok is false when there is none:
// the process's own directory is the caller's.
func AgentDir(dir string, env config.Env, cwd string) (string, bool) {
	if dir != "" || env.ProjectRoot != "" {
		return "", false
	}
	for _, d := range []string{cwd, env.Claude.ProjectDir} {
		if !filepath.IsAbs(d) {
			continue
		}
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d, true
		}
	}
	return "", false
}
