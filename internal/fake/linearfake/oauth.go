package linearfake

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"
)

// The fake's OAuth application and its app user. Tokens it issues at
// /oauth/token authenticate GraphQL requests as AppUserID when the grant
// was made with actor=app (every grant from the loopback login is), as
// the viewer otherwise.
const (
	ClientID     = "fake-linear-client-id"
	ClientSecret = "fake-linear-client-secret"

	AppUserID   = "0b4e1a55-7d1c-4e4f-9a4e-2f6c1d9a00a9"
	AppUserName = "ccc agent"

	// AccessTokenTTL is what the token endpoint answers in expires_in,
	// Linear's documented 24 hours less a second.
	AccessTokenTTL = 86399 * time.Second
)

// OAuthStats counts what the OAuth endpoints saw.
type OAuthStats struct {
	// Refreshes counts refresh_token grants answered with a new pair.
	Refreshes int
	// Reused counts refresh tokens presented after they were spent (each
	// revoked its grant).
	Reused int
	// InvalidGrants counts invalid_grant answers.
	InvalidGrants int
	// Revocations counts successful /oauth/revoke calls.
	Revocations int
	// Exchanges counts authorization codes exchanged.
	Exchanges int
}

type grant struct {
	app     bool
	cc      bool // client credentials
	scopes  []string
	revoked bool
}

type accessToken struct {
	g      *grant
	expiry time.Time
}

type refreshToken struct {
	g     *grant
	spent bool
}

type authCode struct {
	g                      *grant
	redirectURI, challenge string
	method                 string
}

type oauthState struct {
	mu      sync.Mutex
	codes   map[string]*authCode
	access  map[string]*accessToken
	refresh map[string]*refreshToken
	stats   OAuthStats
	// ttl overrides AccessTokenTTL (SetAccessTokenTTL).
	ttl time.Duration
	// tokenDelay delays the token endpoint's answers (SetTokenDelay).
	tokenDelay time.Duration
	// clock is the fake's notion of now for token expiry.
	clock func() time.Time
}

func (s *Server) oauthState() *oauthState {
	s.oauthOnce.Do(func() {
		s.oauth = &oauthState{
			codes: map[string]*authCode{}, access: map[string]*accessToken{}, refresh: map[string]*refreshToken{},
			ttl: AccessTokenTTL, clock: time.Now,
		}
	})
	return s.oauth
}

// AuthorizeURL, TokenURL and RevokeURL are the fake's OAuth endpoints
// (LINEAR_AUTHORIZE_URL, LINEAR_TOKEN_URL, LINEAR_REVOKE_URL).
func (s *Server) AuthorizeURL() string { return s.srv.URL + "/oauth/authorize" }
func (s *Server) TokenURL() string     { return s.srv.URL + "/oauth/token" }
func (s *Server) RevokeURL() string    { return s.srv.URL + "/oauth/revoke" }

// OAuthStats returns the OAuth counters.
func (s *Server) OAuthStats() OAuthStats {
	o := s.oauthState()
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.stats
}

// SetAccessTokenTTL changes the lifetime of access tokens issued from now
// on.
func (s *Server) SetAccessTokenTTL(d time.Duration) {
	o := s.oauthState()
	o.mu.Lock()
	o.ttl = d
	o.mu.Unlock()
}

// SetTokenDelay makes the token endpoint answer d after it has issued
// the new tokens (and spent the refresh token presented).
func (s *Server) SetTokenDelay(d time.Duration) {
	o := s.oauthState()
	o.mu.Lock()
	o.tokenDelay = d
	o.mu.Unlock()
}

// ExpireAccessTokens makes every access token issued so far expired.
func (s *Server) ExpireAccessTokens() {
	o := s.oauthState()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, at := range o.access {
		at.expiry = time.Time{}
	}
}

// Grant makes a grant as if a login had just happened and returns its
// tokens, for tests that start signed in.
func (s *Server) Grant(app bool) (access, refresh string) {
	o := s.oauthState()
	o.mu.Lock()
	defer o.mu.Unlock()
	g := &grant{app: app, scopes: []string{"read", "write", "app:assignable"}}
	access, refresh = o.issue(g)
	return access, refresh
}

// IsAppToken reports whether token is a live access token of an actor=app
// grant: what the agent-only mutations demand. Personal API keys and
// OAuthToken are not.
func (s *Server) IsAppToken(token string) bool {
	o := s.oauthState()
	o.mu.Lock()
	defer o.mu.Unlock()
	at := o.live(token)
	return at != nil && at.g.app
}

