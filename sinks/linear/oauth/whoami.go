package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// WhoamiQuery asks Linear who a token acts as, whether its application
// gets agent sessions, and in which workspace.
const WhoamiQuery = `query Whoami { viewer { id name app supportsAgentSessions } organization { name urlKey } }`

// Identity is what whoami and doctor show: never the token.
type Identity struct {
	ID   string
	Name string
	App  bool
	// SupportsAgentSessions: the application has webhooks with "Agent
	// session events" on; without them Linear refuses agent sessions.
	SupportsAgentSessions bool
	Workspace             string
	URLKey                string
	Scopes                []string
	Expiry                time.Time
	// Source is "LINEAR_OAUTH_TOKEN" or the store's path.
	Source string
}

// Whoami resolves a token (AccessToken, refreshing when due) and asks
// Linear whose it is.
func Whoami(ctx context.Context, o Options) (Identity, error) {
	o = o.withDefaults()
	tok, _, err := AccessToken(ctx, o)
	if err != nil {
		return Identity{}, err
	}
	id, err := ask(ctx, o, tok)
	if err != nil {
		return Identity{}, err
	}
	id.Source = "LINEAR_OAUTH_TOKEN"
	if o.EnvToken == "" {
		t, err := Load(o.Dir)
		if err != nil {
			return Identity{}, err
		}
		id.Source, id.Scopes, id.Expiry = StorePath(o.Dir), t.Scopes, t.Expiry
	}
	return id, nil
}

// ask sends WhoamiQuery with tok.
func ask(ctx context.Context, o Options, tok string) (Identity, error) {
	body, _ := json.Marshal(map[string]any{"query": WhoamiQuery, "operationName": "Whoami"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.APIURL, bytes.NewReader(body))
	if err != nil {
		return Identity{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := sinks.GuardRedirects(o.HTTPClient).Do(req)
	if err != nil {
		return Identity{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Identity{}, err
	}
	var out struct {
		Data struct {
			Viewer struct {
				ID                    string `json:"id"`
				Name                  string `json:"name"`
				App                   bool   `json:"app"`
				SupportsAgentSessions bool   `json:"supportsAgentSessions"`
			} `json:"viewer"`
			Organization struct {
				Name   string `json:"name"`
				URLKey string `json:"urlKey"`
			} `json:"organization"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != http.StatusOK || len(out.Errors) > 0 {
		if len(out.Errors) > 0 {
			return Identity{}, fmt.Errorf("linear: HTTP %d: %s", resp.StatusCode, out.Errors[0].Message)
		}
		return Identity{}, fmt.Errorf("linear: HTTP %d", resp.StatusCode)
	}
	v := out.Data.Viewer
	return Identity{
		ID: v.ID, Name: v.Name, App: v.App, SupportsAgentSessions: v.SupportsAgentSessions,
		Workspace: out.Data.Organization.Name, URLKey: out.Data.Organization.URLKey,
	}, nil
}

// identify asks who t acts as and keeps the answer with the sign-in;
// a token whose viewer is not an app user is refused (not stored): the
// linear-agent sink would take it for an app's.
func identify(ctx context.Context, o Options, t Token) (Token, error) {
	id, err := ask(ctx, o, t.AccessToken)
	if err != nil {
		return Token{}, fmt.Errorf("asking Linear who the new token is: %w", err)
	}
	if !id.App {
		return Token{}, fmt.Errorf("the sign-in is %q, not an app user of Linear: install the application with actor=app (a workspace admin must approve it)", id.Name)
	}
	supports := id.SupportsAgentSessions
	t.ViewerID, t.SupportsAgentSessions = id.ID, &supports
	return t, nil
}
