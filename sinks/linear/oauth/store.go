package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// The token store lives in the user's config directory, outside every
// repository. It is a file rather than the OS keychain: the pure-Go
// keychain libraries reach the keychain through a helper program or D-Bus
// session that hooks and CI machines often lack, and a store that is
// sometimes there would make a hook's token depend on the session it runs
// in.
const (
	StoreName = "linear-oauth.json"
	lockName  = "linear-oauth.lock"
	lockWait  = 30 * time.Second
)

// StorePath is the token store's path under dir.
func StorePath(dir string) string { return filepath.Join(dir, StoreName) }

// Load reads the stored sign-in; ErrNoToken when there is none. The store
// is read as config.ReadPrivateFile reads a secret: a symlink, a FIFO or a
// device there is an error naming it, a store others can read is made 0600.
func Load(dir string) (Token, error) {
	data, _, err := config.ReadPrivateFile(dir, StorePath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return Token{}, ErrNoToken
	}
	if err != nil {
		return Token{}, fmt.Errorf("token store: %w", err)
	}
	var t Token
	if err := json.Unmarshal(data, &t); err != nil || t.AccessToken == "" {
		return Token{}, fmt.Errorf("token store %s is damaged: run ccc linear login again", StorePath(dir))
	}
	return t, nil
}

// save replaces the store atomically with mode 0600 in a 0700 directory.
// Callers hold the lock.
func save(dir string, t Token) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	path := StorePath(dir)
	if err := projectfs.WriteFileAtomic(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	// WriteFileAtomic keeps an existing file's mode: a store someone made
	// readable goes back to 0600.
	return os.Chmod(path, 0o600)
}

// lock serialises everything that spends or replaces the stored tokens
// across ccc processes.
func lock(ctx context.Context, dir string) (*flock.Flock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	fl := flock.New(filepath.Join(dir, lockName))
	ok, err := fl.TryLockContext(ctx, 20*time.Millisecond)
	if err != nil || !ok {
		return nil, fmt.Errorf("token store: lock: %w", errors.Join(err, ctx.Err()))
	}
	return fl, nil
}

// storeLocked saves t under the lock, waiting at most lockWait for a
// process that is refreshing.
func storeLocked(o Options, t Token) error {
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	fl, err := lock(ctx, o.Dir)
	if err != nil {
		return err
	}
	defer func() { _ = fl.Unlock() }()
	return save(o.Dir, t)
}

// AccessToken returns the token a sink sends as "Bearer <token>" and
// whether it acts as the application (an agent). LINEAR_OAUTH_TOKEN
// (Options.EnvToken) wins without touching the store; its actor is not
// known, so app is false and the sink finds out from Linear's answer. A
// stored token that expires within RefreshAhead is refreshed first, under
// the store's lock: the process that takes the lock second finds the new
// pair already stored and spends nothing. The new pair is stored before it
// is returned, so a crash after the refresh loses nothing.
//
// Errors: ErrNoToken when nobody signed in; a retryable *sinks.Error
// wrapping ErrLoginRequired when Linear refuses the refresh token
// (invalid_grant); other refresh failures are retryable *sinks.Error too.
func AccessToken(ctx context.Context, o Options) (token string, app bool, err error) {
	if o.EnvToken != "" {
		return o.EnvToken, false, nil
	}
	o = o.withDefaults()
	t, err := Load(o.Dir)
	if err != nil {
		return "", false, err
	}
	if fresh(o, t) {
		return t.AccessToken, t.App(), nil
	}
	t, err = refresh(ctx, o)
	if err != nil {
		return "", false, err
	}
	return t.AccessToken, t.App(), nil
}

func fresh(o Options, t Token) bool {
	return t.Expiry.IsZero() || o.Now().Add(RefreshAhead).Before(t.Expiry)
}

// RefreshTimeout bounds a refresh's exchange with Linear, whatever the
// caller's deadline.
const RefreshTimeout = 30 * time.Second

