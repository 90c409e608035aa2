package fakeapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/fakeapi"
)

type fault struct{ name, op string }

type request struct {
	op, fault string
	status    int
}

type script = fakeapi.Script[fault, request]

func begin(s *script, op string) *fakeapi.Call[fault, request] {
	return fakeapi.Begin(s, func(f fault) bool { return f.op == "" || f.op == op },
		func(f fault) request { return request{op: op, fault: f.name} })
}

func TestBeginTakesTheFirstMatch(t *testing.T) {
	tests := []struct {
		name     string
		queued   []fault
		op       string
		want     string
		leftOver int
	}{
		{name: "empty queue", op: "get", want: ""},
		{name: "any op", queued: []fault{{name: "a"}, {name: "b"}}, op: "get", want: "a", leftOver: 1},
		{name: "skips other ops", queued: []fault{{name: "a", op: "post"}, {name: "b"}}, op: "get", want: "b", leftOver: 1},
		{name: "its own op", queued: []fault{{name: "a", op: "post"}, {name: "b"}}, op: "post", want: "a", leftOver: 1},
		{name: "no match", queued: []fault{{name: "a", op: "post"}}, op: "get", want: "", leftOver: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s script
			s.Inject(tc.queued...)
			c := begin(&s, tc.op)
			assert.Equal(t, tc.want, c.Fault.name)
			assert.Equal(t, tc.leftOver, s.PendingFaults())
			c.Update(func(r *request) { r.status = 204 })
			assert.Equal(t, []request{{op: tc.op, fault: tc.want, status: 204}}, s.Requests())
			s.ClearFaults()
			assert.Zero(t, s.PendingFaults())
		})
	}
}

// Requests taking faults at once each take a different one, and the log
// lists them in the order they took them.
func TestScriptConcurrent(t *testing.T) {
	const faults, requests = 50, 200
	var s script
	var wg sync.WaitGroup
	for i := range faults {
		wg.Go(func() { s.Inject(fault{name: strconv.Itoa(i)}) })
	}
	wg.Wait()
	for i := range requests {
		wg.Go(func() {
			c := begin(&s, "get")
			c.Update(func(r *request) { r.status = 200 + i })
			_ = s.RequestCount()
			_ = s.PendingFaults()
		})
	}
	wg.Wait()

	log := s.Requests()
	require.Len(t, log, requests)
	assert.Zero(t, s.PendingFaults())
	taken, updated := map[string]bool{}, map[int]bool{}
	for i, r := range log {
		assert.Equal(t, i < faults, r.fault != "", "entry %d: the faulted requests come first", i)
		assert.False(t, r.fault != "" && taken[r.fault], "fault %s taken twice", r.fault)
		taken[r.fault] = true
		assert.False(t, updated[r.status], "entry %d: another request's update", i)
		updated[r.status] = true
	}
	assert.Len(t, taken, faults+1, "every fault, and none")
}

func TestAnswers(t *testing.T) {
	tests := []struct {
		name        string
		handler     func(w http.ResponseWriter, r *http.Request)
		dropped     bool
		status      int
		contentType string
		retryAfter  string
		body        string
	}{
		{
			name: "plain text fault",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fakeapi.WriteFault(w, 503, http.Header{"Retry-After": {"2"}}, "Service Unavailable\n")
			},
			status: 503, contentType: "text/plain; charset=utf-8", retryAfter: "2", body: "Service Unavailable\n",
		},
		{
			name: "JSON fault",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fakeapi.WriteFault(w, 400, nil, ` {"errors": []}`)
			},
			status: 400, contentType: "application/json", body: ` {"errors": []}`,
		},
		{
			name: "no delay",
			handler: func(w http.ResponseWriter, r *http.Request) {
				if fakeapi.Hold(r, 0) {
					w.WriteHeader(204)
				}
			},
			status: 204,
		},
		{
			name:    "dropped",
			handler: func(w http.ResponseWriter, _ *http.Request) { fakeapi.Drop(w) },
			dropped: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(tc.handler))
			defer srv.Close()
			resp, err := http.Get(srv.URL)
			if tc.dropped {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tc.status, resp.StatusCode)
			assert.Equal(t, tc.contentType, resp.Header.Get("Content-Type"))
			assert.Equal(t, tc.retryAfter, resp.Header.Get("Retry-After"))
			assert.Equal(t, tc.body, string(body))
		})
	}
}

// A client that has gone away is not waited for.
func TestHoldGivesUpWithTheClient(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
	assert.False(t, fakeapi.Hold(r, time.Hour))
}
