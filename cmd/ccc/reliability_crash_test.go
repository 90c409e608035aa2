package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks/linear/linearfake"
	"github.com/ccc-checkpoint/ccc/state"
)

var crashSeed = flag.Uint64("crash.seed", 0, "seed of the crash test's kill delays (0: a new one, printed)")

// The kill delays are spread uniformly over 0 to 1.25 times the mean time
// of the runs seen so far (10–20 ms on an idle machine, more on a busy
// one), so that kills land before the first write, between the progress
// and the state write, during the tracker update, and a few after the end.
// minKillWindow keeps the window from collapsing.
const minKillWindow = 5 * time.Millisecond

// TestCrashSafety kills `ccc checkpoint --profile automated` with SIGKILL
// at random moments until crashKills runs (crashKillsLinear with the Linear
// tracker) were killed before they finished: 40 and 20, or 200 and 100 with
// -tags reliability. After every kill .ccc-progress.md and .ccc-state.json
// are byte for byte the old or the new version (with the Linear tracker,
// the state may also be a later version that only adds the tracker's
// references), every checkpoint record under .ccc/checkpoints reads as a
// record, and the next run succeeds and keeps every edit that landed.
func TestCrashSafety(t *testing.T) {
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("kill delays seeded with %d (rerun with -crash.seed=%d)", seed, seed)
	t.Run("persist", func(t *testing.T) {
		crashLoop(t, seed, crashKills, nil)
	})
	t.Run("linear", func(t *testing.T) {
		srv := linearfake.New()
		defer srv.Close()
		srv.AddIssue("CIA-9", "Crash")
		crashLoop(t, seed+1, crashKillsLinear, srv)
		// However often a delivery was cut short, one comment remains.
		assert.Len(t, srv.Comments("CIA-9"), 1)
	})
}

// crashStats says where the kills landed.
type crashStats struct {
	finished, beforeWrites, betweenWrites, afterWrites, tempLeft int
}

func (s crashStats) killed() int { return s.beforeWrites + s.betweenWrites + s.afterWrites }

func crashLoop(t *testing.T, seed uint64, kills int, srv *linearfake.Server) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	root := t.TempDir()
	var extra []string
	if srv != nil {
		extra = []string{"LINEAR_API_URL=" + srv.URL, "LINEAR_API_KEY=" + linearfake.APIKey}
	}
	p := newCCCProc(root, extra...)
	base := time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)
	clock := func(n int) string { return "CCC_NOW=" + base.Add(time.Duration(n)*time.Second).Format(time.RFC3339) }
	progPath, statePath := filepath.Join(root, progress.FileName), state.Path(root)

	var ran time.Duration // total time of the runs that were not killed
	runs := 0
	timed := func(q cccProc, args ...string) (int, string) {
		began := time.Now()
		code, _, stderr := q.run(t, args...)
		ran += time.Since(began)
		runs++
		return code, stderr
	}
	code, stderr := timed(p.with(clock(0)), "checkpoint", "--profile", "automated", "--issue", "CIA-9", "--current", "start")
	require.Equal(t, 0, code, stderr)

	refDir := t.TempDir()
	var landed []string
	var st crashStats
	tempSeen := map[string]bool{}
	records := 0
	var window time.Duration
	// A run that finishes before its kill does not count; the bound stops a
	// machine too fast for any kill to land.
	for i := 0; st.killed() < kills; i++ {
		require.Less(t, i, 5*kills, "too few kills land: runs finish in under %s", window)
		task := fmt.Sprintf("task %03d", i)
		args := []string{"checkpoint", "--profile", "automated", "--add-task", task}
		now := clock(2*i + 1)
		oldProg, oldState := readOrNil(t, progPath), readOrNil(t, statePath)
		wantProg, wantState := referenceRun(t, refDir, oldProg, oldState, now, args)

		cmd := p.with(now).cmd(args...)
		require.NoError(t, cmd.Start())
		window = max(minKillWindow, ran/time.Duration(runs)*5/4)
		delay := time.Duration(rng.Float64() * float64(window))
		time.Sleep(delay)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		killed := ws.Signaled()

		gotProg, gotState := readOrNil(t, progPath), readOrNil(t, statePath)
		progNew := bytes.Equal(gotProg, wantProg)
		if !progNew && !bytes.Equal(gotProg, oldProg) {
			t.Fatalf("run %d, killed after %s: %s is neither the old nor the new version:\n%s", i, delay, progress.FileName, gotProg)
		}
		stateNew := bytes.Equal(gotState, wantState) || (srv != nil && sameBeyondRefs(t, gotState, wantState))
		if !stateNew && !bytes.Equal(gotState, oldState) {
			t.Fatalf("run %d, killed after %s: %s is neither the old nor the new version:\n%s", i, delay, state.FileName, gotState)
		}
		records += checkRecords(t, root)
		if !killed {
			require.True(t, cmd.ProcessState.Success(), "run %d was not killed, yet failed", i)
			require.True(t, progNew && stateNew, "run %d finished: both files are the new version", i)
		}
		switch {
		case !killed:
			st.finished++
		case !progNew && !stateNew:
			st.beforeWrites++
		case progNew && !stateNew:
			st.betweenWrites++
		default:
			st.afterWrites++
		}
		if progNew {
			landed = append(landed, task)
		}
		for _, name := range tempFiles(t, root) {
			if !tempSeen[name] {
				tempSeen[name] = true
				st.tempLeft++
			}
		}

		// The next run finishes, whatever the kill left behind (a temp
		// file, a lock file), and keeps every edit that landed.
		after := fmt.Sprintf("after %03d", i)
		code, stderr := timed(p.with(clock(2*i+2)), "checkpoint", "--profile", "automated", "--add-task", after)
		require.Equal(t, 0, code, "run after kill %d (after %s):\n%s", i, delay, stderr)
		landed = append(landed, after)
		doc, err := progress.Parse(readOrNil(t, progPath))
		require.NoError(t, err)
		require.Equal(t, landed, taskTexts(doc.Remaining), "run after kill %d: every edit that landed is kept", i)
	}
	t.Logf("%d runs killed (delays spread over up to %s; %d more finished first): %d before writing, %d between the progress and the state write, %d after both (tracker step or exit); %d temp files left by kills; %d record reads checked",
		st.killed(), window.Round(time.Millisecond), st.finished, st.beforeWrites, st.betweenWrites, st.afterWrites, st.tempLeft, records)

	// Temp files a kill left behind do not pile up: once they are stale,
	// the next run removes them.
	for _, rel := range tempFiles(t, root) {
		old := time.Now().Add(-time.Hour)
		require.NoError(t, os.Chtimes(filepath.Join(root, rel), old, old))
	}
	code, _, stderr = p.with(clock(1<<20)).run(t, "checkpoint", "--profile", "automated", "--current", "wrap up")
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, tempFiles(t, root), "stale temp files are removed")
	if srv != nil {
		code, _, stderr = p.run(t, "sync")
		assert.Equal(t, 0, code, stderr)
	}
}

