package hook

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ccc-checkpoint/ccc/config"
)

// PrefsFile is the user's preferences file, shared with the CCC plugin.
const PrefsFile = config.PrefsFile

// Defaults of ccc's own hook preferences.
const (
	DefaultCheckpointTimeout  = 10 * time.Second
	DefaultSessionStartMaxAge = 24 * time.Hour
)

// MaxCheckpointTimeout caps hooks.checkpoint_timeout below the plugin's
// Stop and PreCompact timeouts (30s in plugin/hooks/hooks.json): Claude
// Code kills a hook that overruns its timeout, and a killed stop hook never
// prints its block, which ends CCC's loop.
const MaxCheckpointTimeout = 25 * time.Second

// Prefs are the keys of .ccc-preferences.yaml the hooks read: CCC's keys
// with CCC's defaults, and ccc's own hooks section.
type Prefs struct {
	// MaxTaskIterations, MaxGlobalIterations and DefaultMode override the
	// state's values when set (nil or "": the state decides).
	MaxTaskIterations   *int64
	MaxGlobalIterations *int64
	DefaultMode         string

	Replan     bool
	MaxReplans int64

	// The reason enrichments, in the order they are added.
	SubagentDiscipline      bool
	SearchBeforeBuild       bool
	AgentsFile              bool
	AlwaysRecommend         bool
	PrioritizationFramework string
	AnalyzeBeforeExecute    bool
	CostProfile             string
	// MaxBudgetUSD is kept as written: the reason quotes it.
	MaxBudgetUSD    string
	Explanatory     string
	ExplanatoryScan string

	// CheckpointTimeout bounds a hook's checkpoint (hooks.checkpoint_timeout),
	// at most MaxCheckpointTimeout.
	CheckpointTimeout time.Duration
	// SessionStartMaxAge is the age under which a new session (source
	// startup) is given the last checkpoint (hooks.session_start_max_age).
	SessionStartMaxAge time.Duration
}

// DefaultPrefs are the preferences of a project without the file.
func DefaultPrefs() Prefs {
	return Prefs{
		Replan:                  true,
		MaxReplans:              2,
		SubagentDiscipline:      true,
		SearchBeforeBuild:       true,
		AgentsFile:              true,
		AlwaysRecommend:         true,
		PrioritizationFramework: "none",
		AnalyzeBeforeExecute:    true,
		CostProfile:             "budget",
		MaxBudgetUSD:            "10",
		Explanatory:             "balanced",
		CheckpointTimeout:       DefaultCheckpointTimeout,
		SessionStartMaxAge:      DefaultSessionStartMaxAge,
	}
}

