package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/state/records"
)

func TestTakeoverCommand(t *testing.T) {
	e := newAgEnv(t)
	code, _, stderr := e.run(e.main, "takeover", "c")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "takeover: agent c has no current record in "+e.dir)

	e.checkpoint(e.main, "c", "CIA-3", 1, 3, func(s *records.Snapshot) { s.Prompt = "" })
	e.checkpoint(e.main, "e", "CIA-5", 0, 1, nil)
	e.now = agT0.Add(5 * time.Minute)
	code, stdout, stderr := e.run(e.main, "takeover", "c")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "Warning: c was active 5m ago: make sure it has stopped, or two agents will work on CIA-3.")
	assert.Contains(t, stderr, "Warning: the old record has no continuation prompt")
	assert.Contains(t, stderr, "Took over c's work (CIA-3, 1/3 done) as c, session ")
	assert.Equal(t, "Resume CIA-3, taking over from c. Current task: task 2 of CIA-3.\nNext action: task 3 of CIA-3.\n", stdout)
	cur, err := records.Load(e.dir, "c")
	require.NoError(t, err)
	assert.NotEqual(t, "session-c", cur.SessionID)

	code, _, stderr = e.run(e.main, "takeover", "c", "--as", "e")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "e already has a record of its own")

	e.now = agT0.Add(2 * time.Hour)
	code, stdout, stderr = e.run(e.main, "takeover", "c", "--as", "f", "--json")
	require.Equal(t, 0, code, stderr)
	var got struct {
		Old, New    map[string]any
		CrashedPath string
		Prompt      string
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, "c", got.Old["agent"])
	assert.Equal(t, "f", got.New["agent"])
	assert.Equal(t, "in_progress", got.New["status"])
	assert.Contains(t, got.CrashedPath, "c_crashed_")
	assert.Contains(t, got.Prompt, "Resume CIA-3")
}

func TestTakeoverFlags(t *testing.T) {
	t.Parallel()
	var got *TakeoverOptions
	build := func(f *Factory, dir *string) *cobra.Command {
		return NewCmdTakeover(f, dir, func(o *TakeoverOptions) error { got = o; return nil })
	}
	code, _ := agParse(build, "takeover", "c", "--as", "d", "--json")
	require.Equal(t, 0, code)
	assert.Equal(t, &TakeoverOptions{Agent: "c", As: "d", JSON: true}, got)
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"takeover"}, "takeover takes one AGENT"},
		{[]string{"takeover", "a", "b"}, "takeover takes one AGENT"},
		{[]string{"takeover", "a", "--as", "x/y"}, "cannot name a file"},
		{[]string{"takeover", ".."}, "cannot name a file"},
	} {
		got = nil
		code, stderr := agParse(build, tt.args...)
		assert.Equal(t, 2, code, tt.args)
		assert.Contains(t, stderr, tt.err)
		assert.Nil(t, got)
	}
}
