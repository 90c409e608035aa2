package linear_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
	"github.com/ccc-checkpoint/ccc/sinks/linear/oauth"
)

func TestStoredSignInIsUsedWhenNoKeyIsSet(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	access, _ := srv.Grant(true)
	s := linear.New(linear.Config{URL: srv.URL, StoredToken: func(context.Context) (string, error) { return access, nil }})
	res, err := upsert(t, s, sinks.Delivery{Target: sinks.Target{Issue: "CIA-9", Agent: "main"}, Body: "status"})
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	cs := srv.Comments("CIA-9")
	require.Len(t, cs, 1)
	assert.Equal(t, linearfake.AppUserID, cs[0].UserID)
}

func TestStoredSignInIsNotAskedWhenAKeyIsSet(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	s := linear.New(linear.Config{URL: srv.URL, APIKey: linearfake.APIKey, StoredToken: func(context.Context) (string, error) {
		t.Error("the store was read although LINEAR_API_KEY is set")
		return "", nil
	}})
	_, err := upsert(t, s, sinks.Delivery{Target: sinks.Target{Issue: "CIA-9", Agent: "main"}, Body: "status"})
	require.NoError(t, err)
}

func TestStoredSignInStates(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	// Not signed in: the sink skips, as without LINEAR_API_KEY.
	s := linear.New(linear.Config{URL: srv.URL, StoredToken: func(context.Context) (string, error) { return "", oauth.ErrNoToken }})
	_, err := s.Upsert(context.Background(), sinks.Delivery{Target: sinks.Target{Issue: "CIA-9", Agent: "main"}, Body: "status"})
	var skip *sinks.SkipError
	assert.ErrorAs(t, err, &skip)

	// Refused sign-in: a retryable failure (the outbox keeps it), no request.
	refused := &sinks.Error{Cause: "Linear refused the refresh token (invalid_grant): run ccc linear login again", Err: oauth.ErrLoginRequired}
	s = linear.New(linear.Config{URL: srv.URL, StoredToken: func(context.Context) (string, error) { return "", refused }})
	res, err := s.Upsert(context.Background(), sinks.Delivery{Target: sinks.Target{Issue: "CIA-9", Agent: "main"}, Body: "status"})
	var se *sinks.Error
	require.ErrorAs(t, err, &se)
	assert.False(t, se.Permanent)
	assert.Equal(t, sinks.Failed, res.Action)
	assert.Zero(t, srv.RequestCount())
}
