package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hookHangDetector is no budget: hooks stop at hooks.checkpoint_timeout
// (10 s). It only fails a hook that would otherwise run for minutes, as
// one on 8 MB of deeply nested lists did.
const hookHangDetector = 20 * time.Second

// Every hook finishes on the pathological inputs a repository can commit
// under the size limits, exits 0, says at most one line, and stays within
// bounded memory.
func TestHostileInputsHooksFinish(t *testing.T) {
	// Not parallel: its deadlines assume the package's other tests are not
	// competing for the CPU.
	head := "# P\n\n**Issue:** CIA-5\n\n## Current Task\n- t\n\n## Completed Tasks\n"
	deep := strings.Repeat("- ", 10000) + "x\n"
	cases := []struct {
		name     string
		progress string
		state    string
	}{
		{"nested 10,000 levels (20 KB)", head + deep, ""},
		{"nested 10,000 levels, then 8 MB of lazy lines", head + deep + strings.Repeat("y\n", 4<<20), ""},
		{"a flat list at the parse limit", head + strings.Repeat("- x\n", 149_000), ""},
		{"a 9 MB task", "# P\n\n**Issue:** CIA-5\n\n## Current Task\n- " + strings.Repeat("a", 9_000_000) + "\n", ""},
		{"a 20 MB state file", head, `{"phase": "execution", "pad": "` + strings.Repeat("x", 20<<20) + `"}`},
	}
	events := []struct{ hook, input string }{
		{"session-start", `{"session_id":"s-1","transcript_path":"/nonexistent.jsonl","cwd":"/w","hook_event_name":"SessionStart","source":"compact"}`},
		{"pre-compact", `{"session_id":"s-1","transcript_path":"/nonexistent.jsonl","cwd":"/w","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":""}`},
		{"stop", `{"session_id":"s-1","transcript_path":"/nonexistent.jsonl","cwd":"/w","hook_event_name":"Stop","stop_hook_active":true,"last_assistant_message":"done\n\nTASK_COMPLETE"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			st := tc.state
			if st == "" {
				st = `{"phase": "execution", "taskIndex": 1, "totalTasks": 3, "linearIssue": "CIA-5"}`
			}
			require.NoError(t, os.WriteFile(filepath.Join(root, ".ccc-progress.md"), []byte(tc.progress), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(root, ".ccc-state.json"), []byte(st), 0o644))
			p := newCCCProc(root)
			for _, ev := range events {
				ctx, cancel := context.WithTimeout(context.Background(), hookHangDetector)
				cmd := p.cmdContext(ctx, "hook", ev.hook)
				cmd.Stdin = strings.NewReader(ev.input)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				start := time.Now()
				err := cmd.Run()
				hung := ctx.Err()
				cancel()
				require.NoError(t, hung, "ccc hook %s still running after %s", ev.hook, hookHangDetector)
				require.NoError(t, err, "ccc hook %s: %.300s", ev.hook, stderr.String())
				rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss >> 10 // KB → MB
				t.Logf("ccc hook %s: %s, %d MB", ev.hook, time.Since(start).Round(time.Millisecond), rss)
				assert.Less(t, rss, int64(2048), "ccc hook %s: peak memory in MB", ev.hook)
				assert.LessOrEqual(t, strings.Count(strings.TrimRight(stderr.String(), "\n"), "\n"), 0, "one stderr line: %.300s", stderr.String())
			}
		})
	}
}

// Issue 26: a progress file of 100,000 plain tasks is checkpointed, not refused as too broken to
// touch; the tasks survive the rewrite.
func TestCheckpointHundredThousandTasks(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	b.WriteString("# P\n\n## Current Task\n- t\n\n## Remaining Tasks\n")
	for i := range 100_000 {
		fmt.Fprintf(&b, "- task %d\n", i)
	}
	path := filepath.Join(root, ".ccc-progress.md")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	code, stdout, stderr := newCCCProc(root, "LINEAR_API_KEY=").run(t, "checkpoint", "--profile", "automated", "--next", "task 0")
	require.Equal(t, 0, code, "stdout %.500s\nstderr %.500s", stdout, stderr)
	assert.NotContains(t, stdout+stderr, "broken")
	out, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(out), "- task 99999\n")
}
