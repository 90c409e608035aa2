package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/state/records"
)

// vclock is a sink's clock for fault tests: a retry's wait is recorded and
// added to the clock instead of being slept, so a minute of backoff costs
// nothing and the sink's deadline arithmetic still sees it pass.
type vclock struct {
	mu    sync.Mutex
	skew  time.Duration
	waits []time.Duration
}

func (c *vclock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.skew)
}

func (c *vclock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.skew += d
	c.waits = append(c.waits, d)
	return nil
}

func (c *vclock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// cccProc runs the ccc under test (this test binary, which TestMain puts on
// PATH as ccc) in a project, with the caller's environment on top of an
// isolated one.
type cccProc struct {
	root string
	env  []string
}

func newCCCProc(root string, extra ...string) cccProc {
	env := os.Environ()
	isolateGit(func(k, v string) { env = append(env, k+"="+v) }, root)
	env = append(env, "CCC_PROJECT_ROOT="+root, "CCC_NOW=", "CCC_DEBUG=", "LINEAR_API_URL=", "GITHUB_API_URL=",
		// Under -race every process sleeps a second on exit, waiting for
		// late reports; hundreds of short processes cannot afford it.
		strings.TrimSpace("GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	return cccProc{root: root, env: append(env, extra...)}
}

// with returns p with more environment (later values win).
func (p cccProc) with(env ...string) cccProc {
	p.env = append(slices.Clip(p.env), env...)
	return p
}

func (p cccProc) cmd(args ...string) *exec.Cmd {
	return p.cmdContext(context.Background(), args...)
}

func (p cccProc) cmdContext(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "ccc", args...)
	cmd.Dir = p.root
	cmd.Env = p.env
	return cmd
}

// procTimeout fails a ccc run that hangs (on a lock nobody releases, say)
// instead of letting it block the test binary.
const procTimeout = time.Minute

// run runs ccc to the end and returns its exit status, stdout and stderr.
func (p cccProc) run(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), procTimeout)
	defer cancel()
	cmd := p.cmdContext(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "ccc %s: %v", strings.Join(args, " "), err)
		code = ee.ExitCode()
	}
	return code, stdout.String(), stderr.String()
}

// tempFiles lists the temp files of atomic writes (.name.tmp-*) anywhere
// under root.
func tempFiles(t testing.TB, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".tmp-") {
			rel, _ := filepath.Rel(root, path)
			out = append(out, rel)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// readOrNil reads a file; a missing one is nil.
func readOrNil(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	return data
}

// checkRecords fails when a per-agent checkpoint record under
// .ccc/checkpoints cannot be read as a record, and returns how many it read.
func checkRecords(t testing.TB, root string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(root, filepath.FromSlash(records.SubDir)), func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.SkipAll
		}
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") || !strings.HasSuffix(d.Name(), ".json") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if _, _, err := records.Decode(path, data); err != nil {
			t.Errorf("%v\n%s", err, data)
		}
		n++
		return nil
	})
	require.NoError(t, err)
	return n
}
