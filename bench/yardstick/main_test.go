package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
)

// The yardstick makes one GraphQL POST, with the key, and fails on an error status.
func TestPost(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.Header.Get("Content-Type")+" "+r.Header.Get("Authorization")+" "+string(body))
		if r.Header.Get("Authorization") != "k" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	require.NoError(t, post(srv.URL, "k"))
	assert.Equal(t, []string{"POST application/json k " + doc}, got)
	assert.ErrorContains(t, post(srv.URL, ""), "401")

	// Against the fake bench/startup.sh uses: one request, answered.
	fake := linearfake.New()
	defer fake.Close()
	require.NoError(t, post(fake.URL, linearfake.APIKey))
	assert.Equal(t, 1, int(fake.RequestCount()))
}
