// Package oauth signs ccc in to Linear as an agent ("app user"): the OAuth
// 2.0 authorization-code flow with PKCE and actor=app over a loopback
// redirect, a token store in the user's config directory, and access
// tokens refreshed ahead of expiry with Linear's rotating refresh tokens,
// one process at a time, so that a refresh token is spent once.
//
// The sinks ask AccessToken for a token; LINEAR_OAUTH_TOKEN, when set,
// wins without the store (CI).
package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// Linear's endpoints (linear.app/developers/oauth-2-0-authentication).
const (
	DefaultAuthorizeURL = "https://linear.app/oauth/authorize"
	DefaultTokenURL     = "https://api.linear.app/oauth/token"
	DefaultRevokeURL    = "https://api.linear.app/oauth/revoke"
	DefaultAPIURL       = "https://api.linear.app/graphql"
)

// DefaultScopes are what an agent needs: read and write the issues it works
// on, and be delegated issues (linear.app/developers/agents, "Actor and
// scopes"). Not app:mentionable: ccc answers no mention (it has no
// webhook listener), so a mention would open a session nobody answers.
var DefaultScopes = []string{"read", "write", "app:assignable"}

// RefreshAhead is how long before its expiry an access token is replaced:
// long enough that a token read now still works for a hook's whole
// deadline.
const RefreshAhead = 10 * time.Minute

// ErrNoToken means there is no Linear OAuth token at all: neither
// LINEAR_OAUTH_TOKEN nor a stored sign-in.
var ErrNoToken = errors.New("not signed in to Linear (run ccc linear login)")

// ErrLoginRequired means the stored sign-in can no longer be used (Linear
// answered invalid_grant: the grant was revoked, the app uninstalled, or a
// refresh token was spent twice). AccessToken wraps it in a retryable
// *sinks.Error so that a delivery waits in the outbox until the user signs
// in again.
var ErrLoginRequired = errors.New("the Linear sign-in is no longer valid: run ccc linear login again")

// Options say where Linear is and which OAuth application signs in.
type Options struct {
	// ClientID and ClientSecret are the user's own OAuth application's
	// (the secret is optional with PKCE).
	ClientID, ClientSecret string
	// Scopes requested at login (DefaultScopes when empty).
	Scopes []string
	// Port is the loopback port Login listens on (0: any free one), for
	// an application whose callback URL names one.
	Port                              int
	AuthorizeURL, TokenURL, RevokeURL string
	APIURL                            string
	HTTPClient                        *http.Client
	// Dir holds the token store (config.UserConfigDir).
	Dir string
	// EnvToken is LINEAR_OAUTH_TOKEN: it wins over the store.
	EnvToken string
	Now      func() time.Time
}

// OptionsFrom takes LINEAR_CLIENT_ID, LINEAR_CLIENT_SECRET,
// LINEAR_AUTHORIZE_URL, LINEAR_TOKEN_URL, LINEAR_REVOKE_URL,
// LINEAR_API_URL and LINEAR_OAUTH_TOKEN from the settings' environment; the
// client id falls back to the user's own preferences (sinks: linear:
// client_id:), never a repository's, so that a cloned project cannot send
// its user's sign-in to another application.
func OptionsFrom(s config.Settings) (Options, error) {
	dir, err := s.ConfigDir()
	if err != nil {
		return Options{}, err
	}
	env := s.Env.Linear
	o := Options{
		ClientID:     strings.TrimSpace(env.ClientID),
		ClientSecret: strings.TrimSpace(env.ClientSecret),
		AuthorizeURL: strings.TrimSpace(env.AuthorizeURL),
		TokenURL:     strings.TrimSpace(env.TokenURL),
		RevokeURL:    strings.TrimSpace(env.RevokeURL),
		APIURL:       strings.TrimSpace(env.APIURL),
		EnvToken:     strings.TrimSpace(env.OAuthToken),
		Dir:          dir,
	}
	if o.ClientID == "" {
		if p, err := s.UserPrefs(); err == nil {
			o.ClientID = strings.TrimSpace(p.Sinks["linear"].ClientID)
		}
	}
	return o, nil
}

