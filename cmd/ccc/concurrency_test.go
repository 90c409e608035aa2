package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
)

// TestConcurrentProcesses runs 20 ccc processes against one project at once:
// every edit must land and both files must stay valid.
func TestConcurrentProcesses(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	env := append(os.Environ(), "CCC_PROJECT_ROOT="+root, "LINEAR_API_KEY=", "LINEAR_OAUTH_TOKEN=", "NO_COLOR=1")
	ccc := func(args ...string) *exec.Cmd {
		cmd := exec.Command("ccc", args...) // TestMain put this test binary on PATH as ccc
		cmd.Env = env
		return cmd
	}
	out, err := ccc("checkpoint", "--issue", "CIA-20", "--current", "start", "--skip-git").CombinedOutput()
	require.NoError(t, err, string(out))

	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"checkpoint", "--skip-git", "--add-task", fmt.Sprintf("task %02d", i)}
			if i%2 == 1 {
				args = append(args, "--profile", "automated", "--decision", fmt.Sprintf("d%02d: because", i))
			}
			out, err := ccc(args...).CombinedOutput()
			assert.NoError(t, err, "process %d: %s", i, out)
		}()
	}
	wg.Wait()

	data, err := os.ReadFile(filepath.Join(root, progress.FileName))
	require.NoError(t, err)
	doc, err := progress.Parse(data)
	require.NoError(t, err)
	assert.Len(t, doc.Remaining, n, "every task landed")
	assert.Len(t, doc.Decisions, n/2, "every decision landed")
	assert.Empty(t, progress.Validate(progress.FileName, data))

	raw, err := os.ReadFile(filepath.Join(root, state.FileName))
	require.NoError(t, err)
	st, err := state.Parse(raw)
	require.NoError(t, err, "the state file is valid JSON")
	assert.Equal(t, "CIA-20", st.Issue())

	leftovers, _ := filepath.Glob(filepath.Join(root, ".*.tmp-*"))
	assert.Empty(t, leftovers, "no temp files left behind")
	backups, err := projectfs.Backups(root, progress.FileName)
	require.NoError(t, err)
	assert.Len(t, backups, projectfs.KeepBackups)
}
