package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/state/records"
)

// manyRecord is the i-th record of TestStatusManyRecords: every shape
// `ccc status` reads, in turn (statuses, ages, heartbeats, drift, subtasks
// with outputs, errors, text that needs escapes, a credential to redact,
// imported keys).
func manyRecord(i int, head string) *records.Record {
	r := &records.Record{
		SchemaVersion: records.SchemaVersion, ID: fmt.Sprintf("agent-%03d-CIA-%d-20261121-134500", i, i),
		Agent: fmt.Sprintf("agent-%03d", i), SessionID: fmt.Sprintf("session-%d", i), Issue: fmt.Sprintf("CIA-%d", i),
		Status: records.StatusInProgress, Phase: "execution",
		CurrentStep: fmt.Sprintf("task %d: migrate endpoint /api/v1/resource%d", i, i),
		UpdatedAt:   agT0.Add(-time.Duration(i) * time.Minute), CreatedAt: agT0.Add(-24 * time.Hour),
		Heartbeat:          records.Beat{IntervalSeconds: 900},
		ResumeInstructions: fmt.Sprintf("Resume CIA-%d.", i),
	}
	switch {
	case i%11 == 5:
		r.Status, r.CompletedAt = records.StatusComplete, r.UpdatedAt
	case i%13 == 7:
		r.Status = records.StatusFailed
	case i%7 == 3:
		r.Status = records.StatusBlocked
		r.Errors = []records.Error{{Type: "blocker", Message: "waiting on <review> & \"approval\"", Timestamp: r.UpdatedAt, Blocking: true}}
	}
	if i%5 == 0 {
		r.Heartbeat.LastBeat = agT0.Add(-time.Duration(i%40) * time.Minute)
	}
	switch i % 4 {
	case 0:
		r.Branch, r.Head = "main", head
	case 1:
		r.Branch, r.Head = "main", "0123456789abcdef0123456789abcdef01234567"
	case 2:
		r.Branch = fmt.Sprintf("agent-%d", i)
	}
	switch i % 6 {
	case 1:
		r.Issue = ""
	case 2:
		r.CurrentStep = fmt.Sprintf("écrire le \"parseur\" \\ étape\t%d — ünïcode", i)
	case 3:
		r.CurrentStep = "deploy with token ghp_" + strings.Repeat("a1B2", 9)
	case 4:
		r.CurrentStep = ""
	}
	total := i % 9
	for k := range total {
		st := "pending"
		switch {
		case k < total/2:
			st = "completed"
			r.CompletedSteps = append(r.CompletedSteps, fmt.Sprintf("step %d", k))
		case k == total/2:
			st = "in_progress"
		default:
			r.NextSteps = append(r.NextSteps, fmt.Sprintf("step %d", k))
		}
		it := records.Subtask{ID: fmt.Sprintf("step %d", k), Status: st}
		if k%3 == 1 {
			out := fmt.Sprintf("wrote file%d.go", k)
			it.Output = &out
		}
		r.Subtasks.Items = append(r.Subtasks.Items, it)
	}
	r.Subtasks.Total, r.Subtasks.Completed = total, total/2
	if total > 0 {
		r.Subtasks.Percent = 100 * (total / 2) / total
	}
	if i%10 == 9 {
		r.FilesModified = []string{"a.go", "b.go"}
		r.AcceptanceCriteriaMet = map[string]bool{"tests pass": i%20 == 9}
	}
	return r
}

