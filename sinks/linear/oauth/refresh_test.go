package oauth_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/sinks/linear/oauth"
)

// A token endpoint that answers after the caller's deadline: the rotated
// pair is still stored (the refresh runs on its own context), so the next
// run needs no new login.
func TestSlowRefreshOutlivesTheCallersDeadline(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	o := options(t, srv)
	login(t, o)
	old := expire(t, o.Dir)
	srv.SetTokenDelay(700 * time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, _ = oauth.AccessToken(ctx, o)

	srv.SetTokenDelay(0)
	tok, app, err := oauth.AccessToken(context.Background(), o)
	require.NoError(t, err, "the rotated pair was stored")
	assert.True(t, app)
	assert.NotEqual(t, old.AccessToken, tok)
	assert.Equal(t, 1, srv.OAuthStats().Refreshes)
	assert.Zero(t, srv.OAuthStats().InvalidGrants)
}
