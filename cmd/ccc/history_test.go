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

// historyEnv has a few versions of two agents' records.
func historyEnv(t *testing.T) *agEnv {
	e := newAgEnv(t)
	e.checkpoint(e.main, "a", "CIA-1", 0, 3, func(s *records.Snapshot) {
		s.Blockers = []string{"waiting for review"}
		s.Files = []string{"parser.go", "parser_test.go"}
	})
	e.now = agT0.Add(10 * time.Minute)
	e.checkpoint(e.main, "a", "CIA-1", 1, 3, func(s *records.Snapshot) { s.Phase = "tests" })
	e.now = agT0.Add(20 * time.Minute)
	e.checkpoint(e.main, "b", "CIA-2", 1, 1, func(s *records.Snapshot) { s.Status = records.StatusComplete; s.Current = "" })
	e.now = agT0.Add(30 * time.Minute)
	return e
}

func TestListCommand(t *testing.T) {
	e := historyEnv(t)
	code, stdout, stderr := e.run(e.main, "list")
	require.Equal(t, 0, code, stderr)
	agGolden(t, "list.txt", stdout, e)

	code, stdout, _ = e.run(e.main, "list", "--agent", "a", "--json")
	require.Equal(t, 0, code)
	var got struct {
		Records []ListedRecord `json:"records"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	require.Len(t, got.Records, 2)
	assert.Equal(t, records.KindCurrent, got.Records[0].Kind)
	assert.Equal(t, records.KindHistory, got.Records[1].Kind)
	assert.Equal(t, filepath.Join(e.dir, "history", "a", "a-CIA-1-20261121-134500.json"), got.Records[1].Path)

	code, stdout, stderr = e.run(e.main, "list", "--agent", "nobody")
	assert.Equal(t, 0, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "No records in "+e.dir+".\n", stderr)
}

func TestShowCommand(t *testing.T) {
	e := historyEnv(t)
	code, stdout, stderr := e.run(e.main, "show", "a-CIA-1-20261121-134500")
	require.Equal(t, 0, code, stderr)
	agGolden(t, "show_history.txt", stdout, e)

	code, stdout, _ = e.run(e.main, "show", "a")
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "Record a-CIA-1-20261121-135500 (current, ", "an agent's name shows its current record")

	code, stdout, _ = e.run(e.main, "show", "b-CIA-2-20261121-140500", "--json")
	require.Equal(t, 0, code)
	want, err := os.ReadFile(filepath.Join(e.dir, "b-CIA-2-complete.json"))
	require.NoError(t, err)
	assert.Equal(t, string(want), stdout, "--json prints the record as stored")

	code, _, stderr = e.run(e.main, "show", "nope")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `show: no record "nope" in `+e.dir+" (ccc list shows them)")
}

func TestShowFlags(t *testing.T) {
	t.Parallel()
	var got *ShowOptions
	build := func(f *Factory, dir *string) *cobra.Command {
		return NewCmdShow(f, dir, func(o *ShowOptions) error { got = o; return nil })
	}
	code, _ := agParse(build, "show", "x-1", "--json")
	require.Equal(t, 0, code)
	assert.Equal(t, &ShowOptions{ID: "x-1", JSON: true}, got)
	for _, args := range [][]string{{"show"}, {"show", "a", "b"}} {
		got = nil
		code, stderr := agParse(build, args...)
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, "show takes one ID")
		assert.Nil(t, got)
	}
}
