package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
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

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/outbox"
	"github.com/ccc-checkpoint/ccc/state/records"
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
// -tags reliability. After every kill .ccc-progress.md, .ccc-state.json and
// the agent's record .ccc/checkpoints/main.json are byte for byte the old or
// the new version (with the Linear tracker, the state may also be a later
// version that only adds the tracker's references), every record in the
// agent's history is byte for byte a version that was current before,
// every file under .ccc/checkpoints reads as a record, and the next run
// succeeds, keeps every edit that landed and regenerates ccc's prompt.
//
// With -short it stops after a tenth of the kills, with a fixed seed; without
// it the seed is new each run. The seed is logged; -crash.seed replays it.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	kills, killsLinear := crashKills, crashKillsLinear
	if testing.Short() {
		kills, killsLinear = max(1, kills/10), max(1, killsLinear/10)
	}
	seed := *crashSeed
	switch {
	case seed != 0:
	case testing.Short():
		// The default run is repeatable: one fixed seed. The long form
		// (CI's own step, -tags reliability) draws a new one each time.
		seed = 1
	default:
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("kill delays seeded with %d (rerun with -crash.seed=%d)", seed, seed)
	t.Run("persist", func(t *testing.T) {
		t.Parallel()
		crashLoop(t, seed, kills, nil)
	})
	t.Run("linear", func(t *testing.T) {
		t.Parallel()
		srv := linearfake.New()
		defer srv.Close()
		srv.AddIssue("CIA-9", "Crash")
		crashLoop(t, seed+1, killsLinear, srv)
		// However often a delivery was cut short, one comment remains.
		assert.Len(t, srv.Comments("CIA-9"), 1)
	})
}

// crashStats says where the kills landed.
type crashStats struct {
	finished, beforeWrites, betweenWrites, beforeRecord, afterWrites, tempLeft int
}

func (s crashStats) killed() int {
	return s.beforeWrites + s.betweenWrites + s.beforeRecord + s.afterWrites
}

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
	recDir := filepath.Join(root, filepath.FromSlash(records.SubDir))
	recPath := records.CurrentPath(recDir, "main")
	// Every version the agent's record has had: what its history may hold.
	recVersions := map[string]bool{}
	histChecked := map[string]bool{}
	noteRecord := func() { recVersions[string(readOrNil(t, recPath))] = true }

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
	noteRecord()

	refDir := t.TempDir()
	var landed []string
	var st crashStats
	tempSeen := map[string]bool{}
	recordsRead := 0
	var window time.Duration
	// A run that finishes before its kill does not count; the bound stops a
	// machine too fast for any kill to land.
	for i := 0; st.killed() < kills; i++ {
		require.Less(t, i, 5*kills, "too few kills land: runs finish in under %s", window)
		task := fmt.Sprintf("task %03d", i)
		args := []string{"checkpoint", "--profile", "automated", "--add-task", task}
		now := clock(2*i + 1)
		oldProg, oldState, oldRec := readOrNil(t, progPath), readOrNil(t, statePath), readOrNil(t, recPath)
		wantProg, wantState, wantRec := referenceRun(t, refDir, oldProg, oldState, oldRec, now, args)

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
		gotRec := readOrNil(t, recPath)
		recNew := bytes.Equal(gotRec, wantRec)
		if !recNew && !bytes.Equal(gotRec, oldRec) {
			t.Fatalf("run %d, killed after %s: the record %s is neither the old nor the new version:\ngot:\n%s\nold:\n%s\nnew:\n%s",
				i, delay, records.SubDir+"/main.json", gotRec, oldRec, wantRec)
		}
		noteRecord()
		checkHistory(t, recDir, recVersions, histChecked, i)
		recordsRead += checkRecords(t, root)
		if !killed {
			require.True(t, cmd.ProcessState.Success(), "run %d was not killed, yet failed", i)
			require.True(t, progNew && stateNew && recNew, "run %d finished: the three files are the new version", i)
		}
		switch {
		case !killed:
			st.finished++
		case !progNew && !stateNew:
			st.beforeWrites++
		case progNew && !stateNew:
			st.betweenWrites++
		case !recNew:
			st.beforeRecord++
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
		noteRecord()
		landed = append(landed, after)
		doc, err := progress.Parse(readOrNil(t, progPath))
		require.NoError(t, err)
		require.Equal(t, landed, taskTexts(doc.Remaining), "run after kill %d: every edit that landed is kept", i)
		// Wherever the kill landed, the prompt is still ccc's and follows the
		// document: whose prompt it is is written in the same rename.
		require.True(t, doc.PromptByCCC(), "run after kill %d: ccc's prompt is still ccc's", i)
		require.Equal(t, doc.GeneratePrompt(nil), doc.ContinuationPrompt, "run after kill %d: the prompt follows the document", i)
	}
	t.Logf("%d runs killed (delays spread over up to %s; %d more finished first): %d before writing, %d between the progress and the state write, %d between the state and the record write, %d after all three (tracker step or exit); %d temp files left by kills; %d record reads checked, %d history records compared",
		st.killed(), window.Round(time.Millisecond), st.finished, st.beforeWrites, st.betweenWrites, st.beforeRecord, st.afterWrites, st.tempLeft, recordsRead, len(histChecked))

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
// copy of the two files and the agent's record, with the tracker skipped:
// what the three hold once the persist step is through. The run is the
// same one: CCC_NOW pins every time in the files, the record's session id
// comes from the copied record, and the automated profile reads no git
// branch or HEAD in a directory outside git, so no field is normalised.
func referenceRun(t *testing.T, dir string, prog, st, rec []byte, now string, args []string) ([]byte, []byte, []byte) {
	t.Helper()
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	recPath := records.CurrentPath(filepath.Join(dir, filepath.FromSlash(records.SubDir)), "main")
	for path, data := range map[string][]byte{
		filepath.Join(dir, progress.FileName): prog, state.Path(dir): st, recPath: rec,
	} {
		if data != nil {
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, data, 0o644))
		}
	}
	env := map[string]string{"CCC_PROJECT_ROOT": dir, "CCC_NOW": strings.TrimPrefix(now, "CCC_NOW="), "NO_COLOR": "1"}
	getenv := func(k string) string { return env[k] }
	var out bytes.Buffer
	f := &Factory{
		IO:     IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out},
		Getenv: getenv, Getwd: func() (string, error) { return dir, nil }, Now: clock(config.ReadEnv(getenv)),
		HTTPClient: http.DefaultClient,
	}
	code := run(append(append([]string(nil), args...), "--skip-tracker"), f)
	require.Equal(t, 0, code, out.String())
	return readOrNil(t, filepath.Join(dir, progress.FileName)), readOrNil(t, state.Path(dir)), readOrNil(t, recPath)
}

