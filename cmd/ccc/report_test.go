package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// TestPrintReportMarks: on a terminal, a failed or queued delivery is never
// marked ✓, and a run with a failed step never says "complete".
func TestPrintReportMarks(t *testing.T) {
	t.Parallel()
	r := checkpoint.Report{Total: 4, Succeeded: 3, Steps: []checkpoint.Result{
		{Name: "Persist progress", Status: checkpoint.OK, Message: "updated .ccc-progress.md"},
		{Name: "Tracker update", Status: checkpoint.Failed, Message: "1 of 2 failed", Consequence: "queued for retry (ccc sync)", Sinks: []checkpoint.SinkResult{
			{Title: "Linear", Target: "CIA-1", Action: sinks.Failed, Error: "HTTP 500", Queued: true},
			{Title: "File", Target: "STATUS.md", Action: sinks.Updated, Wrote: "updated section in STATUS.md"},
		}},
	}}
	var tty, plain bytes.Buffer
	printReport(IOStreams{ErrOut: &tty, ErrTTY: true}, r)
	printReport(IOStreams{ErrOut: &plain}, r)
	assert.Equal(t, ""+
		"\x1b[33m!\x1b[0m Checkpoint saved; 1 of 4 steps failed: Tracker update (queued for retry).\n"+
		"\x1b[32m✓\x1b[0m Persist progress: updated .ccc-progress.md.\n"+
		"\x1b[31mX\x1b[0m Failed: Tracker update (1 of 2 failed) — queued for retry (ccc sync).\n"+
		"\x1b[31mX\x1b[0m   Linear: failed (HTTP 500) — queued for retry (ccc sync).\n"+
		"\x1b[32m✓\x1b[0m   File: updated section in STATUS.md.\n", tty.String())
	assert.NotContains(t, plain.String(), "\x1b[", "no colour off a terminal")
	assert.NotContains(t, plain.String(), "complete")
}

// TestSlowTrackerIsShownOnATerminal: while a tracker is slow, a terminal
// shows what ccc waits for (after waitAfter), and the line is gone before
// the report; off a terminal, and with --json, nothing is added.
func TestSlowTrackerIsShownOnATerminal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		tty   bool
		extra []string
		shown bool
	}{
		{"terminal", true, nil, true},
		{"not a terminal", false, nil, false},
		{"terminal, --json", true, []string{"--json"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, srv, env := newWorkerProject(t)
			srv.Inject(linearfake.Slow(waitAfter + 700*time.Millisecond))
			errOut := &syncBuffer{}
			args := append([]string{"checkpoint", "--skip-git", "--next", "go on"}, tt.extra...)
			code := run(args, inProcFactory(root, env, errOut, tt.tty))
			require.Equal(t, 0, code, errOut.String())
			got := errOut.String()
			if !tt.shown {
				assert.NotContains(t, got, "Waiting")
				return
			}
			assert.Regexp(t, `\r\x1b\[K. Waiting for Linear \(CIA-30\)… [1-9][0-9]*s`, got)
			assert.Contains(t, got, "\r\x1b[K\x1b[32m✓\x1b[0m Checkpoint complete", "cleared before the report")
		})
	}
}
