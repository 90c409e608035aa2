package linearfake_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
)

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// authorize asks the fake for a code as the loopback login does.
func authorize(t *testing.T, srv *linearfake.Server, redirect, verifier string) (*http.Response, string) {
	t.Helper()
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{
		"client_id": {linearfake.ClientID}, "redirect_uri": {redirect}, "response_type": {"code"},
		"scope": {"read,write"}, "state": {"s1"}, "actor": {"app"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
	}
	resp, err := noRedirect.Get(srv.AuthorizeURL() + "?" + q.Encode())
	require.NoError(t, err)
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if loc == nil {
		return resp, ""
	}
	return resp, loc.Query().Get("code")
}

func postToken(t *testing.T, srv *linearfake.Server, form url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := http.PostForm(srv.TokenURL(), form)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return resp.StatusCode, body
}

func TestFakeOAuthVerifiesPKCEAndRotates(t *testing.T) {
	t.Parallel()
	srv := linearfake.New()
	defer srv.Close()
	const redirect = "http://127.0.0.1:4242/callback"
	verifier := strings.Repeat("v", 43)

	resp, code := authorize(t, srv, redirect, verifier)
	require.Equal(t, http.StatusFound, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("Location"), "state=s1")

	exchange := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "client_id": {linearfake.ClientID}}
	bad := url.Values{}
	for k, v := range exchange {
		bad[k] = v
	}
	bad.Set("code_verifier", strings.Repeat("w", 43))
	status, body := postToken(t, srv, bad)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_grant", body["error"])
	assert.NotEmpty(t, body["error_description"])

	// The code was used up by the failed attempt, as an authorization
	// server must; a new one with the right verifier works.
	_, code = authorize(t, srv, redirect, verifier)
	exchange.Set("code", code)
	exchange.Set("code_verifier", verifier)
	status, body = postToken(t, srv, exchange)
	require.Equal(t, http.StatusOK, status, body)
	access, refresh := body["access_token"].(string), body["refresh_token"].(string)
	assert.EqualValues(t, 86399, body["expires_in"])
	assert.True(t, srv.IsAppToken(access))

	rotate := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {linearfake.ClientID}}
	status, body = postToken(t, srv, rotate)
	require.Equal(t, http.StatusOK, status)
	next := body["access_token"].(string)
	assert.True(t, srv.IsAppToken(next))
	assert.NotEqual(t, refresh, body["refresh_token"])

	// The spent refresh token again: the grant is revoked.
	status, body = postToken(t, srv, rotate)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_grant", body["error"])
	assert.False(t, srv.IsAppToken(next))
	st := srv.OAuthStats()
	assert.Equal(t, 1, st.Refreshes)
	assert.Equal(t, 1, st.Reused)
}

func TestFakeAuthorizeRedirectsOnlyToLoopback(t *testing.T) {
	t.Parallel()
	srv := linearfake.New()
	defer srv.Close()
	resp, code := authorize(t, srv, "https://evil.example/callback", "x")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Empty(t, code)
}

func TestFakeExpiredAndPersonalTokens(t *testing.T) {
	t.Parallel()
	srv := linearfake.New()
	defer srv.Close()
	access, _ := srv.Grant(true)
	assert.True(t, srv.IsAppToken(access))
	assert.False(t, srv.IsAppToken(linearfake.OAuthToken))
	assert.False(t, srv.IsAppToken(linearfake.APIKey))
	personal, _ := srv.Grant(false)
	assert.False(t, srv.IsAppToken(personal))

	srv.ExpireAccessTokens()
	assert.False(t, srv.IsAppToken(access))
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"query":"{ viewer { id } }"}`))
	req.Header.Set("Authorization", "Bearer "+access)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "Linear answers a bad credential with 400 AUTHENTICATION_ERROR")
}

func TestFakeRevoke(t *testing.T) {
	t.Parallel()
	srv := linearfake.New()
	defer srv.Close()
	access, refresh := srv.Grant(true)
	resp, err := http.PostForm(srv.RevokeURL(), url.Values{"token": {refresh}, "token_type_hint": {"refresh_token"}})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.False(t, srv.IsAppToken(access))
	resp, err = http.PostForm(srv.RevokeURL(), url.Values{"token": {refresh}, "token_type_hint": {"refresh_token"}})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "already revoked")
}
