package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/state"
)

// boundsState is a CCC loop at task 1 of 3, owned by session s-1.
const boundsState = `{"phase": "execution", "taskIndex": 1, "totalTasks": 3, "taskIteration": 1,
 "globalIteration": 4, "executionMode": "tdd", "linearIssue": "CIA-12", "ownerSessionId": "s-1"}
`

const boundsComplete = `{"session_id":"s-1","hook_event_name":"Stop","stop_hook_active":true,"last_assistant_message":"Parser done.\n\nTASK_COMPLETE"}`

// runHookTimed runs `ccc hook <event>` in root with stdin, killing it after
// a minute, and reports how long it took.
func runHookTimed(t *testing.T, p cccProc, stdin func(*exec.Cmd) func(), event string) (code int, stdout, stderr string, took time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), procTimeout)
	defer cancel()
	cmd := p.cmdContext(ctx, "hook", event)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	done := stdin(cmd)
	start := time.Now()
	err := cmd.Run()
	took = time.Since(start)
	done()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, so.String(), se.String(), took
}

// TestHookWithTheProjectLockHeld: another ccc process holds .ccc/lock for
// longer than any hook should wait. Each hook gives up within a few
// seconds, says so in one line, and exits 0; the stop hook still answers
// (the advance queued in .ccc/pending/, the state untouched).
func TestHookWithTheProjectLockHeld(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		event, stdin string
	}{
		{"stop", boundsComplete},
		{"pre-compact", `{"session_id":"s-1","hook_event_name":"PreCompact","trigger":"auto"}`},
	} {
		t.Run(tt.event, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(root, state.FileName), []byte(boundsState), 0o644))
			p := newCCCProc(root)
			code, _, stderr := p.run(t, "checkpoint", "--profile", "automated", "--current", "parser", "--add-task", "tests")
			require.Equal(t, 0, code, stderr)
			before, err := os.ReadFile(filepath.Join(root, state.FileName))
			require.NoError(t, err)
			unlock, err := projectfs.Lock(context.Background(), root)
			require.NoError(t, err)
			defer unlock()

			code, stdout, stderr, took := runHookTimed(t, p, func(cmd *exec.Cmd) func() {
				cmd.Stdin = strings.NewReader(tt.stdin)
				return func() {}
			}, tt.event)
			t.Logf("%s hook with the lock held: %v", tt.event, took)
			assert.Equal(t, 0, code)
			assert.Less(t, took, 6*time.Second, "the hook does not spend its budget on the lock")
			assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
			assert.Contains(t, stderr, "another ccc process held the project lock for 3s")
			if tt.event == "stop" {
				assert.Contains(t, stdout, "Execute task 3 of 3", stderr)
				assert.Contains(t, stderr, ".ccc/pending/")
				got, err := os.ReadFile(filepath.Join(root, state.FileName))
				require.NoError(t, err)
				assert.Equal(t, string(before), string(got), "nothing written under another's lock")
			}
		})
	}
}
