// Package fakeapi is what the fake trackers (githubfake, gitlabfake, jirafake, linearfake) share:
// a queue of scripted faults with the log of the requests that met them, and
// the parts of an answer a fault decides (holding it back, dropping the
// connection, an error answer instead of the request's own).
package fakeapi

import (
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Script is a fake's queue of faults F and its log of requests R. A fake
// embeds it, so these methods are the fake's own; they are safe for
// concurrent use.
type Script[F, R any] struct {
	mu       sync.Mutex
	faults   []F
	requests []R
}

// Inject queues faults.
func (s *Script[F, R]) Inject(faults ...F) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// PendingFaults says how many injected faults are still unused.
func (s *Script[F, R]) PendingFaults() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.faults)
}

// ClearFaults drops the faults not used yet: the server is healthy again.
func (s *Script[F, R]) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// Requests returns every request received so far.
func (s *Script[F, R]) Requests() []R {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// RequestCount is len(Requests()).
func (s *Script[F, R]) RequestCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Call is one request being answered.
type Call[F, R any] struct {
	// Fault is the fault the request took, the zero F for none.
	Fault F
	// N is the request's place in the log, from 0.
	N int
	s *Script[F, R]
}

// Begin takes the first queued fault that match accepts and logs the
// request that record makes from it (from the zero F when none matched),
// under one lock so that the log lists requests in the order they took
// faults. It is a function, not a method, to stay out of the fakes' API.
func Begin[F, R any](s *Script[F, R], match func(F) bool, record func(F) R) *Call[F, R] {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &Call[F, R]{N: len(s.requests), s: s}
	if i := slices.IndexFunc(s.faults, match); i >= 0 {
		c.Fault = s.faults[i]
		s.faults = slices.Delete(s.faults, i, i+1)
	}
	s.requests = append(s.requests, record(c.Fault))
	return c
}

// Update edits the request's log entry, to record how it was answered.
func (c *Call[F, R]) Update(edit func(*R)) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	edit(&c.s.requests[c.N])
}

// Hold waits d before answering r. It reports false when the client gave
// up first: the request is then neither run nor answered.
func Hold(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	select {
	case <-time.After(d):
		return true
	case <-r.Context().Done():
		return false
	}
}

// Drop closes the connection without an answer.
func Drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("fakeapi: the response writer cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// WriteFault answers status, header and body instead of the request's own
// answer. header goes over the headers w holds; a body that is not JSON goes
// as text/plain, as an edge proxy's error page does.
func WriteFault(w http.ResponseWriter, status int, header http.Header, body string) {
	for k, vs := range header {
		w.Header()[k] = vs
	}
	if !strings.HasPrefix(strings.TrimSpace(body), "{") {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// RetryAfterSeconds is d as a Retry-After header value: whole seconds,
// rounded up, as the trackers send it.
func RetryAfterSeconds(d time.Duration) string {
	return strconv.Itoa(int(math.Ceil(d.Seconds())))
}