// checkHistory fails run i when a record in the main agent's history that
// was not checked before is not byte for byte a version the current record
// had: a replaced record is kept as it was, never torn or rewritten.
func checkHistory(t *testing.T, recDir string, versions, checked map[string]bool, i int) {
	t.Helper()
	dir := filepath.Join(recDir, records.HistoryDir, "main")
	names, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	require.NoError(t, err)
	for _, d := range names {
		name := d.Name()
		if checked[name] || d.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		checked[name] = true
		if data := readOrNil(t, filepath.Join(dir, name)); !versions[string(data)] {
			t.Fatalf("run %d: history record %s is not a version the record had:\n%s", i, name, data)
		}
	}
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
// creating a temp file and renaming it over its target: a run removes those
// older than a minute, and leaves alone a fresh one and one a live process
// holds (flock), since they belong to writes in flight.
func TestStaleTempFilesRemoved(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := newCCCProc(root)
	code, _, stderr := p.run(t, "checkpoint", "--profile", "automated", "--issue", "CIA-9", "--current", "start")
	require.Equal(t, 0, code, stderr)

	stale := []string{
		"." + progress.FileName + ".tmp-1804289383",
		"." + state.FileName + ".tmp-846930886",
		filepath.Join(projectfs.Dir, projectfs.BackupDir, "."+progress.FileName+".20261121T134500.000000000Z.tmp-1681692777"),
		filepath.Join(projectfs.Dir, outbox.Dir, ".linear-CIA-9-main-0a1b2c3d.json.tmp-1714636915"),
	}
	fresh := "." + state.FileName + ".tmp-424238335"
	held := "." + state.FileName + ".tmp-719885386"
	old := time.Now().Add(-2 * time.Minute)
	for _, rel := range append(stale, fresh, held) {
		path := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte("# Session Progress\n\n## Compl"), 0o644)) // torn
		if rel != fresh {
			require.NoError(t, os.Chtimes(path, old, old))
		}
	}
	// A live writer flocks its temp file until the rename.
	f, err := os.Open(filepath.Join(root, held))
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))

	code, _, stderr = p.run(t, "checkpoint", "--profile", "automated", "--add-task", "next")
	require.Equal(t, 0, code, stderr)
	assert.ElementsMatch(t, []string{fresh, held}, tempFiles(t, root), "stale temp files are removed, a fresh or held one is kept")
	_, err = progress.Parse(readOrNil(t, filepath.Join(root, progress.FileName)))
	assert.NoError(t, err)
	_, err = state.Parse(readOrNil(t, state.Path(root)))
	assert.NoError(t, err)
}
