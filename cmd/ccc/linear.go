package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/sinks/linear/oauth"
)

// LinearLoginOptions is `ccc linear login` as parsed.
type LinearLoginOptions struct {
	NoBrowser         bool
	ClientID          string
	ClientSecret      string
	Scopes            []string
	Port              int
	ClientCredentials bool
	Timeout           time.Duration
}

// NewCmdLinear builds `ccc linear` and its sign-in commands.
func NewCmdLinear(f *Factory, runF func(*LinearLoginOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "linear <command>",
		Short: "Sign ccc in to Linear as an agent",
		Long: `Sign ccc in to Linear as an agent (an "app user" of your own OAuth
application), once per machine. See docs/linear-agent.md.` + exitStatusHelp(
			"0  this help was printed (each sub-command lists its own)",
			"2  usage error"),
		Example: `  ccc linear login --client-id 1a2b3c...
  ccc linear whoami
  ccc linear logout`,
		Args: noArgs,
	}
	cmd.AddCommand(newCmdLinearLogin(f, runF), newCmdLinearLogout(f), newCmdLinearWhoami(f))
	return cmd
}

func newCmdLinearLogin(f *Factory, runF func(*LinearLoginOptions) error) *cobra.Command {
	opts := &LinearLoginOptions{}
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Sign in to Linear with your OAuth application (PKCE, actor=app)",
		Long: `Sign in to Linear as your OAuth application's agent: ccc listens on
127.0.0.1 at a random port (--port to choose it), prints the authorization
URL (and opens it in a browser when one is available, never with
--no-browser), and waits for Linear to send the browser back to
http://127.0.0.1:<port>/callback. Register that callback URL in the
application (with --port, exactly that URL) and have a workspace admin
approve the install.

The client id comes from --client-id, $LINEAR_CLIENT_ID, or your own
preferences (sinks: linear: client_id: in $CCC_CONFIG_DIR/preferences.yaml);
the secret, if the application has one, from --client-secret or
$LINEAR_CLIENT_SECRET. The tokens go to linear-oauth.json in the user's
config directory (mode 0600), never to the project, and are never printed.

--client-credentials asks for an app token without a browser (Linear's
client_credentials grant, for applications that enable it): valid 30 days;
a request with other scopes revokes all the application's tokens, so use a
separate application for CI and the same --scopes in every job.` + exitStatusHelp(
			"0  signed in",
			"1  the sign-in failed or timed out",
			"2  usage error"),
		Example: `  ccc linear login --client-id 1a2b3c...
  ccc linear login --no-browser
  LINEAR_CLIENT_ID=... LINEAR_CLIENT_SECRET=... ccc linear login --client-credentials`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return linearLoginRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.NoBrowser, "no-browser", false, "print the URL only; never open a browser")
	fl.StringVar(&opts.ClientID, "client-id", "", "your OAuth application's client id (default $LINEAR_CLIENT_ID)")
	fl.StringVar(&opts.ClientSecret, "client-secret", "", "its client secret, if it has one (default $LINEAR_CLIENT_SECRET)")
	fl.StringSliceVar(&opts.Scopes, "scopes", oauth.DefaultScopes, "scopes to request")
	fl.IntVar(&opts.Port, "port", 0, "loopback port to listen on for the callback (default: any free port)")
	fl.BoolVar(&opts.ClientCredentials, "client-credentials", false, "get an app token with the client_credentials grant (no browser)")
	durationVar(fl, &opts.Timeout, "timeout", 5*time.Minute, "how long to wait for the browser")
	return cmd
}

func linearOptions(f *Factory) (oauth.Options, error) {
	o, err := oauth.OptionsFrom(f.settings())
	if err != nil {
		return o, err
	}
	// Token expiry is Linear's real clock: CCC_NOW (f.Now) does not move it.
	o.HTTPClient = f.HTTPClient
	return o, nil
}

