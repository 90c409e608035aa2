package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks/linear/oauth"
)

// fakeBrowser is the $BROWSER of the scripts: it opens the URL it is
// given and follows the redirect back to ccc's loopback listener, as a
// person clicking "Authorize" would.
func fakeBrowser() int {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fakebrowser URL")
		return 2
	}
	resp, err := http.Get(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(os.Stderr, "HTTP %d: %s\n", resp.StatusCode, body)
		return 1
	}
	return 0
}

// cmdOAuth inspects the script's fake Linear OAuth server:
//
//	oauth refreshes N        exactly N refresh-token grants answered
//	oauth author TARGET app  TARGET's newest comment is by the app user
//	oauth plant              set $PLANTED to text holding the stored tokens
//	oauth revoke             revoke every grant (the app was uninstalled)
//	oauth due                the stored access token expires in a minute
//	oauth nosecrets          no token the fake issued appears in the last
//	                         stdout/stderr or in any file under $WORK
//	                         except the token store
func cmdOAuth(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: oauth refreshes N | author TARGET app | nosecrets")
	}
	srv := ts.Value("linear").(fake).(linearFake).Server
	// The store where the script's ccc keeps it: $CCC_CONFIG_DIR, else
	// the user's config dir (a journey's fresh $HOME sets XDG_CONFIG_HOME;
	// os.UserConfigDir reads this process's environment, not the script's).
	o := oauth.Options{Dir: ts.Getenv("CCC_CONFIG_DIR")}
	if o.Dir == "" {
		o.Dir = filepath.Join(ts.Getenv("XDG_CONFIG_HOME"), "ccc")
	}
	switch args[0] {
	case "refreshes":
		if got := fmt.Sprint(srv.OAuthStats().Refreshes); got != args[1] {
			ts.Fatalf("%s refreshes, want %s", got, args[1])
		}
	case "plant":
		tok, err := oauth.Load(o.Dir)
		ts.Check(err)
		ts.Setenv("PLANTED", "access="+tok.AccessToken+",refresh="+tok.RefreshToken)
	case "revoke":
		srv.RevokeGrants()
	case "due":
		dir := o.Dir
		tok, err := oauth.Load(dir)
		ts.Check(err)
		tok.Expiry = time.Now().Add(time.Minute)
		data, err := json.Marshal(tok)
		ts.Check(err)
		ts.Check(os.WriteFile(oauth.StorePath(dir), data, 0o600))
	case "author":
		cs := srv.Comments(args[1])
		if len(cs) == 0 || cs[len(cs)-1].UserID != linearfake.AppUserID {
			ts.Fatalf("the newest comment on %s is not the app's", args[1])
		}
	case "nosecrets":
		secrets := srv.IssuedSecrets()
		if len(secrets) == 0 {
			ts.Fatalf("the fake issued no token")
		}
		texts := map[string]string{"stdout": ts.ReadFile("stdout"), "stderr": ts.ReadFile("stderr")}
		store := oauth.StorePath(o.Dir)
		for _, root := range []string{ts.Getenv("WORK"), o.Dir} {
			_ = filepath.Walk(root, func(path string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode().IsRegular() && path != store {
					b, _ := os.ReadFile(path)
					texts[path] = string(b)
				}
				return nil
			})
		}
		for name, text := range texts {
			for _, s := range secrets {
				if strings.Contains(text, s) {
					ts.Fatalf("a token appears in %s", name)
				}
			}
		}
	default:
		ts.Fatalf("oauth: unknown check %q", args[0])
	}
}

func TestLinearLoginFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want LinearLoginOptions
	}{
		{nil, LinearLoginOptions{Scopes: oauth.DefaultScopes, Timeout: 5 * time.Minute}},
		{[]string{"--no-browser", "--client-id", "cid", "--scopes", "read,write", "--timeout", "30s"},
			LinearLoginOptions{NoBrowser: true, ClientID: "cid", Scopes: []string{"read", "write"}, Timeout: 30 * time.Second}},
		{[]string{"--client-credentials", "--client-secret", "sec"},
			LinearLoginOptions{ClientCredentials: true, ClientSecret: "sec", Scopes: oauth.DefaultScopes, Timeout: 5 * time.Minute}},
	}
	for _, c := range cases {
		var got *LinearLoginOptions
		cmd := NewCmdLinear(&Factory{}, func(o *LinearLoginOptions) error { got = o; return nil })
		cmd.SetArgs(append([]string{"login"}, c.args...))
		cmd.SetOut(io.Discard)
		require.NoError(t, cmd.Execute(), c.args)
		assert.Equal(t, c.want, *got, c.args)
	}
}

// TestConcurrentProcessesSpendEachRefreshTokenOnce starts ten ccc processes
// that all find the stored access token about to expire: one refreshes,
// the others wait on the store's lock and use the pair it stored.
func TestConcurrentProcessesSpendEachRefreshTokenOnce(t *testing.T) {
	t.Parallel()
	srv := linearfake.New()
	defer srv.Close()
	access, refresh := srv.Grant(true)
	conf := t.TempDir()
	data, err := json.Marshal(oauth.Token{
		AccessToken: access, RefreshToken: refresh, Expiry: time.Now().Add(time.Minute),
		Scopes: oauth.DefaultScopes, Actor: "app", ClientID: linearfake.ClientID, Grant: "authorization_code",
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(oauth.StorePath(conf), data, 0o600))

	env := append(os.Environ(), "CCC_CONFIG_DIR="+conf, "LINEAR_API_URL="+srv.URL, "LINEAR_TOKEN_URL="+srv.TokenURL(),
		"LINEAR_OAUTH_TOKEN=", "LINEAR_API_KEY=", "CCC_NOW=", "NO_COLOR=1")
	const n = 10
	outs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("ccc", "linear", "whoami") // TestMain put this test binary on PATH as ccc
			cmd.Env = env
			var buf bytes.Buffer
			cmd.Stdout, cmd.Stderr = &buf, &buf
			err := cmd.Run()
			outs[i] = buf.String()
			assert.NoError(t, err, "process %d: %s", i, outs[i])
		}()
	}
	wg.Wait()
	st := srv.OAuthStats()
	assert.Equal(t, 1, st.Refreshes, "one refresh for ten processes")
	assert.Zero(t, st.Reused, "no refresh token was presented twice")
	assert.Zero(t, st.InvalidGrants)
	for i, out := range outs {
		assert.Contains(t, out, `app "ccc agent"`, "process %d", i)
		for _, s := range srv.IssuedSecrets() {
			assert.NotContains(t, out, s, "process %d printed a token", i)
		}
	}
}
