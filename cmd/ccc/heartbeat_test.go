package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/records"
)

func TestHeartbeatCommand(t *testing.T) {
	e := newAgEnv(t)
	code, _, stderr := e.run(e.main, "heartbeat", "--agent", "a")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "heartbeat: agent a has no record in "+e.dir+" yet: run ccc checkpoint --agent a first")

	e.checkpoint(e.main, "a", "CIA-1", 0, 2, nil)
	e.env["CCC_AGENT"] = "a"
	before, err := os.ReadFile(records.CurrentPath(e.dir, "a"))
	require.NoError(t, err)
	e.now = agT0.Add(7 * time.Minute)
	code, stdout, stderr := e.run(e.main, "heartbeat")
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, "Heartbeat a: alive at 2026-11-21T13:52:00Z; next checkpoint expected by 2026-11-21T14:07:00Z.\n", stderr)
	after, err := os.ReadFile(records.CurrentPath(e.dir, "a"))
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(strings.Replace(string(before),
		`"lastBeat": "2026-11-21T13:45:00Z"`, `"lastBeat": "2026-11-21T13:52:00Z"`, 1),
		`"nextCheckpointExpected": "2026-11-21T14:00:00Z"`, `"nextCheckpointExpected": "2026-11-21T14:07:00Z"`, 1),
		string(after), "only the beat and the next expected checkpoint change")
	for _, name := range []string{progress.FileName, state.FileName} {
		assert.NoFileExists(t, filepath.Join(e.main, name), "the progress and state files are not touched")
	}

	code, stdout, _ = e.run(e.main, "heartbeat", "--json", "--agent", "a")
	require.Equal(t, 0, code)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, map[string]any{"agent": "a", "id": "a-CIA-1-20261121-134500",
		"lastBeat": "2026-11-21T13:52:00Z", "nextCheckpointExpected": "2026-11-21T14:07:00Z"}, got)
}

func TestHeartbeatFlags(t *testing.T) {
	t.Parallel()
	var got *HeartbeatOptions
	build := func(f *Factory, dir *string) *cobra.Command {
		return NewCmdHeartbeat(f, dir, func(o *HeartbeatOptions) error { got = o; return nil })
	}
	code, _ := agParse(build, "heartbeat", "--agent", "w2", "--json")
	require.Equal(t, 0, code)
	assert.Equal(t, &HeartbeatOptions{Agent: "w2", JSON: true}, got)

	got = nil
	code, _ = agParse(build, "heartbeat")
	require.Equal(t, 0, code)
	assert.Equal(t, "main", got.Agent, "the default agent, as checkpoint's")

	got = nil
	code, stderr := agParse(build, "heartbeat", "--agent", "../x")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "cannot name a file")
	assert.Nil(t, got)
}
