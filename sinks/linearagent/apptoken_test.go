package linearagent

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/sinks/linear/oauth"
)

// The app sign-in of `ccc linear login` chooses the agent sink as
// LINEAR_OAUTH_TOKEN does; a personal sign-in does not.
func TestAppTokenFromTheStore(t *testing.T) {
	for _, tt := range []struct {
		actor string
		app   bool
	}{{"app", true}, {"user", false}} {
		dir := t.TempDir()
		data, err := json.Marshal(oauth.Token{AccessToken: "lin_oauth_stored", Actor: tt.actor, Expiry: time.Now().Add(time.Hour)})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(oauth.StorePath(dir), data, 0o600))
		getenv := config.Settings{Env: config.Env{ConfigDir: dir}}
		token, app, viewer := appToken(getenv)
		assert.Equal(t, tt.app, app, tt.actor)
		assert.Nil(t, viewer, "a store older than the viewer's flags: asked at the first session")
		assert.Empty(t, token, "the stored token is read when the sink sends, not here")
	}
	_, app, _ := appToken(config.Settings{Env: config.EnvOf(map[string]string{"LINEAR_OAUTH_TOKEN": "lin_oauth_env"})})
	assert.True(t, app, "the environment's token")

	// The sign-in's viewer is kept: no query for it.
	dir := t.TempDir()
	no := false
	data, err := json.Marshal(oauth.Token{AccessToken: "lin_oauth_stored", Actor: "app", ViewerID: "v1", SupportsAgentSessions: &no})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(oauth.StorePath(dir), data, 0o600))
	_, _, viewer := appToken(config.Settings{Env: config.Env{ConfigDir: dir}})
	assert.Equal(t, &Viewer{ID: "v1", App: true}, viewer)
}
