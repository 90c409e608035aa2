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

// WhoamiQuery asks Linear who a token acts as, and in which workspace.
const WhoamiQuery = `query Whoami { viewer { id name app } organization { name urlKey } }`

// Identity is what whoami and doctor show: never the token.
type Identity struct {
	Name      string
	App       bool
	Workspace string
	URLKey    string
	Scopes    []string
	Expiry    time.Time
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
	id := Identity{Source: "LINEAR_OAUTH_TOKEN"}
	if o.EnvToken == "" {
		t, err := Load(o.Dir)
		if err != nil {
			return Identity{}, err
		}
		id.Source, id.Scopes, id.Expiry = StorePath(o.Dir), t.Scopes, t.Expiry
	}
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
				Name string `json:"name"`
				App  bool   `json:"app"`
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
	id.Name, id.App = out.Data.Viewer.Name, out.Data.Viewer.App
	id.Workspace, id.URLKey = out.Data.Organization.Name, out.Data.Organization.URLKey
	return id, nil
}
