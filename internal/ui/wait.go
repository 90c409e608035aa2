package ui

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// spinnerFrames turn once every frame interval on the waiting line.
var spinnerFrames = []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

// Waiter shows on a terminal what a command is waiting for, once it has
// waited long enough to be worth a line: a quick request shows nothing, a
// slow one never leaves the user looking at 30 silent seconds. It is for a
// terminal only; the caller decides that (and leaves it out for hooks and
// --json).
type Waiter struct {
	out   io.Writer
	after time.Duration
	frame time.Duration
	width func() int
}

// NewWaiter draws on out after a wait of after, in place, each line at
// most width() columns.
func NewWaiter(out io.Writer, after time.Duration, width func() int) *Waiter {
	return &Waiter{out: out, after: after, frame: 100 * time.Millisecond, width: width}
}

// Wait starts waiting for what ("Linear (CIA-1)"); the returned done ends
// it and clears the line if one was drawn. done returns once nothing more
// will be drawn, so the caller may print right after it.
func (w *Waiter) Wait(what string) (done func()) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	drawn := false
	start := time.Now()
	go func() {
		defer wg.Done()
		timer := time.NewTimer(w.after)
		defer timer.Stop()
		select {
		case <-stop:
			return
		case <-timer.C:
		}
		tick := time.NewTicker(w.frame)
		defer tick.Stop()
		for i := 0; ; i++ {
			secs := int(time.Since(start) / time.Second)
			msg := fmt.Sprintf("%c Waiting for %s… %ds", spinnerFrames[i%len(spinnerFrames)], what, secs)
			fmt.Fprintf(w.out, "\r\x1b[K%s", ClipLine(msg, w.width()-1))
			drawn = true
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			wg.Wait()
			if drawn {
				fmt.Fprint(w.out, "\r\x1b[K")
			}
		})
	}
}
