package hook

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
)

// ReadStdin reads a hook's input, bounded in size (at most max bytes) and
// in time (wait): a host that keeps the pipe open cannot hang a hook. What
// arrived by then is used when it is a whole JSON value. warning, when not
// empty, is the one line to print; ok is false when there is no input to
// act on.
func ReadStdin(in io.Reader, max int64, wait time.Duration) (data []byte, warning string, ok bool) {
	type read struct {
		data []byte
		err  error
	}
	var (
		mu  sync.Mutex
		buf []byte
	)
	done := make(chan read, 1)
	go func() {
		r := io.LimitReader(in, max+1)
		chunk := make([]byte, 32<<10)
		for {
			n, err := r.Read(chunk)
			mu.Lock()
			buf = append(buf, chunk[:n]...)
			mu.Unlock()
			if err == io.EOF {
				done <- read{data: buf}
				return
			}
			if err != nil {
				done <- read{err: err}
				return
			}
		}
	}()
	var got read
	select {
	case got = <-done:
	case <-time.After(wait):
		// The reader goroutine stays blocked on the pipe; the hook ends
		// long before that matters.
		mu.Lock()
		data := slices.Clone(buf)
		mu.Unlock()
		if int64(len(data)) > max || !json.Valid(data) {
			return nil, fmt.Sprintf("stdin not closed after %s, and the %d bytes read are not a whole JSON object; nothing done", wait, len(data)), false
		}
		return data, fmt.Sprintf("stdin not closed after %s; going on with the %d bytes read", wait, len(data)), true
	}
	if got.err != nil {
		return nil, fmt.Sprintf("stdin: %v", got.err), false
	}
	if int64(len(got.data)) > max { // the rest is left unread
		return nil, fmt.Sprintf("stdin: over %d MB, not a hook input; ignored", max>>20), false
	}
	return got.data, "", true
}