// LoadPrefs reads root's preferences over the defaults. A missing file gives
// the defaults; a file that does not parse gives the defaults and an error
// for the caller to report, and so does a checkpoint_timeout over
// MaxCheckpointTimeout, which is capped, and the retired hooks.effort_env
// turned on (it changes nothing).
func LoadPrefs(root string) (Prefs, error) {
	p := DefaultPrefs()
	doc, path, err := config.ReadPrefsFile(root)
	if err != nil {
		return p, fmt.Errorf("%w; using the defaults", err)
	}
	top := resolve(doc)
	if top == nil || top.Kind == 0 || (top.Kind == yaml.ScalarNode && top.ShortTag() == "!!null") {
		return p, nil // nothing but comments
	}
	if top.Kind != yaml.MappingNode {
		return p, fmt.Errorf("preferences: %s: not a mapping; using the defaults", path)
	}
	get := func(keys ...string) *yaml.Node { return lookup(top, keys...) }

	p.MaxTaskIterations = intOverride(get("execution", "max_task_iterations"))
	p.MaxGlobalIterations = intOverride(get("execution", "max_global_iterations"))
	setString(&p.DefaultMode, get("execution", "default_mode"))

	setBool(&p.Replan, get("replan", "enabled"))
	if v := intOverride(get("replan", "max_replans_per_session")); v != nil {
		p.MaxReplans = *v
	}

	setBool(&p.SubagentDiscipline, get("prompts", "subagent_discipline"))
	setBool(&p.SearchBeforeBuild, get("prompts", "search_before_build"))
	setBool(&p.AgentsFile, get("prompts", "agents_file"))
	setBool(&p.AlwaysRecommend, get("planning", "always_recommend"))
	setString(&p.PrioritizationFramework, get("planning", "prioritization_framework"))
	setBool(&p.AnalyzeBeforeExecute, get("eval", "analyze_before_execute"))
	setString(&p.CostProfile, get("eval", "cost_profile"))
	setString(&p.MaxBudgetUSD, get("eval", "max_budget_usd"))
	setString(&p.Explanatory, get("style", "explanatory"))
	setString(&p.ExplanatoryScan, get("style", "explanatory_by_role", "scan"))

	setDuration(&p.CheckpointTimeout, get("hooks", "checkpoint_timeout"))
	setDuration(&p.SessionStartMaxAge, get("hooks", "session_start_max_age"))
	var notes []error
	// hooks.effort_env is accepted and does nothing: the env it added to a
	// block is a key Claude Code's hook output does not have. Only a file
	// that turns it on, expecting an effect, hears about it.
	effortEnv := false
	if setBool(&effortEnv, get("hooks", "effort_env")); effortEnv {
		notes = append(notes, errors.New("preferences: hooks.effort_env is no longer supported (Claude Code ignores an env key in hook output); remove it"))
	}
	if p.CheckpointTimeout > MaxCheckpointTimeout {
		asked := p.CheckpointTimeout
		p.CheckpointTimeout = MaxCheckpointTimeout
		notes = append(notes, fmt.Errorf("preferences: hooks.checkpoint_timeout %s is over the hooks' limit of %s (the plugin's Stop hook is killed at 30s); using %s",
			asked, MaxCheckpointTimeout, MaxCheckpointTimeout))
	}
	return p, errors.Join(notes...)
}

// resolve follows documents and aliases to the node that holds the value.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil {
		switch n.Kind {
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		case yaml.AliasNode:
			n = n.Alias
		default:
			return n
		}
	}
	return nil
}

// lookup walks nested mappings; nil when a key is missing or a level is not
// a mapping. A key written twice takes its last value, as yq reads it.
func lookup(n *yaml.Node, keys ...string) *yaml.Node {
	for _, key := range keys {
		n = resolve(n)
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var found *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := resolve(n.Content[i]); k != nil && k.Kind == yaml.ScalarNode && k.Value == key {
				found = n.Content[i+1]
			}
		}
		if found == nil {
			return nil
		}
		n = found
	}
	return resolve(n)
}

// scalar is a node's text, and false when the key counts as absent: missing,
// null, "" or not a scalar.
func scalar(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Value == "" || n.ShortTag() == "!!null" {
		return "", false
	}
	return n.Value, true
}

// setBool applies CCC's rule: a set boolean is on only when it is true.
func setBool(dst *bool, n *yaml.Node) {
	if n != nil && n.Kind != yaml.ScalarNode {
		*dst = false // set, and not true
		return
	}
	if v, ok := scalar(n); ok {
		*dst = v == "true"
	}
}

func setString(dst *string, n *yaml.Node) {
	if v, ok := scalar(n); ok {
		*dst = v
	}
}

// intOverride is a decimal integer value; anything else is ignored.
func intOverride(n *yaml.Node) *int64 {
	v, ok := scalar(n)
	if !ok {
		return nil
	}
	i, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return nil
	}
	return &i
}

// setDuration keeps the default for anything but a positive duration.
func setDuration(dst *time.Duration, n *yaml.Node) {
	v, ok := scalar(n)
	if d, err := config.ParseDuration(v); ok && err == nil && d > 0 {
		*dst = d
	}
}
