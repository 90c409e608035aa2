package sinks

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
