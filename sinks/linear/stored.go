package linear

import (
	"context"
	"errors"
	"sync"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/sinks/linear/oauth"
)

// storedToken holds the token of `ccc linear login`, read once per sink
// (a ccc process is shorter than the refresh margin).
type storedToken struct {
	once  sync.Once
	token string
	err   error
}

// StoredTokenFromEnv is Config.StoredToken for the settings s: the sign-in of `ccc linear login` (oauth.AccessToken, which
// refreshes it when due).
func StoredTokenFromEnv(s config.Settings) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		o, err := oauth.OptionsFrom(s)
		if err != nil {
			return "", err
		}
		o.EnvToken = "" // LINEAR_OAUTH_TOKEN is Config.OAuthToken already
		tok, _, err := oauth.AccessToken(ctx, o)
		return tok, err
	}
}

// loadStored fills in the stored sign-in when neither LINEAR_API_KEY nor
// LINEAR_OAUTH_TOKEN is set. Not signed in is no error (the sink skips
// as before); a sign-in Linear no longer accepts is a retryable
// *sinks.Error, so the delivery waits in the outbox for the next login.
func (s *Sink) loadStored(ctx context.Context) error {
	if s.cfg.APIKey != "" || s.cfg.OAuthToken != "" || s.cfg.StoredToken == nil {
		return nil
	}
	s.stored.once.Do(func() { s.stored.token, s.stored.err = s.cfg.StoredToken(ctx) })
	if errors.Is(s.stored.err, oauth.ErrNoToken) {
		return nil
	}
	return s.stored.err
}
