package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent"
	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/agent/all"
)

// `ccc init` has a subcommand per agent that installs hooks, with the
// flags every init takes and the agent's own.
func TestInitAgentsFromTheRegistry(t *testing.T) {
	dir := ""
	cmd := NewCmdInit(&Factory{}, &dir)
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.Name() == "handoff" { // ccc init handoff: the checkpoint branch's key, no agent
			continue
		}
		names = append(names, sub.Name())
		assert.NotNil(t, sub.Flags().Lookup("dry-run"), sub.Name())
		assert.NotNil(t, sub.Flags().Lookup("remove"), sub.Name())
		assert.Equal(t, sub.Name() == "claude", sub.Flags().Lookup("enable-todo-tools") != nil, "%s: Claude's own option", sub.Name())
	}
	assert.Equal(t, []string{"claude", "codex", "gemini"}, names)
}

// Each agent's init writes its agent's settings; an agent's own option
// reaches its installer.
func TestInstallHooks(t *testing.T) {
	for _, a := range all.Agents() {
		inst, ok := a.(agent.HookInstaller)
		require.True(t, ok, a.Name())
		opts := &InitOptions{Options: map[string]*bool{}}
		if o, ok := inst.(agent.OptionsInstaller); ok {
			for _, opt := range o.InstallOptions() {
				on := true
				opts.Options[opt.Name] = &on
			}
		}
		root := t.TempDir()
		res, err := installHooks(inst, root, opts)
		require.NoError(t, err, a.Name())
		assert.True(t, res.Changed, a.Name())
		data, err := os.ReadFile(filepath.Join(root, inst.ConfigFile()))
		require.NoError(t, err, a.Name())
		assert.Contains(t, string(data), "ccc hook ", a.Name())
		if a.Name() == "claude" {
			assert.Contains(t, string(data), `"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"`, "--enable-todo-tools reaches the installer")
		}
	}
}
