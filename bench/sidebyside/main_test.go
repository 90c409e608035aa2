package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	c, err := parse("stop|/tmp/p|/tmp/in.json|ccc hook stop")
	require.NoError(t, err)
	assert.Equal(t, spec{name: "stop", dir: "/tmp/p", stdin: "/tmp/in.json", args: []string{"ccc", "hook", "stop"}}, c)
	for _, bad := range []string{"", "a|b|c", "|d|s|cmd", "n|d|s|  "} {
		_, err := parse(bad)
		assert.Error(t, err, bad)
	}
}

// {i} differs on every run, so a checkpoint's step changes each time.
func TestArgvRun(t *testing.T) {
	c, err := parse("cp|||ccc checkpoint --next step{i}")
	require.NoError(t, err)
	assert.Equal(t, []string{"ccc", "checkpoint", "--next", "step7"}, c.argv(7))
	assert.Equal(t, "step8", c.argv(8)[3])
}

// Every case runs warmup + runs times, in its directory, with its input; a
// failing command stops the measure with its stderr.
func TestMeasure(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	require.NoError(t, os.WriteFile(in, []byte("x\n"), 0o600))
	log := filepath.Join(dir, "log")
	a, err := parse("a|" + dir + "|" + in + "|sh -c cat>>log")
	require.NoError(t, err)
	b, err := parse("b|" + dir + "||sh -c echo>>log")
	require.NoError(t, err)
	res, err := measure([]spec{a, b}, 3, 1)
	require.NoError(t, err)
	got, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Equal(t, "x\n\nx\n\nx\n\nx\n\n", string(got), "round robin, 1 warm-up and 3 runs each, stdin given")
	require.Len(t, res, 2)
	assert.Equal(t, "a", res[0].name)
	assert.Greater(t, res[0].wall, time.Duration(0))

	bad, err := parse("bad|||sh -c echo_oops>&2;exit_3")
	require.NoError(t, err)
	bad.args = []string{"sh", "-c", "echo oops >&2; exit 3"}
	_, err = measure([]spec{bad}, 1, 0)
	assert.ErrorContains(t, err, "oops")
}

func TestMedian(t *testing.T) {
	assert.Equal(t, 3*time.Millisecond, median([]time.Duration{5 * time.Millisecond, time.Millisecond, 3 * time.Millisecond}))
}
