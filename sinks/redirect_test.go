package sinks_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/github"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
)

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		same bool
	}{
		{"https://api.linear.app/graphql", "https://api.linear.app/other", true},
		{"https://api.linear.app/graphql", "https://API.Linear.app:443/x", true},
		{"http://127.0.0.1/x", "http://127.0.0.1:80/y", true},
		{"https://api.github.com/", "http://api.github.com/", false},          // scheme
		{"https://api.github.com/", "https://api.github.com:8443/", false},    // port
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8081/", false},           // port
		{"https://api.github.com/", "https://evil.api.github.com/", false},    // sub-domain
		{"https://api.github.com/", "https://api.github.com.evil.io/", false}, // host
	}
	for _, c := range cases {
		a, _ := url.Parse(c.a)
		b, _ := url.Parse(c.b)
		assert.Equal(t, c.same, sinks.SameOrigin(a, b), "%s → %s", c.a, c.b)
	}
}

// recorder is a server that keeps the Authorization header of every request
// it gets and answers status.
type recorder struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
}

func newRecorder(t *testing.T, status int) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.auths = append(r.auths, req.Header.Get("Authorization"))
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"message":"Bad credentials"}`))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.auths...)
}

// redirector answers every request with a 307 to target (the body and
// method are kept, as for a GraphQL POST).
func redirector(t *testing.T, target string) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, target+req.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestGuardRedirectsDropsCredentialsOnAnotherPort(t *testing.T) {
	t.Parallel()
	other := newRecorder(t, http.StatusOK)
	from := redirector(t, other.URL) // same host 127.0.0.1, another port

	send := func(c *http.Client) {
		req, _ := http.NewRequest(http.MethodGet, from.URL+"/graphql", nil)
		req.Header.Set("Authorization", "lin_api_secret")
		resp, err := c.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
	}
	send(&http.Client{})
	require.Equal(t, []string{"lin_api_secret"}, other.seen(), "Go's own check forwards the key to another port")

	send(sinks.GuardRedirects(&http.Client{}))
	assert.Equal(t, []string{"lin_api_secret", ""}, other.seen(), "the guarded client drops it")
}

func TestGuardRedirectsKeepsCredentialsOnTheSameOrigin(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var auths []string
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		auths = append(auths, req.Header.Get("Authorization"))
		mu.Unlock()
		if req.URL.Path == "/old" {
			http.Redirect(w, req, srv.URL+"/new", http.StatusMovedPermanently)
		}
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/old", nil)
	req.Header.Set("Authorization", "Bearer t")
	resp, err := sinks.GuardRedirects(nil).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, []string{"Bearer t", "Bearer t"}, auths)
}

func TestGuardRedirectsNeverRestoresCredentialsAfterLeaving(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var home []string
	var a, b *httptest.Server
	a = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		home = append(home, req.URL.Path+" "+req.Header.Get("Authorization"))
		mu.Unlock()
		if req.URL.Path == "/start" {
			http.Redirect(w, req, b.URL+"/bounce", http.StatusFound)
		}
	}))
	defer a.Close()
	b = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, a.URL+"/back", http.StatusFound)
	}))
	defer b.Close()
	req, _ := http.NewRequest(http.MethodGet, a.URL+"/start", nil)
	req.Header.Set("Authorization", "Bearer t")
	resp, err := sinks.GuardRedirects(nil).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, []string{"/start Bearer t", "/back "}, home, "a hop through another origin may have been told to come back")
}

func TestGuardRedirectsHTTPSToHTTP(t *testing.T) {
	t.Parallel()
	plain := newRecorder(t, http.StatusOK)
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, plain.URL+"/x", http.StatusFound)
	}))
	defer tlsSrv.Close()
	req, _ := http.NewRequest(http.MethodGet, tlsSrv.URL+"/x", nil)
	req.Header.Set("Authorization", "Bearer t")
	resp, err := sinks.GuardRedirects(tlsSrv.Client()).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, []string{""}, plain.seen())
}

// Both tracker sinks use the guarded client, whatever client they are given.
func TestSinksDropCredentialsOnRedirect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := sinks.Delivery{Target: sinks.Target{Issue: "CIA-9", Agent: "main"}, Body: "status"}
	t.Run("linear", func(t *testing.T) {
		t.Parallel()
		other := newRecorder(t, http.StatusUnauthorized)
		from := redirector(t, other.URL)
		s := linear.New(linear.Config{APIKey: "lin_api_0123456789abcdef", URL: from.URL + "/graphql", HTTPClient: &http.Client{},
			Tuning: sinks.Tuning{MaxAttempts: 1}})
		_, _ = s.Upsert(ctx, d)
		require.NotEmpty(t, other.seen())
		for _, a := range other.seen() {
			assert.Empty(t, a)
		}
	})
	t.Run("github", func(t *testing.T) {
		t.Parallel()
		other := newRecorder(t, http.StatusUnauthorized)
		from := redirector(t, other.URL)
		s := github.New(github.Config{Token: "ghp_0123456789abcdef0123456789abcdef0123", APIURL: from.URL, HTTPClient: &http.Client{},
			Tuning: sinks.Tuning{MaxAttempts: 1}})
		gd := d
		gd.Target.Issue = "octo/app#7"
		_, _ = s.Upsert(ctx, gd)
		require.NotEmpty(t, other.seen())
		for _, a := range other.seen() {
			assert.Empty(t, a)
		}
	})
}
