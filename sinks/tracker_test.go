package sinks

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Every secret is kept out of Cause and the error text, including the text
// of a failure that carries no error of its own.
func TestNewErrorRedacts(t *testing.T) {
	const key, token = "lin_api_secret", "ghp_secret"
	tests := []struct {
		name      string
		cause     string
		err       error
		wantCause string
		wantText  string
	}{
		{"no error", "HTTP 503", nil, "HTTP 503", "linear: op: HTTP 503"},
		{"secret in the cause only", "denied for " + token, nil, "denied for [redacted]", "linear: op: denied for [redacted]"},
		{"secret in the error", "network error", errors.New("dial " + key), "network error", "linear: op: dial [redacted]"},
		{"short secrets are not words to redact", "a b", errors.New("a b"), "a b", "linear: op: a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewError("linear", "op", tt.cause, true, tt.err, key, token, "a", "")
			assert.Equal(t, tt.wantCause, e.Cause)
			assert.True(t, e.Permanent)
			assert.Equal(t, tt.wantCause+": "+tt.wantText, e.Error())
			assert.NotContains(t, fmt.Sprintf("%v %+v", e, errors.Unwrap(e)), "secret")
		})
	}
	wrapped := NewError("github", "op", "timeout", true, context.DeadlineExceeded)
	assert.ErrorIs(t, wrapped, context.DeadlineExceeded)
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