func taskTexts(tasks []progress.Task) []string {
	var out []string
	for _, task := range tasks {
		out = append(out, task.Text)
	}
	return out
}

// referenceRun is the run a kill interrupts, carried out in-process on a
// copy of the two files, with the tracker skipped: what the files hold once
// the persist step is through.
func referenceRun(t *testing.T, dir string, prog, st []byte, now string, args []string) ([]byte, []byte) {
	t.Helper()
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for name, data := range map[string][]byte{progress.FileName: prog, state.FileName: st} {
		if data != nil {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
		}
	}
	env := map[string]string{"CCC_PROJECT_ROOT": dir, "CCC_NOW": strings.TrimPrefix(now, "CCC_NOW="), "NO_COLOR": "1"}
	getenv := func(k string) string { return env[k] }
	var out bytes.Buffer
	f := &Factory{
		IO:     IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out},
		Getenv: getenv, Getwd: func() (string, error) { return dir, nil }, Now: clock(getenv),
		HTTPClient: http.DefaultClient,
	}
	code := run(append(append([]string(nil), args...), "--skip-tracker"), f)
	require.Equal(t, 0, code, out.String())
	return readOrNil(t, filepath.Join(dir, progress.FileName)), readOrNil(t, state.Path(dir))
}

// sameBeyondRefs reports whether two state files are valid and differ only
// in what the tracker step records: the sinks' references and
// checkpointCommentId.
func sameBeyondRefs(t *testing.T, got, want []byte) bool {
	t.Helper()
	strip := func(data []byte) []byte {
		st, err := state.Parse(data)
		if err != nil {
			return nil
		}
		st.Delete("checkpointCommentId")
		var sec map[string]json.RawMessage
		if _, err := st.Get("ccc", &sec); err != nil {
			return nil
		}
		delete(sec, "refs")
		require.NoError(t, st.Set("ccc", sec))
		out, err := st.Marshal()
		require.NoError(t, err)
		return out
	}
	g, w := strip(got), strip(want)
	return g != nil && bytes.Equal(g, w)
}

// TestStaleTempFilesRemoved plays the leftovers of processes killed between
// creating a temp file and renaming it over its target: a run removes the
// stale ones, and leaves a fresh one alone, since it may belong to a write
// in flight.
func TestStaleTempFilesRemoved(t *testing.T) {
	root := t.TempDir()
	p := newCCCProc(root)
	code, _, stderr := p.run(t, "checkpoint", "--profile", "automated", "--issue", "CIA-9", "--current", "start")
	require.Equal(t, 0, code, stderr)

	stale := []string{
		"." + progress.FileName + ".tmp-1804289383",
		"." + state.FileName + ".tmp-846930886",
		filepath.Join(state.Dir, state.BackupDir, "."+progress.FileName+".20261121T134500.000000000Z.tmp-1681692777"),
		filepath.Join(state.Dir, state.OutboxDir, ".linear-CIA-9-main-0a1b2c3d.json.tmp-1714636915"),
	}
	fresh := "." + state.FileName + ".tmp-424238335"
	old := time.Now().Add(-time.Hour)
	for _, rel := range append(stale, fresh) {
		path := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte("# Session Progress\n\n## Compl"), 0o644)) // torn
		if rel != fresh {
			require.NoError(t, os.Chtimes(path, old, old))
		}
	}

	code, _, stderr = p.run(t, "checkpoint", "--profile", "automated", "--add-task", "next")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{fresh}, tempFiles(t, root), "stale temp files are removed, a fresh one is kept")
	_, err := progress.Parse(readOrNil(t, filepath.Join(root, progress.FileName)))
	assert.NoError(t, err)
	_, err = state.Parse(readOrNil(t, state.Path(root)))
	assert.NoError(t, err)
}
