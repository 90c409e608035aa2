package oauth_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks/linear/oauth"
)

// The sign-in stores who the token acts as: the app user's id, and
// whether its application gets agent sessions ("Agent session events").
func TestLoginStoresTheAppViewer(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.NoAgentSessionEvents = true
	o := options(t, srv)
	login(t, o)
	stored, err := oauth.Load(o.Dir)
	require.NoError(t, err)
	assert.Equal(t, linearfake.AppUserID, stored.ViewerID)
	require.NotNil(t, stored.SupportsAgentSessions)
	assert.False(t, *stored.SupportsAgentSessions)

	id, err := oauth.Whoami(context.Background(), o)
	require.NoError(t, err)
	assert.True(t, id.App)
	assert.False(t, id.SupportsAgentSessions)
}

// A grant whose viewer is a person (the application was not installed as
// an app) is refused, and nothing is stored.
func TestLoginRefusesATokenThatIsNotAnApp(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.PersonGrants = true
	o := options(t, srv)
	o.ClientSecret = linearfake.ClientSecret
	_, err := oauth.LoginClientCredentials(context.Background(), o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not an app")
	_, serr := os.Stat(oauth.StorePath(o.Dir))
	assert.ErrorIs(t, serr, os.ErrNotExist)
}
