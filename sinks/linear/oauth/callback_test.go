package oauth

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCallbackTakesOnlyItsOwnState(t *testing.T) {
	t.Parallel()
	out := make(chan callbackResult, 1)
	srv := httptest.NewServer(callbackHandler("right", out))
	defer srv.Close()
	get := func(q string) int {
		resp, err := http.Get(srv.URL + "/callback?" + q)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusBadRequest, get("code=c1&state=wrong"))
	assert.Equal(t, http.StatusBadRequest, get("code=c1"))
	assert.Empty(t, out, "a foreign state is not this login's answer")
	assert.Equal(t, http.StatusOK, get("code=c2&state=right"))
	assert.Equal(t, http.StatusConflict, get("code=c3&state=right"))
	r := <-out
	assert.Equal(t, "c2", r.code)
	assert.NoError(t, r.err)
}

func TestCallbackCarriesARefusal(t *testing.T) {
	t.Parallel()
	out := make(chan callbackResult, 1)
	srv := httptest.NewServer(callbackHandler("s", out))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/callback?state=s&error=access_denied&error_description=no")
	require.NoError(t, err)
	resp.Body.Close()
	r := <-out
	assert.ErrorContains(t, r.err, "access_denied")
}
