package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/state/records"
)

// TestStatusFailedAgents: an agent whose work failed keeps a row (status
// failed, no health) while its record waits in failed/; an agent that
// took up work again is shown by its live record; an unreadable file in
// failed/ is a warning, never a made-up agent.
func TestStatusFailedAgents(t *testing.T) {
	e := newAgEnv(t)
	fail := func(s *records.Snapshot) { s.Failures = []string{"the upstream API was removed"} }
	e.checkpoint(e.main, "a", "CIA-1", 1, 3, fail)
	e.checkpoint(e.main, "b", "CIA-2", 0, 2, fail)
	e.now = agT0.Add(10 * time.Minute)
	e.checkpoint(e.main, "b", "CIA-2", 0, 2, nil) // b goes on after its failure
	require.NoError(t, os.WriteFile(filepath.Join(e.dir, records.FailedDir, "x-CIA-9-20261121-130000.json"), []byte("{"), 0o644))

	code, stdout, stderr := e.run(e.main, "status", "--json")
	assert.Equal(t, 0, code, stderr)
	var rep StatusReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	require.Len(t, rep.Agents, 2, "a (failed) and b (live); no row for the unreadable file")
	assert.Equal(t, "a", rep.Agents[0].Agent)
	assert.Equal(t, "failed", rep.Agents[0].Status)
	assert.Equal(t, "", rep.Agents[0].Health)
	assert.Equal(t, 1, rep.Agents[0].Completed)
	assert.Equal(t, "b", rep.Agents[1].Agent)
	assert.Equal(t, "in_progress", rep.Agents[1].Status)
	assert.Equal(t, "ACTIVE", rep.Agents[1].Health)
	require.Len(t, rep.Warnings, 1)
	assert.Contains(t, rep.Warnings[0], "x-CIA-9-20261121-130000.json")
	assert.Equal(t, 0, rep.Unknown)
}
