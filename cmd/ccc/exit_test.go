package main

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/checkpoint"
)

// TestJSONErrorObject: a command run with --json that fails before it
// printed anything prints one error object on stdout; without --json, or
// once the command printed its own JSON, stdout carries nothing more.
func TestJSONErrorObject(t *testing.T) {
	root := t.TempDir()
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		object bool
	}{
		{"--json: the error as an object", []string{"validate", "--json", "missing.md"}, ExitFailed, true},
		{"usage error with --json", []string{"status", "--json", "--markdown"}, ExitUsage, true},
		{"no --json: nothing on stdout", []string{"validate", "missing.md"}, ExitFailed, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			f := &Factory{
				IO:     IOStreams{Out: &out, ErrOut: &errOut},
				Getenv: func(k string) string { return map[string]string{"CCC_PROJECT_ROOT": root}[k] },
				Getwd:  func() (string, error) { return root, nil },
				Now:    func() time.Time { return time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC) },
			}
			require.Equal(t, tt.code, run(tt.args, f), errOut.String())
			assert.Contains(t, errOut.String(), "ccc: ")
			if !tt.object {
				assert.Empty(t, out.String())
				return
			}
			var got jsonError
			require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
			assert.Equal(t, tt.code, got.ExitCode)
			assert.NotEmpty(t, got.Error)
		})
	}
}

// TestOutcomeExit: every outcome of a pipeline run has its exit status.
func TestOutcomeExit(t *testing.T) {
	for _, o := range []checkpoint.Outcome{checkpoint.OutcomeOK, checkpoint.OutcomeNothing, checkpoint.OutcomeUsage, checkpoint.OutcomePartial} {
		_, ok := outcomeExit[o]
		assert.True(t, ok, "outcome %d", o)
	}
	assert.NoError(t, reportExit(checkpoint.Report{Total: 2, Succeeded: 2}))
	var exit *exitError
	require.ErrorAs(t, reportExit(checkpoint.Report{Total: 2, Succeeded: 1}), &exit)
	assert.Equal(t, ExitPartial, exit.code)
}