// refresh replaces the stored pair under the lock, re-reading the store
// first: another process may have refreshed it while this one waited.
func refresh(ctx context.Context, o Options) (Token, error) {
	fl, err := lock(ctx, o.Dir)
	if err != nil {
		return Token{}, &sinks.Error{Cause: "Linear token store locked", Err: err}
	}
	defer func() { _ = fl.Unlock() }()
	t, err := Load(o.Dir)
	if err != nil {
		return Token{}, err
	}
	if fresh(o, t) {
		return t, nil
	}
	// From here the refresh token may be spent: the exchange runs on a
	// context of its own, not the caller's deadline, so that an answer
	// that comes late is still stored (a lost one would need a login).
	// The caller waits for it, RefreshTimeout at most.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RefreshTimeout)
	defer cancel()
	var nt Token
	switch {
	case t.RefreshToken != "":
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {t.RefreshToken}, "client_id": {t.ClientID}}
		if t.UseSecret && o.ClientSecret != "" {
			form.Set("client_secret", o.ClientSecret)
		}
		nt, err = exchange(ctx, o, form, "", t)
	case t.Grant == "client_credentials" && o.ClientSecret != "":
		// No refresh token: a new client-credentials token replaces it.
		form := url.Values{"grant_type": {"client_credentials"}, "scope": {strings.Join(t.Scopes, ",")}}
		nt, err = exchange(ctx, o, form, basicAuth(t.ClientID, o.ClientSecret), t)
	default:
		if o.Now().Before(t.Expiry) {
			return t, nil // still valid, nothing to renew it with yet
		}
		return Token{}, loginRequired("the Linear token expired")
	}
	if err != nil {
		var oe *OAuthError
		if errors.As(err, &oe) && (oe.Code == "invalid_grant" || oe.Status == 401) {
			return Token{}, loginRequired("Linear refused the refresh token (" + oe.Code + ")")
		}
		return Token{}, &sinks.Error{Cause: "Linear token refresh failed", Err: err}
	}
	if err := save(o.Dir, nt); err != nil {
		// The old refresh token is spent: without the new pair on disk the
		// next process would need a login. Say so.
		return Token{}, &sinks.Error{Cause: "Linear token refreshed but not stored", Err: errors.Join(err, ErrLoginRequired)}
	}
	return nt, nil
}

func loginRequired(why string) error {
	return &sinks.Error{Cause: why + ": run ccc linear login again", Err: ErrLoginRequired}
}

// Logout revokes the stored grant at Linear (with the refresh token when
// there is one, which ends the whole grant, else the access token; a 400,
// "not revocable", means revoked already) and deletes the store. The store is deleted even when the revocation fails;
// the error says so. Nothing stored: ErrNoToken.
func Logout(ctx context.Context, o Options) error {
	o = o.withDefaults()
	fl, err := lock(ctx, o.Dir)
	if err != nil {
		return err
	}
	defer func() { _ = fl.Unlock() }()
	t, err := Load(o.Dir)
	if err != nil {
		return err
	}
	// RFC 7009's fields: token, and which kind it is.
	form := url.Values{"token": {t.AccessToken}, "token_type_hint": {"access_token"}}
	if t.RefreshToken != "" {
		form = url.Values{"token": {t.RefreshToken}, "token_type_hint": {"refresh_token"}}
	}
	revokeErr := postForm(ctx, o, o.RevokeURL, form, "", "", nil)
	var oe *OAuthError
	if errors.As(revokeErr, &oe) && oe.Status == http.StatusBadRequest {
		// Linear answers 400 for a token it cannot revoke: already
		// revoked (the app uninstalled, a logout elsewhere).
		revokeErr = nil
	}
	if err := os.Remove(StorePath(o.Dir)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("token store: %w", err)
	}
	if revokeErr != nil {
		return fmt.Errorf("token deleted, but Linear did not confirm the revocation: %w", revokeErr)
	}
	return nil
}

// StoredSecrets are the stored tokens (access and refresh), for a
// redactor; none when nobody signed in.
func StoredSecrets(dir string) []string {
	t, err := Load(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range []string{t.AccessToken, t.RefreshToken} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
