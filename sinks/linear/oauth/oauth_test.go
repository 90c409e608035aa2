package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/testutil/linearschema"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear/oauth"
)

// options points at srv with a fresh store directory.
func options(t *testing.T, srv *linearfake.Server) oauth.Options {
	t.Helper()
	return oauth.Options{
		ClientID:     linearfake.ClientID,
		AuthorizeURL: srv.AuthorizeURL(),
		TokenURL:     srv.TokenURL(),
		RevokeURL:    srv.RevokeURL(),
		APIURL:       srv.URL,
		Dir:          filepath.Join(t.TempDir(), "ccc"),
	}
}

func newServer(t *testing.T) *linearfake.Server {
	t.Helper()
	srv := linearfake.New()
	t.Cleanup(srv.Close)
	return srv
}

// browse plays the person in the browser: it opens the authorization URL
// and follows the redirect back to the loopback listener.
func browse(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// login signs in through the fake, driving the browser step from the
// printed URL as --no-browser leaves it to the person.
func login(t *testing.T, o oauth.Options) (oauth.Token, string) {
	t.Helper()
	urls := make(chan string, 1)
	type result struct {
		tok oauth.Token
		err error
	}
	done := make(chan result, 1)
	go func() {
		tok, err := oauth.Login(context.Background(), o, oauth.LoginIO{Show: func(u string) { urls <- u }})
		done <- result{tok, err}
	}()
	u := <-urls
	status, body := browse(t, u)
	require.Equal(t, http.StatusOK, status, body)
	r := <-done
	require.NoError(t, r.err)
	return r.tok, u
}

func TestChallengeIsRFC7636S256(t *testing.T) {
	t.Parallel()
	// RFC 7636, Appendix B.
	assert.Equal(t, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", oauth.Challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
	v := oauth.NewVerifier()
	assert.Len(t, v, 43)
	assert.NotEqual(t, v, oauth.NewVerifier())
}

func TestAuthorizeURLAsksForAnAppInstallWithPKCE(t *testing.T) {
	t.Parallel()
	o := oauth.Options{ClientID: "cid", AuthorizeURL: "https://linear.example/oauth/authorize"}
	u, err := url.Parse(oauth.AuthorizeURL(o, "http://127.0.0.1:5555/callback", "st4te", "ch4llenge"))
	require.NoError(t, err)
	q := u.Query()
	for k, want := range map[string]string{
		"client_id": "cid", "redirect_uri": "http://127.0.0.1:5555/callback", "response_type": "code",
		"scope": "read,write,app:assignable", "state": "st4te", "actor": "app",
		"code_challenge": "ch4llenge", "code_challenge_method": "S256",
	} {
		assert.Equal(t, want, q.Get(k), k)
	}
}

func TestLoginStoresAnAppTokenPrivately(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	o := options(t, srv)
	tok, u := login(t, o)

	assert.True(t, tok.App())
	assert.True(t, srv.IsAppToken(tok.AccessToken))
	assert.NotEmpty(t, tok.RefreshToken)
	parsed, _ := url.Parse(u)
	redirect, _ := url.Parse(parsed.Query().Get("redirect_uri"))
	assert.Equal(t, "127.0.0.1", redirect.Hostname())
	assert.NotEqual(t, "0", redirect.Port())

	fi, err := os.Stat(oauth.StorePath(o.Dir))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	di, err := os.Stat(o.Dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	stored, err := oauth.Load(o.Dir)
	require.NoError(t, err)
	assert.Equal(t, tok.AccessToken, stored.AccessToken)
	assert.NotContains(t, stored.String(), tok.AccessToken)
	assert.NotContains(t, stored.String(), tok.RefreshToken)
	assert.Equal(t, 1, srv.OAuthStats().Exchanges)

	id, err := oauth.Whoami(context.Background(), o)
	require.NoError(t, err)
	assert.True(t, id.App)
	assert.Equal(t, linearfake.AppUserName, id.Name)
	assert.Equal(t, "Fake Org", id.Workspace)
}

// An application whose callback URL names a port: Login listens there and
// sends exactly http://127.0.0.1:<port>/callback.
func TestLoginOnAFixedPort(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	o := options(t, srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	o.Port = ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	_, u := login(t, o)
	parsed, err := url.Parse(u)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("http://127.0.0.1:%d/callback", o.Port), parsed.Query().Get("redirect_uri"))
}

func TestLoginWithoutClientIDSaysWhereToSetIt(t *testing.T) {
	t.Parallel()
	_, err := oauth.Login(context.Background(), oauth.Options{Dir: t.TempDir()}, oauth.LoginIO{})
	require.ErrorContains(t, err, "LINEAR_CLIENT_ID")
}

func TestLoginGivesUpWhenNoBrowserAnswers(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	o := options(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := oauth.Login(ctx, o, oauth.LoginIO{Show: func(string) { cancel() }})
	require.ErrorIs(t, err, context.Canceled)
	_, err = oauth.Load(o.Dir)
	assert.ErrorIs(t, err, oauth.ErrNoToken)
}

// expire rewrites the store as if the access token were about to run out.
func expire(t *testing.T, dir string) oauth.Token {
	t.Helper()
	tok, err := oauth.Load(dir)
	require.NoError(t, err)
	tok.Expiry = time.Now().Add(time.Minute)
	writeStore(t, dir, tok)
	return tok
}

func writeStore(t *testing.T, dir string, tok oauth.Token) {
	t.Helper()
	require.NoError(t, oauth.Save(dir, tok))
}

func TestAccessTokenRefreshesAheadOfExpiryAndStoresTheNewPair(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	o := options(t, srv)
	login(t, o)
	old := expire(t, o.Dir)

	tok, app, err := oauth.AccessToken(context.Background(), o)
	require.NoError(t, err)
	assert.True(t, app)
	assert.NotEqual(t, old.AccessToken, tok)
	stored, err := oauth.Load(o.Dir)
	require.NoError(t, err)
	assert.Equal(t, tok, stored.AccessToken, "the new pair is stored before it is used")
	assert.NotEqual(t, old.RefreshToken, stored.RefreshToken, "Linear rotates the refresh token")
	assert.Equal(t, 1, srv.OAuthStats().Refreshes)

	// A fresh token is used as it is: no second refresh.
	again, _, err := oauth.AccessToken(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, tok, again)
	assert.Equal(t, 1, srv.OAuthStats().Refreshes)
}

func TestReusingARotatedRefreshTokenRevokesTheGrant(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	o := options(t, srv)
	login(t, o)
	old := expire(t, o.Dir)
	_, _, err := oauth.AccessToken(context.Background(), o)
	require.NoError(t, err)

	// Another machine still holding the spent refresh token tries it.
	writeStore(t, o.Dir, old)
	_, _, err = oauth.AccessToken(context.Background(), o)
	var se *sinks.Error
	require.ErrorAs(t, err, &se)
	assert.False(t, se.Permanent, "the delivery waits in the outbox")
	assert.ErrorIs(t, err, oauth.ErrLoginRequired)
	assert.Contains(t, err.Error(), "run ccc linear login again")
	assert.NotContains(t, err.Error(), old.RefreshToken)
	assert.Equal(t, 1, srv.OAuthStats().Reused)
	_, err = oauth.Load(o.Dir)
	assert.NoError(t, err, "the store is kept for the user to see; login replaces it")
}

func TestConcurrentRefreshesSpendTheRefreshTokenOnce(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	o := options(t, srv)
	login(t, o)
	expire(t, o.Dir)

	var wg sync.WaitGroup
	tokens := make([]string, 10)
	errs := make([]error, 10)
	for i := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tokens[i], _, errs[i] = oauth.AccessToken(context.Background(), o)
		}()
	}
	wg.Wait()
	for i := range tokens {
		require.NoError(t, errs[i])
		assert.Equal(t, tokens[0], tokens[i])
	}
	st := srv.OAuthStats()
	assert.Equal(t, 1, st.Refreshes)
	assert.Zero(t, st.Reused)
	assert.Zero(t, st.InvalidGrants)
}

func TestEnvironmentTokenWinsWithoutTheStore(t *testing.T) {
	t.Parallel()
	o := oauth.Options{EnvToken: "lin_oauth_fromCI", Dir: filepath.Join(t.TempDir(), "none")}
	tok, app, err := oauth.AccessToken(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, "lin_oauth_fromCI", tok)
	assert.False(t, app)
	_, err = os.Stat(o.Dir)
	assert.True(t, errors.Is(err, os.ErrNotExist), "the store is not touched")
}

func TestNotSignedIn(t *testing.T) {
	t.Parallel()
	_, _, err := oauth.AccessToken(context.Background(), oauth.Options{Dir: t.TempDir()})
	assert.ErrorIs(t, err, oauth.ErrNoToken)
}

func TestLogoutRevokesAndDeletes(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	o := options(t, srv)
	tok, _ := login(t, o)
	require.NoError(t, oauth.Logout(context.Background(), o))
	assert.Equal(t, 1, srv.OAuthStats().Revocations)
	assert.False(t, srv.IsAppToken(tok.AccessToken))
	_, err := os.Stat(oauth.StorePath(o.Dir))
	assert.True(t, errors.Is(err, os.ErrNotExist))
	assert.ErrorIs(t, oauth.Logout(context.Background(), o), oauth.ErrNoToken)
}

// A grant Linear already revoked (the app uninstalled, a logout on
// another machine) answers 400 "not revocable": logout still succeeds.
func TestLogoutOfARevokedGrantSucceeds(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	o := options(t, srv)
	login(t, o)
	srv.RevokeGrants()
	require.NoError(t, oauth.Logout(context.Background(), o))
	_, err := os.Stat(oauth.StorePath(o.Dir))
	assert.True(t, errors.Is(err, os.ErrNotExist))
}

func TestClientCredentialsGivesAnAppTokenWithoutABrowser(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	o := options(t, srv)
	o.ClientSecret = linearfake.ClientSecret
	tok, err := oauth.LoginClientCredentials(context.Background(), o)
	require.NoError(t, err)
	assert.True(t, srv.IsAppToken(tok.AccessToken))
	assert.Empty(t, tok.RefreshToken)
	// Expiring, it is replaced by a new one under the lock.
	tok.Expiry = time.Now()
	writeStore(t, o.Dir, tok)
	next, app, err := oauth.AccessToken(context.Background(), o)
	require.NoError(t, err)
	assert.True(t, app)
	assert.NotEqual(t, tok.AccessToken, next)
	assert.False(t, srv.IsAppToken(tok.AccessToken), "one client-credentials token per application")
}

func TestSaveKeepsTheStorePrivateAndWhole(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ccc")
	writeStore(t, dir, oauth.Token{AccessToken: "a1", RefreshToken: "r1", Actor: "app"})
	require.NoError(t, os.Chmod(oauth.StorePath(dir), 0o644))
	writeStore(t, dir, oauth.Token{AccessToken: "a2", RefreshToken: "r2", Actor: "app"})
	fi, err := os.Stat(oauth.StorePath(dir))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{oauth.StoreName}, names, "no temp file is left")
	tok, err := oauth.Load(dir)
	require.NoError(t, err)
	assert.Equal(t, "a2", tok.AccessToken)
	assert.ElementsMatch(t, []string{"a2", "r2"}, oauth.StoredSecrets(dir))
}

func TestDamagedStoreAsksForLogin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(oauth.StorePath(dir), []byte("{\"access_tok"), 0o600))
	_, err := oauth.Load(dir)
	assert.ErrorContains(t, err, "run ccc linear login again")
}