// TestStatusManyRecords: `ccc status` over a directory of many records of
// every shape, plus the files it must not take for an agent's record (a
// broken one, a newer schemaVersion, a FIFO, a symlink, a takeover's
// crashed record, a complete archive, a record with imported keys, a
// record of schemaVersion 0, failed/): its table, --json and --markdown,
// byte for byte (golden files). Issue 26 changed how the records are read;
// this holds what `ccc status` prints to what it printed before.
func TestStatusManyRecords(t *testing.T) {
	e := newAgEnv(t)
	require.NoError(t, os.MkdirAll(filepath.Join(e.dir, "failed"), 0o755))
	head := e.git(e.main, "rev-parse", "HEAD")
	write := func(name string, data []byte) {
		require.NoError(t, os.WriteFile(filepath.Join(e.dir, name), data, 0o644))
	}
	encode := func(r *records.Record) []byte {
		data, err := records.Encode(r)
		require.NoError(t, err)
		return data
	}
	const n = 300
	for i := range n {
		r := manyRecord(i, head)
		name := r.Agent + ".json"
		if r.Status == records.StatusFailed && i%2 == 1 {
			name = filepath.Join("failed", r.ID+".json")
		}
		write(name, encode(r))
	}
	r := manyRecord(1000, head)
	write("agent-1000-CIA-1000-20261121-134500-complete.json", encode(r))
	r = manyRecord(1001, head)
	write("agent-001_crashed_20261121.json", encode(r))
	write("agent-broken.json", []byte("{not json"))
	write("agent-newer.json", []byte(`{"schemaVersion": 2, "agent": "agent-newer", "status": "in_progress"}`))
	write("agent-old.json", []byte(`{"agent": "agent-old", "status": "in_progress", "issue": "CIA-0", "updatedAt": "2026-11-21T13:40:00Z"}`))
	imported := encode(manyRecord(1002, head))
	imported = []byte(strings.Replace(string(imported), `"agent-1002"`, `"agent-imported", "legacyNote": {"from": "seed 002"}`, 1))
	write("agent-imported.json", imported)
	require.NoError(t, syscall.Mkfifo(filepath.Join(e.dir, "agent-fifo.json"), 0o644))
	require.NoError(t, os.Symlink("agent-004.json", filepath.Join(e.dir, "agent-link.json")))

	e.now = agT0.Add(20 * time.Minute)
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"status_many.txt", []string{"status"}},
		{"status_many.json", []string{"status", "--json"}},
		{"status_many.md", []string{"status", "--markdown"}},
	} {
		code, stdout, stderr := e.run(e.main, tc.args...)
		agGolden(t, tc.golden, fmt.Sprintf("exit %d\n--- stderr\n%s--- stdout\n%s", code, stderr, stdout), e)
	}
}

// TestStatusSyscallsPerRecord counts the system calls `ccc status` makes
// for each record it reads, through strace: 210 records against 10, the
// difference per record. Each record is opened by its name beneath the
// records directory, stat'ed, read once and closed (issue 26: a stat, an
// open that walked the whole path, the poller's registration, a second
// stat and a second read made six).
func TestStatusSyscallsPerRecord(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (apt-get install strace): the syscall count is not checked")
	}
	calls := func(n int) int {
		e := newAgEnv(t)
		require.NoError(t, os.MkdirAll(e.dir, 0o755))
		head := e.git(e.main, "rev-parse", "HEAD")
		for i := range n {
			data, err := records.Encode(manyRecord(i, head))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(e.dir, fmt.Sprintf("agent-%03d.json", i)), data, 0o644))
		}
		log := filepath.Join(t.TempDir(), "strace.log")
		cmd := exec.Command(strace, "-f", "-qq", "-o", log, "-e", "trace=%file,%desc", "ccc", "status")
		cmd.Dir = e.main
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			require.NoError(t, err, "%s", out)
		}
		data, err := os.ReadFile(log)
		require.NoError(t, err)
		count := 0
		for _, line := range strings.Split(string(data), "\n") {
			// A call that another thread interrupted is two lines: count
			// its start only.
			if line != "" && !strings.Contains(line, " resumed>") {
				count++
			}
		}
		return count
	}
	small, large := calls(10), calls(210)
	perRecord := float64(large-small) / 200
	t.Logf("system calls: %d for 10 records, %d for 210: %.2f per record", small, large, perRecord)
	assert.LessOrEqual(t, perRecord, 4.2, "system calls per record: open beneath the directory, fstat, read, close")
}
