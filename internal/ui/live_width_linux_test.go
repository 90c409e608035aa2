//go:build linux

package ui

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestTermWidthOfATerminal: on a real terminal the live line is as wide as
// the terminal is (and follows a resize), whatever $COLUMNS says; 80 is
// only the guess when nothing says more.
func TestTermWidthOfATerminal(t *testing.T) {
	t.Parallel()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	resize := func(cols uint16) {
		require.NoError(t, unix.IoctlSetWinsize(int(ptmx.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: cols}))
	}
	noEnv := ""
	resize(132)
	assert.Equal(t, 132, TermWidth(ptmx, noEnv))
	assert.Equal(t, 132, TermWidth(ptmx, "100"), "the terminal knows better than COLUMNS")
	resize(200)
	width := func() int { return TermWidth(ptmx, noEnv) }
	assert.Equal(t, 200, width(), "a resized window is followed")

	// The live line uses the whole width: nothing clipped at 80.
	long := strings.Repeat("x", 150)
	var out bytes.Buffer
	l := NewLiveLine(&out, true, "", width)
	l.Show("%s", long)
	assert.Contains(t, out.String(), long)
}
