package config

import (
	"errors"
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// Default agents thresholds (seed 003: 30 minutes warning, 60 minutes
// failure).
const (
	DefaultAgentWarnAfter  = 30 * time.Minute
	DefaultAgentStaleAfter = 60 * time.Minute
)

// AgentPrefs is the agents: section: the quiet times after which a
// supervisor sees an agent as WARNING and STALE.
type AgentPrefs struct {
	WarnAfter  Duration `yaml:"warn_after"`
	StaleAfter Duration `yaml:"stale_after"`
}

func defaultAgentPrefs() AgentPrefs {
	return AgentPrefs{WarnAfter: Duration(DefaultAgentWarnAfter), StaleAfter: Duration(DefaultAgentStaleAfter)}
}

// readAgentPrefs reads agents.warn_after and agents.stale_after over the
// defaults. A missing key gives the default; a bad value, or a stale_after
// not longer than warn_after, gives both defaults and an error naming the
// file and line.
func readAgentPrefs(doc *yaml.Node, path string) (AgentPrefs, error) {
	th := defaultAgentPrefs()
	var prefs struct {
		Agents struct {
			WarnAfter  yaml.Node `yaml:"warn_after"`
			StaleAfter yaml.Node `yaml:"stale_after"`
		} `yaml:"agents"`
	}
	if err := doc.Decode(&prefs); err != nil {
		return th, fmt.Errorf("preferences: %s: %w", path, err)
	}
	read := th
	for _, f := range []struct {
		key  string
		node *yaml.Node
		dst  *Duration
	}{
		{"agents.warn_after", &prefs.Agents.WarnAfter, &read.WarnAfter},
		{"agents.stale_after", &prefs.Agents.StaleAfter, &read.StaleAfter},
	} {
		if f.node.Kind == 0 {
			continue
		}
		d, err := ParseDuration(f.node.Value)
		if err == nil && d <= 0 {
			err = errors.New("must be longer than zero")
		}
		if err != nil || f.node.Kind != yaml.ScalarNode {
			return th, fmt.Errorf("preferences: %s:%d: %s: %q is not a duration (use e.g. 30m, 2h or 1d)", path, f.node.Line, f.key, f.node.Value)
		}
		*f.dst = Duration(d)
	}
	if read.StaleAfter <= read.WarnAfter {
		return th, fmt.Errorf("preferences: %s: agents.stale_after (%s) must be longer than agents.warn_after (%s)",
			path, time.Duration(read.StaleAfter), time.Duration(read.WarnAfter))
	}
	return read, nil
}
