package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Defaults of ccc's own hooks section.
const (
	DefaultHookTimeout        = 10 * time.Second
	DefaultSessionStartMaxAge = 24 * time.Hour
	// DefaultCaptureInterval is how often, at most, a change captured from
	// the agent's list between boundaries updates the tracker.
	DefaultCaptureInterval = 5 * time.Minute
)

// HookPrefs are the keys the hooks read: CCC's keys with CCC's defaults,
// and ccc's own hooks section. They are read as CCC's own hooks read them
// (readHookPrefs), never strictly: a value that cannot be used is the
// default, and says nothing.
type HookPrefs struct {
	Execution struct {
		// MaxTaskIterations, MaxGlobalIterations and DefaultMode override
		// the state's values when set (nil or "": the state decides).
		MaxTaskIterations   *int64 `yaml:"max_task_iterations"`
		MaxGlobalIterations *int64 `yaml:"max_global_iterations"`
		DefaultMode         string `yaml:"default_mode"`
	} `yaml:"execution"`
	Replan struct {
		Enabled              bool  `yaml:"enabled"`
		MaxReplansPerSession int64 `yaml:"max_replans_per_session"`
	} `yaml:"replan"`

	// The reason enrichments, in the order they are added.
	Prompts struct {
		SubagentDiscipline bool `yaml:"subagent_discipline"`
		SearchBeforeBuild  bool `yaml:"search_before_build"`
		AgentsFile         bool `yaml:"agents_file"`
	} `yaml:"prompts"`
	Planning struct {
		AlwaysRecommend         bool   `yaml:"always_recommend"`
		PrioritizationFramework string `yaml:"prioritization_framework"`
	} `yaml:"planning"`
	Eval struct {
		AnalyzeBeforeExecute bool   `yaml:"analyze_before_execute"`
		CostProfile          string `yaml:"cost_profile"`
		// MaxBudgetUSD is kept as written: the reason quotes it.
		MaxBudgetUSD string `yaml:"max_budget_usd"`
	} `yaml:"eval"`
	Style struct {
		Explanatory       string `yaml:"explanatory"`
		ExplanatoryByRole struct {
			Scan string `yaml:"scan"`
		} `yaml:"explanatory_by_role"`
	} `yaml:"style"`

	Hooks struct {
		// CheckpointTimeout bounds a hook's checkpoint, as written (the
		// hooks cap it).
		CheckpointTimeout Duration `yaml:"checkpoint_timeout"`
		// SessionStartMaxAge is the age under which a new session (source
		// startup) is given the last checkpoint.
		SessionStartMaxAge Duration `yaml:"session_start_max_age"`
		// CaptureInterval is the least time between two tracker updates
		// for list changes captured between boundaries (PostToolUse); 0
		// leaves them to the boundaries (stop, pre-compact, task
		// completed, session end).
		CaptureInterval Duration `yaml:"capture_interval"`
		// EffortEnv is retired: it is read only so that a file turning it
		// on hears so.
		EffortEnv bool `yaml:"effort_env"`
	} `yaml:"hooks"`
}

// defaultHookPrefs are the hooks' preferences of a project without the file.
func defaultHookPrefs() HookPrefs {
	var p HookPrefs
	p.Replan.Enabled = true
	p.Replan.MaxReplansPerSession = 2
	p.Prompts.SubagentDiscipline = true
	p.Prompts.SearchBeforeBuild = true
	p.Prompts.AgentsFile = true
	p.Planning.AlwaysRecommend = true
	p.Planning.PrioritizationFramework = "none"
	p.Eval.AnalyzeBeforeExecute = true
	p.Eval.CostProfile = "budget"
	p.Eval.MaxBudgetUSD = "10"
	p.Style.Explanatory = "balanced"
	p.Hooks.CheckpointTimeout = Duration(DefaultHookTimeout)
	p.Hooks.SessionStartMaxAge = Duration(DefaultSessionStartMaxAge)
	p.Hooks.CaptureInterval = Duration(DefaultCaptureInterval)
	return p
}

// readHookPrefs reads the hooks' keys of doc over the defaults, walking the
// nodes as yq does: absent, null and "" take the default; a boolean is on
// only when it is true; a value of the wrong kind is the default. Only a
// document that is not a mapping is an error (and the defaults).
func readHookPrefs(doc *yaml.Node, path string) (HookPrefs, error) {
	p := defaultHookPrefs()
	top := resolve(doc)
	if top == nil || top.Kind == 0 || (top.Kind == yaml.ScalarNode && top.ShortTag() == "!!null") {
		return p, nil // nothing but comments
	}
	if top.Kind != yaml.MappingNode {
		return p, fmt.Errorf("preferences: %s: not a mapping", path)
	}
	get := func(keys ...string) *yaml.Node { return lookup(top, keys...) }

	p.Execution.MaxTaskIterations = intOverride(get("execution", "max_task_iterations"))
	p.Execution.MaxGlobalIterations = intOverride(get("execution", "max_global_iterations"))
	setString(&p.Execution.DefaultMode, get("execution", "default_mode"))

	setBool(&p.Replan.Enabled, get("replan", "enabled"))
	if v := intOverride(get("replan", "max_replans_per_session")); v != nil {
		p.Replan.MaxReplansPerSession = *v
	}

	setBool(&p.Prompts.SubagentDiscipline, get("prompts", "subagent_discipline"))
	setBool(&p.Prompts.SearchBeforeBuild, get("prompts", "search_before_build"))
	setBool(&p.Prompts.AgentsFile, get("prompts", "agents_file"))
	setBool(&p.Planning.AlwaysRecommend, get("planning", "always_recommend"))
	setString(&p.Planning.PrioritizationFramework, get("planning", "prioritization_framework"))
	setBool(&p.Eval.AnalyzeBeforeExecute, get("eval", "analyze_before_execute"))
	setString(&p.Eval.CostProfile, get("eval", "cost_profile"))
	setString(&p.Eval.MaxBudgetUSD, get("eval", "max_budget_usd"))
	setString(&p.Style.Explanatory, get("style", "explanatory"))
	setString(&p.Style.ExplanatoryByRole.Scan, get("style", "explanatory_by_role", "scan"))

	setDuration(&p.Hooks.CheckpointTimeout, get("hooks", "checkpoint_timeout"))
	setDuration(&p.Hooks.SessionStartMaxAge, get("hooks", "session_start_max_age"))
	setDuration(&p.Hooks.CaptureInterval, get("hooks", "capture_interval"))
	setBool(&p.Hooks.EffortEnv, get("hooks", "effort_env"))
	return p, nil
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
func setDuration(dst *Duration, n *yaml.Node) {
	v, ok := scalar(n)
	if d, err := ParseDuration(v); ok && err == nil && d > 0 {
		*dst = Duration(d)
	}
}

// ParseHookPrefs reads the hooks' keys of a preferences document given as
// bytes, as Settings.Project reads them from the file: for callers (the stop decision's
// tests) that hold the text, not a project.
func ParseHookPrefs(data []byte) (HookPrefs, error) {
	doc := new(yaml.Node)
	if err := yaml.Unmarshal(data, doc); err != nil {
		return defaultHookPrefs(), fmt.Errorf("preferences: %w", err)
	}
	return readHookPrefs(doc, PrefsFile)
}