func TestBrowserOnlyWhenOneIsAvailable(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) config.BrowserEnv { return config.EnvOf(m).Browser }
	assert.NotNil(t, oauth.Browser(env(map[string]string{"BROWSER": "true"})))
	if slices.Contains([]string{"linux", "freebsd", "openbsd", "netbsd"}, oauth.GOOS()) {
		assert.Nil(t, oauth.Browser(env(nil)), "no graphical session: print the URL only")
	}
}

func TestWhoamiQueryValidatesAgainstLinearsSchema(t *testing.T) {
	t.Parallel()
	s, err := linearschema.Load()
	require.NoError(t, err)
	_, errs := gqlparser.LoadQueryWithRules(s, oauth.WhoamiQuery, nil)
	assert.Empty(t, errs)
}

func TestWhoamiReportsARefusedTokenWithoutShowingIt(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	o := options(t, srv)
	tok, _ := login(t, o)
	srv.RevokeGrants()
	_, err := oauth.Whoami(context.Background(), o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "HTTP 400")
	assert.NotContains(t, err.Error(), tok.AccessToken)
}

// The store in the user's config directory as a FIFO, a symlink to
// /dev/zero or a symlink to a regular file elsewhere: Load refuses it at
// once, naming the path (before: hung, ran out of memory, or used the
// tokens the link led to).
func TestLoadRefusesASpecialStore(t *testing.T) {
	t.Parallel()
	for name, plant := range map[string]func(dir, path string) error{
		"fifo":      func(_, p string) error { return syscall.Mkfifo(p, 0o600) },
		"/dev/zero": func(_, p string) error { return os.Symlink("/dev/zero", p) },
		"symlink": func(dir, p string) error {
			other := filepath.Join(dir, "other.json")
			if err := os.WriteFile(other, []byte(`{"access_token": "x"}`), 0o600); err != nil {
				return err
			}
			return os.Symlink(other, p)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := oauth.StorePath(dir)
			require.NoError(t, plant(dir, path))
			done := make(chan error, 1)
			go func() { _, err := oauth.Load(dir); done <- err }()
			select {
			case err := <-done:
				require.Error(t, err)
				assert.Contains(t, err.Error(), path+" is a ")
				assert.NotErrorIs(t, err, oauth.ErrNoToken)
			case <-time.After(time.Second):
				t.Fatal("Load still blocked after a second")
			}
		})
	}
}
