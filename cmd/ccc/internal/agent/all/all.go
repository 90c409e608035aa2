// Package all is the one explicit list of the agents ccc knows. Adding an
// agent is a package under cmd/ccc/internal/agent and one line here.
package all

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/claudecode"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/codex"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/gemini"
)

// Default is the agent a payload without another agent's sign is from.
var Default agent.Agent = claudecode.Agent{}

// agents is the list; its order breaks a tie in detection.
var agents = []agent.Agent{
	claudecode.Agent{}, // the default: it has no sign of its own to detect
	gemini.Agent{},     // before Codex: a payload with Gemini's timestamp and Codex's turn_id is Gemini's
	codex.Agent{},
}

// Agents are the known agents, in the order of the list.
func Agents() []agent.Agent { return append([]agent.Agent(nil), agents...) }

// Names are the agents' names, sorted.
func Names() []string {
	var out []string
	for _, a := range agents {
		out = append(out, a.Name())
	}
	sort.Strings(out)
	return out
}

// Lookup reads --agent: a known name in any case; "" is nil (detect it).
func Lookup(name string) (agent.Agent, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		return nil, nil
	}
	for _, a := range agents {
		if a.Name() == n {
			return a, nil
		}
	}
	names := Names()
	return nil, fmt.Errorf("unknown agent %q (%s or %s)", name, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// Detect tells which agent sent a hook's input: the one with the surest
// evidence, else Default. Input that is not a JSON object is Default's.
func Detect(stdin []byte) agent.Agent {
	var p agent.Payload
	if json.Unmarshal(bytes.TrimSpace(stdin), &p) != nil {
		return Default
	}
	return DetectPayload(p)
}

// DetectPayload is Detect on a decoded payload.
func DetectPayload(p agent.Payload) agent.Agent {
	best, sure := Default, agent.None
	for _, a := range agents {
		if e := a.Detect(p); e > sure {
			best, sure = a, e
		}
	}
	return best
}

// Event is the ccc hook that plays an agent's own event (Gemini's
// AfterAgent is the stop hook); "" when ccc has none.
func Event(native string) string {
	for _, a := range agents {
		if n, ok := a.(agent.EventNamer); ok {
			if ev := n.Events()[native]; ev != "" {
				return ev
			}
		}
	}
	return ""
}

// NativeEvents are every agent's own event names that play a ccc hook,
// sorted.
func NativeEvents() []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range agents {
		if n, ok := a.(agent.EventNamer); ok {
			for native := range n.Events() {
				if !seen[native] {
					seen[native] = true
					out = append(out, native)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
