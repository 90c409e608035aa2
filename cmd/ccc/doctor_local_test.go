package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/outbox"
)

const doctorDoc = "# Session Progress\n\n**Issue:** CIA-3\n\n## Completed Tasks\n\n## Current Task\n- a\n\n" +
	"## Remaining Tasks\n\n## Decisions Made\n\n## Blockers\n\n## Continuation Prompt\nResume CIA-3.\n"

const doctorRecord = `{"schemaVersion": 1, "id": "main-1", "agent": "main", "status": "in_progress"}`

// runDoctor runs ccc doctor in root, offline (no credentials), and returns
// its exit status and output.
func runDoctor(t *testing.T, root string, args ...string) (int, string) {
	t.Helper()
	env := map[string]string{"CCC_PROJECT_ROOT": root, "NO_COLOR": "1"}
	var out, errOut bytes.Buffer
	f := &Factory{
		IO:     IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Getenv: func(k string) string { return env[k] },
		Getwd:  func() (string, error) { return root, nil },
		Now:    time.Now,
	}
	code := run(append([]string{"doctor"}, args...), f)
	return code, out.String() + errOut.String()
}

func writeIn(t *testing.T, root, rel, content string) string {
	t.Helper()
	p := filepath.Join(root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// ccc doctor checks the files a checkpoint reads and writes, a line each:
// any that is broken is a FAIL line with its path (and line) and a hint,
// and exit status 1, even with every tracker unconfigured (offline).
func TestDoctorLocalChecks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root string)
		code  int
		want  []string
	}{
		{"healthy", func(t *testing.T, root string) {}, 0, []string{
			"✓ progress: .ccc-progress.md is valid (task 1 of 1)\n",
			"✓ state: .ccc-state.json is a JSON object\n",
			"✓ record: record of agent main decodes (in_progress)\n",
			"✓ outbox: 0 queued update(s) decode\n",
			"✓ writable: the project root, .ccc and its folders are writable\n",
			"✓ temp files: no leftover temp files\n",
			"✓ locks: none held (a lock is released when its process ends, so none is stale)\n",
			"! linear: Linear not configured: LINEAR_API_KEY not set\n",
		}},
		{"truncated state", func(t *testing.T, root string) {
			writeIn(t, root, state.FileName, "{\n  \"linearIssue\": \"CIA-3\",\n  \"ccc\": {\"chec")
		}, 1, []string{
			"X state: .ccc-state.json:3:16: not valid JSON: unexpected end of JSON input\n    hint: ",
		}},
		{"state whose ccc key is not an object", func(t *testing.T, root string) {
			writeIn(t, root, state.FileName, `{"ccc": 5}`)
		}, 1, []string{"X state: .ccc-state.json: key ccc: "}},
		{"corrupt record", func(t *testing.T, root string) {
			writeIn(t, root, ".ccc/checkpoints/main.json", `{"agent": 5}`)
		}, 1, []string{
			"X record: .ccc/checkpoints/main.json: not a checkpoint record: ",
			"    hint: ccc restore --file record",
		}},
		{"another agent's corrupt record", func(t *testing.T, root string) {
			writeIn(t, root, ".ccc/checkpoints/other.json", `[]`)
		}, 0, []string{"! record: .ccc/checkpoints/other.json: not a JSON object"}},
		{"corrupt outbox entry", func(t *testing.T, root string) {
			writeIn(t, root, ".ccc/outbox/linear-CIA-3-main-0a1b2c3d.json", "{\n  \"sink\": \"linear\",\n  oops\n}\n")
		}, 1, []string{
			"X outbox: .ccc/outbox/linear-CIA-3-main-0a1b2c3d.json:3: invalid character 'o'",
			"    hint: ccc sync moves it aside",
		}},
		{"progress that does not parse", func(t *testing.T, root string) {
			writeIn(t, root, progress.FileName, "# Session Progress\n\x00\n")
		}, 1, []string{"X progress: .ccc-progress.md:2: NUL byte: not a text file\n    hint: "}},
		{"progress with merge conflict markers", func(t *testing.T, root string) {
			writeIn(t, root, progress.FileName, strings.Replace(doctorDoc, "## Current Task\n- a\n",
				"## Current Task\n<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> feature\n", 1))
		}, 1, []string{"X progress: .ccc-progress.md:8: unresolved merge conflict (3 marker lines, the first here); fix it by hand"}},
		{"progress with none of the known sections", func(t *testing.T, root string) {
			writeIn(t, root, progress.FileName, "# Notes\n\nsome text\n")
		}, 1, []string{"X progress: .ccc-progress.md:1: none of the sections ccc knows"}},
		{"held lock", func(t *testing.T, root string) {
			unlock, err := projectfs.Lock(context.Background(), root)
			require.NoError(t, err)
			t.Cleanup(unlock)
		}, 0, []string{"✓ locks: .ccc/lock is held by a running ccc process\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeIn(t, root, progress.FileName, doctorDoc)
			writeIn(t, root, state.FileName, `{"linearIssue": "CIA-3"}`)
			writeIn(t, root, ".ccc/checkpoints/main.json", doctorRecord)
			require.NoError(t, os.MkdirAll(filepath.Join(root, ".ccc/outbox"), 0o755))
			tc.setup(t, root)
			code, out := runDoctor(t, root)
			for _, w := range tc.want {
				assert.Contains(t, out, w)
			}
			assert.Equal(t, tc.code, code, out)
			if tc.code == 0 {
				assert.NotContains(t, out, "\nX ")
			}
		})
	}
}

