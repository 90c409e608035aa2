package github_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/githubfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/github"
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

// With the user's tag, a comment the token's own account wrote by hand
// with the hidden marker is never adopted; ccc's own tagged comment is
// found when its id was lost.
func TestTaggedMarkerAdoption(t *testing.T) {
	tag := func(fields ...string) string {
		sum := sha256.Sum256([]byte(strings.Join(fields, "\x00")))
		return hex.EncodeToString(sum[:])
	}
	srv := newFake(t)
	s := newSink(srv)
	d := sinktest.Delivery(pull, "main", "first", sinks.Ref{})
	d.Tag = tag
	first, err := sinktest.Upsert(t, s, d)
	require.NoError(t, err)
	id, _ := strconv.ParseInt(first.Ref.ID, 10, 64)
	ours, _ := srv.Comment(id)
	assert.Regexp(t, `\n<!-- ccc:checkpoint agent=main sig=[0-9a-f]{16} -->$`, ours.Body)

	// Id lost: found again by its tagged marker.
	d = sinktest.Delivery(pull, "main", "second", sinks.Ref{})
	d.Tag = tag
	res, err := sinktest.Upsert(t, s, d)
	require.NoError(t, err)
	assert.Equal(t, first.Ref.ID, res.Ref.ID)

	// ccc's comment deleted; the person writes one by hand, with the
	// marker (copied, tag and all, or bare).
	srv.DeleteComment(id)
	lines := strings.Split(ours.Body, "\n")
	for _, body := range []string{"my own words\n\n" + lines[len(lines)-1], "my own words\n\n" + github.Marker("main")} {
		forged := srv.AddComment(pull, githubfake.Login, body)
		d = sinktest.Delivery(pull, "main", "third", sinks.Ref{})
		d.Tag = tag
		res, err = sinktest.Upsert(t, s, d)
		require.NoError(t, err)
		assert.NotEqual(t, strconv.FormatInt(forged.ID, 10), res.Ref.ID)
		c, _ := srv.Comment(forged.ID)
		assert.Equal(t, body, c.Body, "the hand-written comment is untouched")
		srv.DeleteComment(forged.ID)
		rid, _ := strconv.ParseInt(res.Ref.ID, 10, 64)
		srv.DeleteComment(rid)
	}
}
