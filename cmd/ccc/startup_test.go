package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// What every hook and every checkpoint pays before its own work (issue 26):
// the command tree, and the stop hook's work where there is nothing to do.

// TestHookStopStartupAllocations pins what `ccc hook stop` allocates in an
// empty directory with no state, as a Stop hook outside a CCC project runs
// it, start-up (the command tree) included: before NewCmdRootFor built the
// whole tree for it, 1,753 allocations.
func TestHookStopStartupAllocations(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	var stderr bytes.Buffer
	allocs := testing.AllocsPerRun(20, func() {
		stderr.Reset()
		f := &Factory{
			IO:     IOStreams{In: strings.NewReader("{}"), Out: &bytes.Buffer{}, ErrOut: &stderr},
			Getenv: func(k string) string { return vars[k] },
			Getwd:  func() (string, error) { return project, nil },
			Now:    func() time.Time { return hookNow },
		}
		if code := run([]string{"hook", "stop"}, f); code != 0 {
			t.Fatalf("ccc hook stop exited %d", code)
		}
	})
	require.Contains(t, stderr.String(), "no .ccc-state.json", "the stop hook ran to its answer")
	entries, err := os.ReadDir(project)
	require.NoError(t, err)
	require.Empty(t, entries, "a stop with no state writes nothing")
	t.Logf("ccc hook stop, no state: %.0f allocations", allocs)
	const budget = 450
	if allocs > budget {
		t.Errorf("ccc hook stop with no state allocates %.0f times, over the budget of %d", allocs, budget)
	}
}

// TestVersionStartupAllocations pins what `ccc --version` allocates,
// start-up (the command tree) included: 1,617 before NewCmdRootFor built
// the root alone for it.
func TestVersionStartupAllocations(t *testing.T) {
	var stdout bytes.Buffer
	allocs := testing.AllocsPerRun(20, func() {
		stdout.Reset()
		f := &Factory{IO: IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
		if code := run([]string{"--version"}, f); code != 0 {
			t.Fatalf("ccc --version exited %d", code)
		}
	})
	require.True(t, strings.HasPrefix(stdout.String(), "ccc "), "ccc --version printed %q", stdout.String())
	t.Logf("ccc --version: %.0f allocations", allocs)
	const budget = 200
	if allocs > budget {
		t.Errorf("ccc --version allocates %.0f times, over the budget of %d", allocs, budget)
	}
}

// TestNoStateStopSyscalls counts the stat and open system calls of `ccc
// hook stop` where a Stop hook outside a CCC project runs it (stdin {}, an
// empty directory, an empty config directory), through strace, on what is
// in those directories and on relative paths; the runtime's own reads of
// /proc and /sys are left out. It was 18 stats and 1 open, two of the stats
// of "": the stdin's cwd and $CLAUDE_PROJECT_DIR, unset. (The test binary
// standing in for ccc stats "" three more times itself.)
func TestNoStateStopSyscalls(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (apt-get install strace): the syscall count is not checked")
	}
	home, root, cfg := t.TempDir(), t.TempDir(), t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "CCC_CONFIG_DIR="+cfg,
		"CCC_PROJECT_ROOT=", "CLAUDE_PROJECT_DIR=", "PWD="+root)
	log := filepath.Join(t.TempDir(), "strace.log")
	cmd := exec.Command(strace, "-f", "-qq", "-o", log, "-e", "trace=%%stat,open,openat,openat2", "ccc", "hook", "stop")
	cmd.Dir, cmd.Env, cmd.Stdin = root, env, strings.NewReader("{}")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "no .ccc-state.json", "the stop hook ran to its answer")
	data, err := os.ReadFile(log)
	require.NoError(t, err)
	stats, opens := 0, 0
	var calls []string
	for _, line := range strings.Split(string(data), "\n") {
		_, call, ok := strings.Cut(line, " ")
		name, rest, ok2 := strings.Cut(strings.TrimSpace(call), "(")
		_, path, ok3 := strings.Cut(rest, `"`)
		if !ok || !ok2 || !ok3 {
			continue
		}
		path, _, _ = strings.Cut(path, `"`)
		// The directories' ancestors are left out too: how many there are
		// is the temporary directory's depth, not ccc's work.
		mine := !filepath.IsAbs(path) || projectfs.Within(root, path) || projectfs.Within(cfg, path) || projectfs.Within(home, path)
		if !mine {
			continue
		}
		if strings.HasPrefix(name, "open") {
			opens++
		} else {
			stats++
		}
		calls = append(calls, fmt.Sprintf("%s %q", name, path))
	}
	slices.Sort(calls)
	t.Logf("stat calls: %d, open calls: %d:\n  %s", stats, opens, strings.Join(calls, "\n  "))
	assert.LessOrEqual(t, stats, maxNoStateStopStats, "stat calls of a stop with no state")
	assert.LessOrEqual(t, opens, maxNoStateStopOpens, "open calls of a stop with no state")
}

// The budgets of TestNoStateStopSyscalls (go1.26, Linux); lower them as
// work goes.
const (
	maxNoStateStopStats = 16
	maxNoStateStopOpens = 1
)