// live returns the access token if it authenticates now. o.mu held.
func (o *oauthState) live(token string) *accessToken {
	at := o.access[token]
	if at == nil || at.g.revoked || !o.clock().Before(at.expiry) {
		return nil
	}
	return at
}

func (o *oauthState) issue(g *grant) (access, refresh string) {
	access = "lin_oauth_" + randomHex(32)
	refresh = randomHex(32)
	o.access[access] = &accessToken{g: g, expiry: o.clock().Add(o.ttl)}
	o.refresh[refresh] = &refreshToken{g: g}
	return access, refresh
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// authenticate maps an Authorization header to a user: the fixed keys,
// then the tokens the OAuth endpoints issued.
func (s *Server) authenticate(header string) *user {
	if u := s.users[header]; u != nil { // users does not change after New
		return u
	}
	tok, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		return nil
	}
	o := s.oauthState()
	o.mu.Lock()
	at := o.live(tok)
	o.mu.Unlock()
	switch {
	case at == nil:
		return nil
	case at.g.app:
		return appUser
	default:
		return s.users["Bearer "+OAuthToken]
	}
}

var appUser = &user{ID: AppUserID, Name: AppUserName, Email: "agent@example.com", App: true}

// serveOAuth answers the OAuth endpoints; false for every other path.
func (s *Server) serveOAuth(w http.ResponseWriter, r *http.Request) bool {
	switch r.URL.Path {
	case "/oauth/authorize":
		s.authorize(w, r)
	case "/oauth/token":
		o := s.oauthState()
		o.mu.Lock()
		delay := o.tokenDelay
		o.mu.Unlock()
		if delay <= 0 {
			s.token(w, r)
			break
		}
		// A slow token endpoint: the grant is spent and the new pair
		// issued at once, the answer comes after delay, whether or not
		// the client still waits.
		rec := httptest.NewRecorder()
		s.token(rec, r)
		time.Sleep(delay)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	case "/oauth/revoke":
		s.revoke(w, r)
	default:
		return false
	}
	return true
}

// authorize approves at once (the person clicking "Authorize" in a test)
// and redirects to the loopback redirect_uri with the code and the state.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	switch {
	case q.Get("client_id") != ClientID:
		http.Error(w, "Invalid client_id", http.StatusBadRequest)
		return
	case err != nil || redirect.Scheme != "http" || redirect.Hostname() != "127.0.0.1":
		http.Error(w, "Invalid redirect_uri", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code":
		http.Error(w, "Invalid response_type", http.StatusBadRequest)
		return
	case q.Get("code_challenge_method") != "S256" && q.Get("code_challenge_method") != "plain" && q.Get("code_challenge") != "":
		http.Error(w, "Invalid code_challenge_method", http.StatusBadRequest)
		return
	}
	o := s.oauthState()
	code := randomHex(20)
	o.mu.Lock()
	o.codes[code] = &authCode{
		g:           &grant{app: q.Get("actor") == "app" && !s.PersonGrants, scopes: strings.Split(q.Get("scope"), ",")},
		redirectURI: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), method: q.Get("code_challenge_method"),
	}
	o.mu.Unlock()
	back := redirect.Query()
	back.Set("code", code)
	if st := q.Get("state"); st != "" {
		back.Set("state", st)
	}
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// oauthError writes an RFC 6749 §5.2 error answer, as Linear's token
// endpoint does: HTTP 400 with {"error", "error_description"}.
func oauthError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		oauthError(w, http.StatusBadRequest, "invalid_request", "POST an application/x-www-form-urlencoded body")
		return
	}
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "unreadable body")
		return
	}
	o := s.oauthState()
	o.mu.Lock()
	defer o.mu.Unlock()
	clientID := r.PostForm.Get("client_id")
	if id, secret, ok := r.BasicAuth(); ok {
		if id != ClientID || secret != ClientSecret {
			oauthError(w, http.StatusUnauthorized, "invalid_client", "Client authentication failed")
			return
		}
		clientID = id
	}
	if clientID != ClientID {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "Client authentication failed")
		return
	}
	if sec := r.PostForm.Get("client_secret"); sec != "" && sec != ClientSecret {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "Client authentication failed")
		return
	}
	var g *grant
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		c := o.codes[r.PostForm.Get("code")]
		delete(o.codes, r.PostForm.Get("code")) // a code is used once
		if c == nil || c.redirectURI != r.PostForm.Get("redirect_uri") || !verifies(c, r.PostForm.Get("code_verifier")) {
			o.stats.InvalidGrants++
			oauthError(w, http.StatusBadRequest, "invalid_grant", "The provided authorization grant is invalid, expired, or revoked")
			return
		}
		o.stats.Exchanges++
		g = c.g
	case "refresh_token":
		rt := o.refresh[r.PostForm.Get("refresh_token")]
		switch {
		case rt == nil || rt.g.revoked:
			o.stats.InvalidGrants++
			oauthError(w, http.StatusBadRequest, "invalid_grant", "The provided refresh token is invalid, expired, or revoked")
			return
		case rt.spent:
			// Reuse of a rotated refresh token: someone else may hold it,
			// so the whole grant goes (RFC 6819 §5.2.2.3).
			rt.g.revoked = true
			o.stats.Reused++
			o.stats.InvalidGrants++
			oauthError(w, http.StatusBadRequest, "invalid_grant", "The provided refresh token is invalid, expired, or revoked")
			return
		}
		rt.spent = true
		o.stats.Refreshes++
		g = rt.g
	case "client_credentials":
		if _, _, ok := r.BasicAuth(); !ok && r.PostForm.Get("client_secret") == "" {
			oauthError(w, http.StatusUnauthorized, "invalid_client", "Client authentication failed")
			return
		}
		// One client-credentials token per application: the last one goes.
		for _, at := range o.access {
			if at.g.cc {
				at.g.revoked = true
			}
		}
		g = &grant{app: !s.PersonGrants, cc: true, scopes: strings.Split(r.PostForm.Get("scope"), ",")}
		access := "lin_oauth_" + randomHex(32)
		o.access[access] = &accessToken{g: g, expiry: o.clock().Add(30*24*time.Hour - time.Second)}
		writeToken(w, access, "", 2591999, g.scopes)
		return
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "Unsupported grant type")
		return
	}
	access, refresh := o.issue(g)
	writeToken(w, access, refresh, int(o.ttl/time.Second), g.scopes)
}