func (o Options) withDefaults() Options {
	if len(o.Scopes) == 0 {
		o.Scopes = DefaultScopes
	}
	if o.AuthorizeURL == "" {
		o.AuthorizeURL = DefaultAuthorizeURL
	}
	if o.TokenURL == "" {
		o.TokenURL = DefaultTokenURL
	}
	if o.RevokeURL == "" {
		o.RevokeURL = DefaultRevokeURL
	}
	if o.APIURL == "" {
		o.APIURL = DefaultAPIURL
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Token is a stored sign-in. It is written only to the token store (mode
// 0600) and never printed: String hides the secrets.
type Token struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry"`
	Scopes       []string  `json:"scopes"`
	// Actor is "app" for a token from actor=app or client credentials.
	Actor string `json:"actor"`
	// ClientID is the application the grant belongs to; a refresh sends
	// it (and the secret only if the login used one).
	ClientID  string `json:"client_id"`
	UseSecret bool   `json:"use_secret,omitempty"`
	// Grant is "authorization_code" or "client_credentials".
	Grant string `json:"grant"`
	// ViewerID is the app user the sign-in acts as, and
	// SupportsAgentSessions whether its application got the "Agent
	// session events" webhook, as Linear said at login (nil: a store
	// older than both).
	ViewerID              string `json:"viewer_id,omitempty"`
	SupportsAgentSessions *bool  `json:"supports_agent_sessions,omitempty"`
}

// String never shows the tokens.
func (t Token) String() string {
	return fmt.Sprintf("Linear %s token, scopes %s, expires %s", t.Actor, strings.Join(t.Scopes, ","), t.Expiry.UTC().Format(time.RFC3339))
}

// App reports whether the token acts as the application (an agent).
func (t Token) App() bool { return t.Actor == "app" }

// tokenResponse is the token endpoint's answer. Linear documents scope as
// a space-separated string ("read write"), and as an array for apps made
// before December 2023.
type tokenResponse struct {
	AccessToken  string          `json:"access_token"`
	TokenType    string          `json:"token_type"`
	ExpiresIn    int64           `json:"expires_in"`
	Scope        json.RawMessage `json:"scope"`
	RefreshToken string          `json:"refresh_token"`
}

func (r tokenResponse) scopes() []string {
	var list []string
	if json.Unmarshal(r.Scope, &list) == nil {
		return list
	}
	var s string
	_ = json.Unmarshal(r.Scope, &s)
	return strings.FieldsFunc(s, func(c rune) bool { return c == ' ' || c == ',' })
}

// OAuthError is an error answer of an OAuth endpoint (RFC 6749 §5.2): the
// code and description, never the request's secrets.
type OAuthError struct {
	Status      int
	Code        string
	Description string
}

func (e *OAuthError) Error() string {
	msg := fmt.Sprintf("HTTP %d", e.Status)
	if e.Code != "" {
		msg += " " + e.Code
	}
	if e.Description != "" {
		msg += ": " + e.Description
	}
	return msg
}

// postForm sends an application/x-www-form-urlencoded POST, as Linear's
// OAuth endpoints want, and decodes a JSON answer into out (nil: ignore).
func postForm(ctx context.Context, o Options, endpoint string, form url.Values, basic, bearer string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic != "" {
		req.Header.Set("Authorization", "Basic "+basic)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := sinks.GuardRedirects(o.HTTPClient).Do(req)
	if err != nil {
		// The URL holds no secret (they travel in the body).
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		e := &OAuthError{Status: resp.StatusCode}
		var wire struct {
			Error            string `json:"error"`
			ErrorDescription string `json:"error_description"`
		}
		if json.Unmarshal(body, &wire) == nil {
			e.Code, e.Description = wire.Error, wire.ErrorDescription
		}
		return e
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("HTTP %d with an answer that is not JSON", resp.StatusCode)
	}
	return nil
}

// exchange asks the token endpoint for a token and makes a Token of the
// answer.
func exchange(ctx context.Context, o Options, form url.Values, basic string, prev Token) (Token, error) {
	var r tokenResponse
	if err := postForm(ctx, o, o.TokenURL, form, basic, "", &r); err != nil {
		return Token{}, err
	}
	if r.AccessToken == "" {
		return Token{}, errors.New("token endpoint answered without an access token")
	}
	t := prev
	t.AccessToken = r.AccessToken
	t.RefreshToken = r.RefreshToken
	if s := r.scopes(); len(s) > 0 {
		t.Scopes = s
	}
	if r.ExpiresIn > 0 {
		t.Expiry = o.Now().Add(time.Duration(r.ExpiresIn) * time.Second)
	} else {
		t.Expiry = time.Time{}
	}
	return t, nil
}

func basicAuth(id, secret string) string {
	return base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id) + ":" + url.QueryEscape(secret)))
}
