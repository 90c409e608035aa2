package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestActionYAML checks the composite action: it parses, every input it
// declares reaches ccc through the environment (never spliced into the
// script), and every flag it passes exists on ccc post.
func TestActionYAML(t *testing.T) {
	data, err := os.ReadFile("../../action.yml")
	require.NoError(t, err)
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				Run string            `yaml:"run"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	require.NoError(t, yaml.Unmarshal(data, &action))
	assert.Equal(t, "composite", action.Runs.Using)
	for _, in := range []string{"body-file", "linear-issue", "github-issue", "sinks", "agent"} {
		assert.Contains(t, action.Inputs, in)
	}
	var env map[string]string
	var script string
	for _, s := range action.Runs.Steps {
		if strings.Contains(s.Run, "post") {
			env, script = s.Env, s.Run
		}
	}
	require.NotEmpty(t, script)
	assert.NotContains(t, script, "${{", "inputs are passed through env, not spliced into the script")
	used := map[string]bool{}
	for _, v := range env {
		if m := regexp.MustCompile(`inputs\.([a-z-]+)`).FindStringSubmatch(v); m != nil {
			used[m[1]] = true
		}
	}
	for in := range action.Inputs {
		assert.True(t, used[in], "input %s reaches ccc", in)
	}

	post := NewCmdPost(&Factory{}, new(string), nil)
	for _, m := range regexp.MustCompile(`--([a-z-]+)`).FindAllStringSubmatch(script, -1) {
		assert.NotNil(t, post.Flags().Lookup(m[1]), "ccc post has --%s", m[1])
	}
}