func linearLoginRun(ctx context.Context, f *Factory, opts *LinearLoginOptions) error {
	o, err := linearOptions(f)
	if err != nil {
		return err
	}
	if opts.ClientID != "" {
		o.ClientID = opts.ClientID
	}
	if opts.ClientSecret != "" {
		o.ClientSecret = opts.ClientSecret
	}
	o.Scopes = opts.Scopes
	if opts.Port < 0 || opts.Port > 65535 {
		return &usageError{fmt.Errorf("--port %d: not a port", opts.Port)}
	}
	o.Port = opts.Port
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	var t oauth.Token
	if opts.ClientCredentials {
		t, err = oauth.LoginClientCredentials(ctx, o)
	} else {
		lio := oauth.LoginIO{Show: func(u string) {
			fmt.Fprintf(f.IO.ErrOut, "Open this URL to sign ccc in to Linear:\n  %s\nWaiting for Linear (Ctrl-C to give up)...\n", u)
		}}
		if !opts.NoBrowser {
			lio.Open = oauth.Browser(f.env().Browser)
		}
		t, err = oauth.Login(ctx, o, lio)
	}
	if err != nil {
		return fmt.Errorf("linear login: %w", err)
	}
	fmt.Fprintf(f.IO.ErrOut, "✓ Signed in to Linear as the app (scopes %s; token expires %s), stored in %s\n",
		strings.Join(t.Scopes, ","), t.Expiry.UTC().Format(time.RFC3339), oauth.StorePath(o.Dir))
	return nil
}

func newCmdLinearLogout(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "logout",
		Short: "Revoke the Linear sign-in and delete the stored tokens",
		Long: `Revoke the stored Linear grant at Linear and delete the token store. The
store is deleted even when Linear cannot be reached; ccc says so.` + exitStatusHelp(
			"0  signed out",
			"1  nothing was stored, or Linear did not confirm the revocation (the tokens are deleted anyway)",
			"2  usage error"),
		Example: "  ccc linear logout",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := linearOptions(f)
			if err != nil {
				return err
			}
			if err := oauth.Logout(cmd.Context(), o); err != nil {
				return fmt.Errorf("linear logout: %w", err)
			}
			fmt.Fprintln(f.IO.ErrOut, "✓ Signed out of Linear: the grant is revoked and the tokens deleted")
			return nil
		},
	}
}

func newCmdLinearWhoami(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "whoami",
		Short: "Show who ccc acts as in Linear: actor, workspace, scopes, expiry",
		Long: `Show the Linear actor ccc's OAuth token acts as (an app, or a person), the
workspace, the scopes and when the access token expires; never the token.
LINEAR_OAUTH_TOKEN, when set, is the token shown. A token about to expire is
refreshed first.` + exitStatusHelp(
			"0  signed in, and Linear answered",
			"1  not signed in, or Linear refused the token",
			"2  usage error"),
		Example: "  ccc linear whoami",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := linearOptions(f)
			if err != nil {
				return err
			}
			id, err := oauth.Whoami(cmd.Context(), o)
			if err != nil {
				return fmt.Errorf("linear whoami: %w", err)
			}
			fmt.Fprintln(f.IO.Out, whoamiLine(id))
			return nil
		},
	}
}

// whoamiLine is whoami's answer, and doctor's line.
func whoamiLine(id oauth.Identity) string {
	actor := "person"
	if id.App {
		actor = "app"
	}
	s := fmt.Sprintf("%s %q in workspace %s (%s)", actor, id.Name, id.Workspace, id.URLKey)
	if id.App {
		if id.SupportsAgentSessions {
			s += ", agent sessions enabled"
		} else {
			s += ", agent sessions not enabled (turn on the application's webhooks with Agent session events, then log in again)"
		}
	}
	if len(id.Scopes) > 0 {
		s += ", scopes " + strings.Join(id.Scopes, ",")
	}
	if !id.Expiry.IsZero() {
		s += ", expires " + id.Expiry.UTC().Format(time.RFC3339)
	}
	return s + ", from " + id.Source
}

// linearSignInCheck is doctor's line about the Linear sign-in, only when
// there is one stored.
func linearSignInCheck(ctx context.Context, f *Factory, timeout time.Duration) []Check {
	o, err := linearOptions(f)
	if err != nil {
		return nil
	}
	if _, err := oauth.Load(o.Dir); errors.Is(err, oauth.ErrNoToken) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id, err := oauth.Whoami(ctx, o)
	if err != nil {
		return []Check{{Name: "linear sign-in", Status: "fail", Message: err.Error(), Hint: "run ccc linear login"}}
	}
	return []Check{{Name: "linear sign-in", Status: "ok", Message: whoamiLine(id)}}
}

// linearStoredSecrets are the tokens of `ccc linear login`, for the
// redactor: ccc holds them as it holds LINEAR_API_KEY.
func linearStoredSecrets(f *Factory) []string {
	o, err := linearOptions(f)
	if err != nil {
		return nil
	}
	return oauth.StoredSecrets(o.Dir)
}
