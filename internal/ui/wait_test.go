package ui

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestWaiter(t *testing.T) {
	t.Parallel()
	t.Run("a slow wait is shown, then cleared", func(t *testing.T) {
		t.Parallel()
		var out lockedBuffer
		done := NewWaiter(&out, 10*time.Millisecond, func() int { return 80 }).Wait("Linear (CIA-1)")
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(out.String(), "Waiting for Linear (CIA-1)… 0s") && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		done()
		got := out.String()
		assert.Contains(t, got, "\r\x1b[K⠋ Waiting for Linear (CIA-1)… 0s")
		assert.True(t, strings.HasSuffix(got, "\r\x1b[K"), "the line is cleared: %q", got)
		n := len(got)
		done()
		assert.Len(t, out.String(), n, "done twice draws nothing more")
	})
	t.Run("a quick one shows nothing", func(t *testing.T) {
		t.Parallel()
		var out lockedBuffer
		done := NewWaiter(&out, time.Hour, func() int { return 80 }).Wait("Linear (CIA-1)")
		done()
		assert.Empty(t, out.String())
	})
	t.Run("clipped to the terminal", func(t *testing.T) {
		t.Parallel()
		var out lockedBuffer
		done := NewWaiter(&out, 0, func() int { return 20 }).Wait("a very long tracker name indeed")
		for !strings.Contains(out.String(), "…") {
			time.Sleep(5 * time.Millisecond)
		}
		done()
		first := strings.Split(out.String(), "\r\x1b[K")[1]
		assert.LessOrEqual(t, len([]rune(first)), 19)
	})
}
