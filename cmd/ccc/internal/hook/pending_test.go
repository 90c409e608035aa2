package hook

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/state"
)

// holdLock takes the project lock as another ccc process would (a flock on
// its own open file) until the returned func releases it.
func holdLock(t *testing.T, root string) func() {
	t.Helper()
	unlock, err := projectfs.Lock(context.Background(), root)
	require.NoError(t, err)
	return unlock
}

func (p *proj) stopWithLockWait(stdin []byte, wait time.Duration) Decision {
	p.t.Helper()
	env := p.env()
	env.LockWait = wait
	return Stop(context.Background(), env, stdin)
}

func pendingFiles(t *testing.T, root string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(root, projectfs.Dir, PendingDir, "*.json"))
	require.NoError(t, err)
	return m
}

// Another process holds .ccc/lock past the hook's lock budget when the
// agent signals TASK_COMPLETE: the hook still blocks with the next task,
// and the advance waits in .ccc/pending until the next stop applies it.
func TestStopWithTheLockHeldQueuesTheAdvance(t *testing.T) {
	p := newProj(t)
	orig := stateJSON(t, map[string]any{"ownerSessionId": sessionID})
	p.write(state.FileName, orig)

	release := holdLock(t, p.root)
	d := p.stopWithLockWait(input(t, "stop.json", nil), 50*time.Millisecond)
	release()

	assert.Equal(t, Block, d.Outcome, p.errs.String())
	assert.Equal(t, RuleNext, d.Rule)
	assert.Contains(t, d.Reason, "Execute task 3 of 3")
	assert.Equal(t, string(orig), string(p.read(state.FileName)), "nothing written under another's lock")
	require.Len(t, pendingFiles(t, p.root), 1)
	assert.Contains(t, p.errs.String(), "queued in .ccc/pending/")

	// The next stop (no TASK_COMPLETE: a retry) applies the advance first.
	p.errs.Reset()
	d = p.stopWithLockWait(input(t, "stop-active.json", nil), 50*time.Millisecond)
	assert.Equal(t, RuleRetry, d.Rule, p.errs.String())
	assert.Contains(t, d.Reason, "Task 3 did not signal TASK_COMPLETE. Retry attempt 2 of 5.")
	st := p.state()
	n, _ := st.Int("taskIndex")
	assert.Equal(t, 2, n, "the queued advance is in the state")
	it, _ := st.Int("taskIteration")
	assert.Equal(t, 2, it)
	g, _ := st.Int("globalIteration")
	assert.Equal(t, 6, g, "both stops counted")
	assert.Empty(t, pendingFiles(t, p.root))
}

// The lock stays busy for the next stop too: that stop decides on the
// queued advance, and queues its own change with it.
func TestStopWithTheLockStillHeldCarriesThePendingChange(t *testing.T) {
	p := newProj(t)
	orig := stateJSON(t, map[string]any{"ownerSessionId": sessionID})
	p.write(state.FileName, orig)
	release := holdLock(t, p.root)
	p.stopWithLockWait(input(t, "stop.json", nil), 20*time.Millisecond)
	d := p.stopWithLockWait(input(t, "stop-active.json", nil), 20*time.Millisecond)
	release()
	assert.Contains(t, d.Reason, "Task 3 did not signal TASK_COMPLETE. Retry attempt 2 of 5.", p.errs.String())
	assert.Equal(t, string(orig), string(p.read(state.FileName)))

	p.stopWithLockWait(input(t, "stop-active.json", nil), 20*time.Millisecond)
	st := p.state()
	n, _ := st.Int("taskIndex")
	it, _ := st.Int("taskIteration")
	assert.Equal(t, []int{2, 3}, []int{n, it}, p.errs.String())
}

// A lock released within the budget is waited for: the advance is written
// by this stop, nothing is queued.
func TestStopWaitsForTheLockWithinItsBudget(t *testing.T) {
	p := newProj(t)
	p.write(state.FileName, stateJSON(t, map[string]any{"ownerSessionId": sessionID}))
	release := holdLock(t, p.root)
	go func() {
		time.Sleep(300 * time.Millisecond)
		release()
	}()
	d := p.stopWithLockWait(input(t, "stop.json", nil), 10*time.Second)
	assert.Equal(t, RuleNext, d.Rule, p.errs.String())
	n, _ := p.state().Int("taskIndex")
	assert.Equal(t, 2, n)
	assert.Empty(t, pendingFiles(t, p.root))
}

// The last task's TASK_COMPLETE under a busy lock: the stop is allowed and
// the end of the loop (deleting the state) is queued, then applied.
func TestStopQueuesTheEndOfTheLoop(t *testing.T) {
	p := newProj(t)
	p.write(state.FileName, stateJSON(t, map[string]any{"ownerSessionId": sessionID, "taskIndex": 2}))
	release := holdLock(t, p.root)
	d := p.stopWithLockWait(input(t, "stop.json", nil), 20*time.Millisecond)
	release()
	assert.Equal(t, RuleLastTask, d.Rule, p.errs.String())
	assert.NotNil(t, p.read(state.FileName), "still there under another's lock")

	d = p.stopWithLockWait(input(t, "stop-active.json", nil), 20*time.Millisecond)
	assert.Equal(t, Allow, d.Outcome)
	assert.Nil(t, p.read(state.FileName), "the queued end of the loop deleted the state")
	assert.Empty(t, pendingFiles(t, p.root))
}

// A pending change decided on a state that has moved since (someone
// rewrote it) is discarded, never applied over the new state.
func TestStopDiscardsAPendingChangeOfAnotherPosition(t *testing.T) {
	p := newProj(t)
	p.write(state.FileName, stateJSON(t, map[string]any{"ownerSessionId": sessionID}))
	release := holdLock(t, p.root)
	p.stopWithLockWait(input(t, "stop.json", nil), 20*time.Millisecond)
	release()
	p.write(state.FileName, stateJSON(t, map[string]any{"ownerSessionId": sessionID, "taskIndex": 0, "globalIteration": 9}))

	p.errs.Reset()
	p.stopWithLockWait(input(t, "stop-active.json", nil), 20*time.Millisecond)
	assert.Contains(t, p.errs.String(), "no longer matches")
	n, _ := p.state().Int("taskIndex")
	assert.Equal(t, 0, n)
	assert.Empty(t, pendingFiles(t, p.root))
}

// A pending file that is not a regular file is discarded, never opened.
func TestStopDiscardsAPendingFIFO(t *testing.T) {
	p := newProj(t)
	p.write(state.FileName, stateJSON(t, map[string]any{"ownerSessionId": sessionID}))
	path := pendingPath(p.root, sessionID)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, mkfifo(path))
	d := p.stop(input(t, "stop-active.json", nil))
	assert.Equal(t, RuleRetry, d.Rule, p.errs.String())
	assert.Contains(t, p.errs.String(), "not a regular file")
}

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
