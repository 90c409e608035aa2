package github_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/github"
	"github.com/ccc-checkpoint/ccc/sinks/github/githubfake"
	"github.com/ccc-checkpoint/ccc/sinks/sinktest"
)

// A stored comment id that this user's ccc did not sign is never patched:
// GitHub lets the token edit any of its account's comments in the
// repository, and a forged reference carries no address (or a false one).
// The marker search finds the agent's own comment instead.
func TestUnverifiedRefIsNotPatched(t *testing.T) {
	marker := "notes\n\n" + github.Marker("main")
	tests := []struct {
		name, target, url string
	}{
		{"the account's comment on another issue, no address", issue, ""},
		{"the account's comment on another issue, a false address", issue, "https://github.com/octo/app/pull/7#issuecomment-1"},
		{"the account's own note on the target", pull, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newFake(t)
			body := marker
			if tt.target == pull {
				body = "a note of my own"
			}
			victim := srv.AddComment(tt.target, githubfake.Login, body)
			s := newSink(srv)
			d := sinktest.Delivery(pull, "main", "new status", sinks.Ref{ID: strconv.FormatInt(victim.ID, 10), URL: tt.url})
			d.Unverified = true
			res, err := sinktest.Upsert(t, s, d)
			require.NoError(t, err)
			c, ok := srv.Comment(victim.ID)
			require.True(t, ok)
			assert.Equal(t, body, c.Body, "untouched")
			assert.Equal(t, sinks.Created, res.Action)
			assert.NotEqual(t, strconv.FormatInt(victim.ID, 10), res.Ref.ID)
		})
	}
}
