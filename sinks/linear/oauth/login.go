package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// NewVerifier returns a PKCE code verifier: 32 random bytes, base64url,
// 43 characters (RFC 7636 §4.1 wants 43 to 128).
func NewVerifier() string { return randomString(32) }

// Challenge is the S256 code challenge of verifier (RFC 7636 §4.2).
func Challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// AuthorizeURL is the authorization page's address for one login: an app
// installation (actor=app), comma-separated scopes as Linear wants them, a
// state and an S256 code challenge.
func AuthorizeURL(o Options, redirectURI, state, challenge string) string {
	o = o.withDefaults()
	q := url.Values{
		"client_id":             {o.ClientID},
		"redirect_uri":          {redirectURI},
		"response_type":         {"code"},
		"scope":                 {strings.Join(o.Scopes, ",")},
		"state":                 {state},
		"actor":                 {"app"},
		"code_challenge":        {challenge},
		"code_challenge_method": {"S256"},
	}
	sep := "?"
	if strings.Contains(o.AuthorizeURL, "?") {
		sep = "&"
	}
	return o.AuthorizeURL + sep + q.Encode()
}

// LoginIO is how Login talks to the person signing in.
type LoginIO struct {
	// Show is given the authorization URL first, always.
	Show func(authorizeURL string)
	// Open opens it in a browser; nil means never (--no-browser). An
	// error is not fatal: the printed URL still works.
	Open func(authorizeURL string) error
}

// Login signs in with the authorization-code flow and PKCE: it listens on
// 127.0.0.1 at o.Port (else a random port; the redirect URI is
// http://127.0.0.1:<port>/callback), shows (and maybe opens) the authorization
// URL, waits for Linear to redirect the browser back with a code whose
// state matches, exchanges the code and stores the token. It gives up
// when ctx ends.
func Login(ctx context.Context, o Options, lio LoginIO) (Token, error) {
	o = o.withDefaults()
	if o.ClientID == "" {
		return Token{}, errors.New("no OAuth client id: pass --client-id, set LINEAR_CLIENT_ID, or add sinks: linear: client_id: to your preferences")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port)))
	if err != nil {
		return Token{}, fmt.Errorf("loopback listener: %w", err)
	}
	redirectURI := "http://" + ln.Addr().String() + "/callback"
	state, verifier := randomString(24), NewVerifier()

	codes := make(chan callbackResult, 1)
	srv := &http.Server{Handler: callbackHandler(state, codes), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()

	u := AuthorizeURL(o, redirectURI, state, Challenge(verifier))
	if lio.Show != nil {
		lio.Show(u)
	}
	if lio.Open != nil {
		_ = lio.Open(u)
	}
	var res callbackResult
	select {
	case res = <-codes:
	case <-ctx.Done():
		return Token{}, fmt.Errorf("no answer from the browser: %w", ctx.Err())
	}
	if res.err != nil {
		return Token{}, res.err
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {res.code},
		"redirect_uri":  {redirectURI},
		"client_id":     {o.ClientID},
		"code_verifier": {verifier},
	}
	if o.ClientSecret != "" {
		form.Set("client_secret", o.ClientSecret)
	}
	t, err := exchange(ctx, o, form, "", Token{Actor: "app", ClientID: o.ClientID, UseSecret: o.ClientSecret != "", Grant: "authorization_code", Scopes: o.Scopes})
	if err != nil {
		return Token{}, fmt.Errorf("token exchange: %w", err)
	}
	if t, err = identify(ctx, o, t); err != nil {
		return Token{}, err
	}
	if err := storeLocked(o, t); err != nil {
		return Token{}, err
	}
	return t, nil
}

// LoginClientCredentials gets an app-actor token with the
// client_credentials grant, which Linear offers to applications that turn
// "client credentials tokens" on: no browser and no refresh token, valid
// for 30 days; up to 1000 in parallel while every request asks for the
// same scopes (other scopes, or another grant type on the application,
// revoke them all).
func LoginClientCredentials(ctx context.Context, o Options) (Token, error) {
	o = o.withDefaults()
	if o.ClientID == "" || o.ClientSecret == "" {
		return Token{}, errors.New("client credentials need the client id and secret (--client-id/--client-secret or LINEAR_CLIENT_ID/LINEAR_CLIENT_SECRET)")
	}
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {strings.Join(o.Scopes, ",")}}
	t, err := exchange(ctx, o, form, basicAuth(o.ClientID, o.ClientSecret), Token{Actor: "app", ClientID: o.ClientID, UseSecret: true, Grant: "client_credentials", Scopes: o.Scopes})
	if err != nil {
		return Token{}, fmt.Errorf("client credentials: %w", err)
	}
	if t, err = identify(ctx, o, t); err != nil {
		return Token{}, err
	}
	if err := storeLocked(o, t); err != nil {
		return Token{}, err
	}
	return t, nil
}

type callbackResult struct {
	code string
	err  error
}

// callbackHandler takes the first redirect to /callback whose state
// matches; a wrong state is answered and ignored (it is not this login's),
// an error answer from the authorization page ends the login.
func callbackHandler(state string, out chan<- callbackResult) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, page("This sign-in link does not belong to the running ccc linear login."))
			return
		}
		res := callbackResult{code: q.Get("code")}
		if e := q.Get("error"); e != "" {
			res = callbackResult{err: fmt.Errorf("authorization refused: %s %s", e, q.Get("error_description"))}
		} else if res.code == "" {
			res = callbackResult{err: errors.New("authorization answered without a code")}
		}
		select {
		case out <- res:
			fmt.Fprint(w, page("ccc is signed in to Linear. You can close this tab."))
		default:
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, page("This login has already been answered."))
		}
	})
	return mux
}

func page(msg string) string {
	return "<!doctype html><title>ccc</title><p>" + html.EscapeString(msg) + "</p>\n"
}