// Doctor removes the temp files of a write killed before its rename (older
// than a minute, held by no process) and says so; a young one, or one a
// live writer holds, is left alone.
func TestDoctorRemovesStaleTempFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeIn(t, root, progress.FileName, doctorDoc)
	aged := func(rel string, age time.Duration) string {
		p := writeIn(t, root, rel, "{\"linearIss")
		old := time.Now().Add(-age)
		require.NoError(t, os.Chtimes(p, old, old))
		return p
	}
	stale := aged("."+state.FileName+".tmp-846930886", 2*time.Minute)
	young := aged("."+state.FileName+".tmp-424238335", 10*time.Second)
	held := aged("."+progress.FileName+".tmp-1681692777", time.Hour)
	f, err := os.Open(held)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))

	code, out := runDoctor(t, root)
	assert.Contains(t, out, "! temp files: removed 1 temp file(s) left by an interrupted write: ..ccc-state.json.tmp-846930886\n")
	assert.Contains(t, out, "✓ temp files: 2 temp file(s) of a write in progress left alone\n")
	assert.Equal(t, 0, code, out)
	assert.NoFileExists(t, stale)
	assert.FileExists(t, young)
	assert.FileExists(t, held)
}

const doctorROEnv = "CCC_TEST_DOCTOR_RO_ROOT"

// A .ccc the user cannot write is a FAIL line naming the folders and the
// permission error. Root ignores permissions, so as root the ccc binary
// (this test binary, named ccc) runs as nobody.
func TestDoctorReadOnlyCCC(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "project")
	writeIn(t, root, progress.FileName, doctorDoc)
	require.NoError(t, os.MkdirAll(filepath.Join(root, projectfs.Dir, outbox.Dir), 0o755))
	require.NoError(t, os.Chmod(filepath.Join(root, projectfs.Dir, outbox.Dir), 0o555))
	require.NoError(t, os.Chmod(filepath.Join(root, projectfs.Dir), 0o555))
	require.NoError(t, os.Chmod(root, 0o777)) // only .ccc is read-only, whoever runs
	t.Cleanup(func() {
		_ = os.Chmod(filepath.Join(root, projectfs.Dir), 0o755)
		_ = os.Chmod(filepath.Join(root, projectfs.Dir, outbox.Dir), 0o755)
	})
	code, out := doctorAsNobody(t, base, root)
	assert.Contains(t, out, "X writable: cannot create a file in .ccc, .ccc/outbox: permission denied\n    hint: ")
	assert.Equal(t, 1, code, out)
}

// TestDoctorReadOnlyProjectRoot: a project root ccc cannot write fails
// every checkpoint (the progress and state files are replaced through a
// temp file beside them), so doctor fails too, even with .ccc writable.
func TestDoctorReadOnlyProjectRoot(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "project")
	writeIn(t, root, progress.FileName, doctorDoc)
	writeIn(t, root, state.FileName, `{"linearIssue": "CIA-3"}`)
	require.NoError(t, os.Mkdir(filepath.Join(root, projectfs.Dir), 0o777))
	require.NoError(t, os.Chmod(filepath.Join(root, projectfs.Dir), 0o777)) // past the umask
	require.NoError(t, os.Chmod(root, 0o555))
	t.Cleanup(func() { _ = os.Chmod(root, 0o755) })
	code, out := doctorAsNobody(t, base, root)
	assert.Contains(t, out, "X writable: cannot create a file in "+root+": permission denied\n    hint: ")
	assert.Equal(t, 1, code, out)
}

// doctorAsNobody runs ccc doctor in root, which is in base, so that
// permissions apply: as itself, or, when the test runs as root (which
// ignores permissions), as the ccc binary (this test binary) run by nobody.
func doctorAsNobody(t *testing.T, base, root string) (int, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return runDoctor(t, root)
	}
	// go test keeps its binary where only root can enter: copy it, as ccc,
	// somewhere nobody can run it.
	for d := base; d != filepath.Dir(d); d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			require.NoError(t, os.Chmod(d, fi.Mode().Perm()|0o005))
			perm := fi.Mode().Perm()
			t.Cleanup(func() { _ = os.Chmod(d, perm) })
		}
	}
	self, err := os.Executable()
	require.NoError(t, err)
	data, err := os.ReadFile(self)
	require.NoError(t, err)
	bin := filepath.Join(base, "ccc")
	require.NoError(t, os.WriteFile(bin, data, 0o755))
	var out []byte
	// A parallel test's fork can still hold bin's write descriptor for a
	// moment (until its exec closes it): exec then fails with ETXTBSY.
	for try := 0; ; try++ {
		cmd := exec.Command(bin, "doctor")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "CCC_PROJECT_ROOT=" + root, "NO_COLOR=1"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err = cmd.CombinedOutput()
		if !errors.Is(err, syscall.ETXTBSY) || try == 20 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case err == nil:
	case assert.ErrorAs(t, err, &ee):
		code = ee.ExitCode()
	default:
		t.Skipf("cannot run as uid 65534: %v", err)
	}
	return code, string(out)
}