func writeToken(w http.ResponseWriter, access, refresh string, expiresIn int, scopes []string) {
	body := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": expiresIn, "scope": strings.Join(scopes, " ")}
	if refresh != "" {
		body["refresh_token"] = refresh
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(body)
}

func verifies(c *authCode, verifier string) bool {
	switch c.method {
	case "S256":
		sum := sha256.Sum256([]byte(verifier))
		return base64.RawURLEncoding.EncodeToString(sum[:]) == c.challenge
	case "plain":
		return verifier == c.challenge
	}
	return c.challenge == "" && verifier == ""
}

// revoke ends a grant given its access token as Bearer, or either token
// in RFC 7009's token field (token_type_hint optional), answering as
// Linear documents: 200
// revoked, 400 not revocable (already revoked), 401 a bearer token that
// does not authenticate.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	o := s.oauthState()
	o.mu.Lock()
	defer o.mu.Unlock()
	var g *grant
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		at := o.live(tok)
		if at == nil {
			oauthError(w, http.StatusUnauthorized, "invalid_token", "Authentication failed")
			return
		}
		g = at.g
	} else if tok := r.PostForm.Get("token"); tok != "" {
		// RFC 7009: the hint only says where to look first.
		if at := o.access[tok]; at != nil {
			g = at.g
		} else if rt := o.refresh[tok]; rt != nil {
			g = rt.g
		}
	}
	if g == nil || g.revoked {
		oauthError(w, http.StatusBadRequest, "invalid_request", "Unable to revoke token")
		return
	}
	g.revoked = true
	o.stats.Revocations++
	w.WriteHeader(http.StatusOK)
}

// IssuedSecrets lists every access and refresh token the OAuth endpoints
// issued, for tests that check no token leaks into output or files.
func (s *Server) IssuedSecrets() []string {
	o := s.oauthState()
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for t := range o.access {
		out = append(out, t)
	}
	for t := range o.refresh {
		out = append(out, t)
	}
	return out
}

// RevokeGrants revokes every grant, as uninstalling the app in Linear
// does: their access and refresh tokens stop working.
func (s *Server) RevokeGrants() {
	o := s.oauthState()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, at := range o.access {
		at.g.revoked = true
	}
	for _, rt := range o.refresh {
		rt.g.revoked = true
	}
}
