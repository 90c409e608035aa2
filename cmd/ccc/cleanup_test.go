package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/state/records"
)

func TestCleanupCommand(t *testing.T) {
	e := newAgEnv(t)
	e.checkpoint(e.main, "a", "CIA-1", 0, 1, func(s *records.Snapshot) { s.Status = records.StatusFailed })
	e.checkpoint(e.main, "b", "CIA-2", 0, 1, nil)
	e.now = agT0.Add(4 * 24 * time.Hour)

	code, stdout, stderr := e.run(e.main, "cleanup", "--max-age", "3d", "--failed-max-age", "1d12h", "--json")
	require.Equal(t, 0, code, stderr)
	var got struct {
		DryRun  bool             `json:"dryRun"`
		Actions []records.Action `json:"actions"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.False(t, got.DryRun)
	require.Len(t, got.Actions, 2)
	assert.Equal(t, records.Action{Op: "remove", Path: records.CurrentPath(e.dir, "b"), ID: "b-CIA-2-20261121-134500",
		Agent: "b", Kind: records.KindCurrent, Reason: "not updated for over 3d"}, got.Actions[0])
	assert.Equal(t, filepath.Join(e.dir, "failed", "a-CIA-1-20261121-134500.json"), got.Actions[1].Path)
	assert.Equal(t, "failed, not updated for over 1d12h", got.Actions[1].Reason)
	assert.NoFileExists(t, got.Actions[1].Path)

	require.NoError(t, os.WriteFile(filepath.Join(e.dir, "broken.json"), []byte("{"), 0o644))
	code, stdout, stderr = e.run(e.main, "cleanup")
	assert.Equal(t, 1, code, "an unreadable record needs a person")
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "Warning: records: "+filepath.Join(e.dir, "broken.json"))
	assert.FileExists(t, filepath.Join(e.dir, "broken.json"), "and is never removed")
}

func TestCleanupFlags(t *testing.T) {
	t.Parallel()
	var got *CleanupOptions
	build := func(f *Factory, dir *string) *cobra.Command {
		return NewCmdCleanup(f, dir, func(o *CleanupOptions) error { got = o; return nil })
	}
	code, _ := agParse(build, "cleanup")
	require.Equal(t, 0, code)
	assert.Equal(t, &CleanupOptions{Policy: records.Policy{MaxAge: 7 * 24 * time.Hour, FailedMaxAge: 30 * 24 * time.Hour}}, got)

	code, _ = agParse(build, "cleanup", "--max-age", "12h", "--failed-max-age", "2d", "-n", "--json")
	require.Equal(t, 0, code)
	assert.Equal(t, &CleanupOptions{Policy: records.Policy{MaxAge: 12 * time.Hour, FailedMaxAge: 48 * time.Hour}, DryRun: true, JSON: true}, got)

	for _, args := range [][]string{{"cleanup", "--max-age", "7"}, {"cleanup", "--failed-max-age", "soon"}, {"cleanup", "x"}} {
		got = nil
		code, stderr := agParse(build, args...)
		assert.Equal(t, 2, code, args)
		assert.NotEmpty(t, stderr)
		assert.Nil(t, got)
	}
}
