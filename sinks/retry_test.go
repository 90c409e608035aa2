package sinks

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

type fail struct {
	permanent bool
	wait      time.Duration
	name      string
}

func (f *fail) Permanent() bool           { return f.permanent }
func (f *fail) RetryAfter() time.Duration { return f.wait }

func TestRetry(t *testing.T) {
	// Context deadlines run on the real clock; Retry compares with p.Now.
	now := time.Now()
	tests := []struct {
		name     string
		script   []*fail // one per attempt; nil = success
		deadline time.Duration
		attempts int
		waits    int
		want     string // name of the failure returned, "" for success
	}{
		{"success at once", []*fail{nil}, 0, 1, 0, ""},
		{"transient then success", []*fail{{name: "503"}, {name: "503"}, nil}, 0, 3, 2, ""},
		{"permanent: no retry", []*fail{{name: "401", permanent: true}, nil}, 0, 1, 0, "401"},
		{"out of attempts", []*fail{{name: "a"}, {name: "b"}, {name: "c"}, {name: "d"}}, 0, 3, 2, "c"},
		{"server hint past the deadline: fail at once", []*fail{{name: "rate", wait: 40 * time.Second}, nil}, 10 * time.Second, 1, 0, "rate"},
		{"server hint inside the deadline is honoured", []*fail{{name: "rate", wait: 2 * time.Second}, nil}, 10 * time.Second, 2, 1, ""},
		{"no deadline: over a minute is not waited", []*fail{{name: "rate", wait: 2 * time.Minute}, nil}, 0, 1, 0, "rate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, now.Add(tt.deadline))
				defer cancel()
			}
			var waited []time.Duration
			p := RetryPolicy{Initial: 100 * time.Millisecond, Max: time.Second, MaxAttempts: 3, Now: func() time.Time { return now },
				Sleep: func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil }}
			n := 0
			got := Retry(ctx, p, func() *fail { n++; return tt.script[n-1] }, func(last *fail) *fail { return &fail{name: "ended"} })
			assert.Equal(t, tt.attempts, n, "attempts")
			assert.Len(t, waited, tt.waits)
			for _, w := range waited {
				assert.LessOrEqual(t, w, 2*time.Second, "a wait never exceeds max(backoff, hint)")
			}
			if tt.want == "" {
				assert.Nil(t, got)
			} else {
				assert.Equal(t, tt.want, got.name)
			}
		})
	}
}

func TestHumanDuration(t *testing.T) {
	for _, tt := range []struct {
		d, unit time.Duration
		want    string
	}{
		{40 * time.Second, time.Second, "40s"},
		{39*time.Second + time.Millisecond, time.Second, "40s"},
		{time.Minute, time.Second, "60s"},
		{150 * time.Second, time.Second, "2m30s"},
		{time.Hour, time.Second, "1h"},
		{2 * time.Minute, time.Second, "2m"},
		{90 * time.Minute, time.Second, "1h30m"},
		{300 * time.Millisecond, time.Millisecond, "300ms"},
	} {
		assert.Equal(t, tt.want, HumanDuration(tt.d, tt.unit))
	}
	assert.Equal(t, "Rate limit &exceeded", Short("  Rate limit &amp;exceeded.\n"))
}

func TestContextCause(t *testing.T) {
	expired := func(parent context.Context) context.Context {
		ctx, cancel := context.WithDeadline(parent, time.Now().Add(-time.Second))
		t.Cleanup(cancel)
		return ctx
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	set, stop := WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	tests := []struct {
		name     string
		ctx      context.Context
		measured time.Duration
		want     string
	}{
		{"canceled", canceled, time.Second, "canceled"},
		{"measured", expired(context.Background()), 299*time.Millisecond + time.Microsecond, "timeout after 300ms"},
		{"the timeout set wins over the time left", expired(set), 9*time.Second + 998*time.Millisecond, "timeout after 10s"},
		{"unknown", expired(context.Background()), 0, "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ContextCause(tt.ctx, tt.measured))
		})
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                              0,
		"40":                            40 * time.Second,
		"0.5":                           500 * time.Millisecond,
		"-3":                            0,
		"soon":                          0,
		"Sat, 21 Nov 2026 13:46:30 GMT": 90 * time.Second,
		"Sat, 21 Nov 2026 13:00:00 GMT": 0,
	} {
		h := http.Header{}
		if v != "" {
			h.Set("Retry-After", v)
		}
		assert.Equal(t, want, RetryAfterHeader(h, now), "%q", v)
	}
}

func TestRateLimitHeaders(t *testing.T) {
	h := http.Header{}
	h.Set("X-Ratelimit-Limit", "5000")
	h.Set("X-Ratelimit-Remaining", "12")
	h.Set("X-Ratelimit-Reset", "1700000000")
	h.Set("X-RateLimit-Requests-Limit", "1500")
	h.Set("X-RateLimit-Requests-Remaining", "1499")
	h.Set("X-RateLimit-Requests-Reset", "1700000000123")
	assert.Equal(t, RateLimit{Known: true, Limit: 5000, Remaining: 12, Reset: time.Unix(1700000000, 0)},
		RateLimitHeaders(h, "X-Ratelimit-", time.Second))
	assert.Equal(t, RateLimit{Known: true, Limit: 1500, Remaining: 1499, Reset: time.UnixMilli(1700000000123)},
		RateLimitHeaders(h, "X-RateLimit-Requests-", time.Millisecond))
	assert.Equal(t, RateLimit{}, RateLimitHeaders(nil, "X-Ratelimit-", time.Second))
	h.Del("X-Ratelimit-Reset")
	assert.Equal(t, RateLimit{Known: true, Limit: 5000, Remaining: 12}, RateLimitHeaders(h, "X-Ratelimit-", time.Second))
}

// Linear's reset is in milliseconds, but a number too small to be one is
// read as seconds; an absent or unreadable header is no time at all.
func TestResetHeader(t *testing.T) {
	h := http.Header{}
	h.Set("Ms", "1700000000123")
	h.Set("S", "1700000000")
	h.Set("Bad", "soon")
	assert.Equal(t, time.UnixMilli(1700000000123), ResetHeader(h, "Ms", 0))
	assert.Equal(t, time.Unix(1700000000, 0), ResetHeader(h, "S", 0))
	assert.Equal(t, time.Unix(1700000000, 0), ResetHeader(h, "S", time.Second))
	assert.True(t, ResetHeader(h, "Bad", 0).IsZero())
	assert.True(t, ResetHeader(h, "Absent", time.Second).IsZero())
}

func TestPercentEncode(t *testing.T) {
	tests := []struct{ in, keep, want string }{
		{"main", "-._", "main"},
		{"main 2", "-._", "main%202"},
		{"a  b", "-._", "a%20%20b"},
		{"wörker/1", "-._", "wörker%2F1"},
		{"wörker/1", "/", "wörker/1"},
		{"ma`in", "-._", "ma%60in"},
		{"x\xffy", "-._", "x%FFy"},
		{"x\xfey", "-._", "x%FEy"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, PercentEncode(tt.in, tt.keep), "%q", tt.in)
	}
}
