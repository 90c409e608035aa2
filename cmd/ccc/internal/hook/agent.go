package hook

import (
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/all"
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
