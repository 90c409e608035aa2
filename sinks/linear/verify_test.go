package linear_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
)

// A stored comment id that this user's ccc did not sign (a repository can
// commit any .ccc-state.json) is updated only when the comment is on the
// target issue, by the viewer, and ends with the agent's marker; any other
// comment is left as it was and the agent's own is found or created.
func TestUnverifiedRefIsCheckedBeforeUpdate(t *testing.T) {
	marker := "notes\n\n" + linear.Marker("main")
	tests := []struct {
		name              string
		issue, user, body string
		adopted           bool
		ops               []string
	}{
		{"ours", "CIA-9", linearfake.ViewerID, marker, true, []string{"Comment", "CommentUpdate"}},
		{"the viewer's, on another issue", "CIA-8", linearfake.ViewerID, marker, false, nil},
		{"a person's, with the marker", "CIA-9", linearfake.OtherUserID, marker, false, nil},
		{"the viewer's, without the marker", "CIA-9", linearfake.ViewerID, "a note of my own", false, nil},
		{"another agent's", "CIA-9", linearfake.ViewerID, "x\n\n" + linear.Marker("worker-2"), false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newFake(t)
			srv.AddIssue("CIA-8", "Elsewhere")
			const id = "7a1e0c3d-0000-4000-8000-000000000042"
			srv.AddCommentWithID(tt.issue, tt.user, id, tt.body)
			s := newSink(srv)
			d := delivery("CIA-9", "main", "new status", sinks.Ref{ID: id})
			d.Unverified = true
			res, err := upsert(t, s, d)
			require.NoError(t, err)
			c, ok := srv.Comment(id)
			require.True(t, ok)
			if tt.adopted {
				assert.Equal(t, sinks.Updated, res.Action)
				assert.Equal(t, id, res.Ref.ID)
				assert.Contains(t, c.Body, "new status")
				assert.Equal(t, tt.ops, ops(srv.Requests()))
				return
			}
			assert.Equal(t, tt.body, c.Body, "the comment the stored id names is untouched")
			assert.NotEqual(t, id, res.Ref.ID)
			assert.Equal(t, sinks.Created, res.Action)
			mine := srv.Comments("CIA-9")
			require.NotEmpty(t, mine)
			assert.Contains(t, mine[len(mine)-1].Body, "new status")
		})
	}
}

// A verified reference keeps the steady state at one request.
func TestVerifiedRefUpdatesInOneRequest(t *testing.T) {
	srv := newFake(t)
	s := newSink(srv)
	first, err := upsert(t, s, delivery("CIA-9", "main", "first", sinks.Ref{}))
	require.NoError(t, err)
	before := srv.RequestCount()
	_, err = upsert(t, s, delivery("CIA-9", "main", "second", first.Ref))
	require.NoError(t, err)
	assert.Equal(t, []string{"CommentUpdate"}, ops(srv.Requests()[before:]))
}

// With the user's tag, a look-alike comment by the same account — a person
// quoting ccc's visible marker line, tag included, at the end of their own
// comment after ccc's was deleted — is never adopted: the tag names another
// comment id. ccc's own tagged comment is still found when its id was lost,
// and an untagged marker of an older ccc is adopted on the id ccc derives.
func TestTaggedMarkerAdoption(t *testing.T) {
	key := func(fields ...string) string {
		sum := sha256.Sum256([]byte(strings.Join(fields, "\x00")))
		return hex.EncodeToString(sum[:])
	}
	withTag := func(d sinks.Delivery) sinks.Delivery { d.Tag = key; return d }

	t.Run("a quoted marker", func(t *testing.T) {
		srv := newFake(t)
		s := newSink(srv)
		first, err := upsert(t, s, withTag(delivery("CIA-9", "main", "first", sinks.Ref{})))
		require.NoError(t, err)
		ours, ok := srv.Comment(first.Ref.ID)
		require.True(t, ok)
		lines := strings.Split(strings.TrimSpace(ours.Body), "\n")
		marker := lines[len(lines)-1]
		assert.Regexp(t, "^ccc checkpoint · agent: `main` · `[0-9a-f]{16}`$", marker)
		srv.DeleteComment(first.Ref.ID)
		quote := srv.AddCommentWithID("CIA-9", linearfake.ViewerID, "7a1e0c3d-0000-4000-8000-0000000000aa", "I agree with ccc:\n\n"+marker)

		res, err := upsert(t, s, withTag(delivery("CIA-9", "main", "second", sinks.Ref{})))
		require.NoError(t, err)
		assert.NotEqual(t, quote.ID, res.Ref.ID)
		c, _ := srv.Comment(quote.ID)
		assert.Equal(t, quote.Body, c.Body, "the person's comment is untouched")
	})
	t.Run("ours, id lost", func(t *testing.T) {
		srv := newFake(t)
		s := newSink(srv, func(c *linear.Config) { c.NewID = func() string { return "7a1e0c3d-0000-4000-8000-0000000000bb" } })
		srv.AddCommentWithID("CIA-9", linearfake.OtherUserID, linear.CommentID("CIA-9", "main"), "taken by someone else")
		first, err := upsert(t, s, withTag(delivery("CIA-9", "main", "first", sinks.Ref{})))
		require.NoError(t, err)
		require.Equal(t, "7a1e0c3d-0000-4000-8000-0000000000bb", first.Ref.ID, "a random id: the derived one was taken")
		res, err := upsert(t, s, withTag(delivery("CIA-9", "main", "second", sinks.Ref{})))
		require.NoError(t, err)
		assert.Equal(t, sinks.Updated, res.Action)
		assert.Equal(t, first.Ref.ID, res.Ref.ID, "found by its tagged marker")
	})
	t.Run("an older ccc's untagged marker", func(t *testing.T) {
		srv := newFake(t)
		s := newSink(srv)
		old := srv.AddCommentWithID("CIA-9", linearfake.ViewerID, linear.CommentID("CIA-9", "main"), "old\n\n"+linear.Marker("main"))
		res, err := upsert(t, s, withTag(delivery("CIA-9", "main", "new", sinks.Ref{})))
		require.NoError(t, err)
		assert.Equal(t, sinks.Updated, res.Action)
		assert.Equal(t, old.ID, res.Ref.ID)
		// A person's untagged copy on another id is not.
		srv.DeleteComment(old.ID)
		copyC := srv.AddCommentWithID("CIA-9", linearfake.ViewerID, "7a1e0c3d-0000-4000-8000-0000000000cc", "mine\n\n"+linear.Marker("main"))
		res, err = upsert(t, s, withTag(delivery("CIA-9", "main", "newer", sinks.Ref{})))
		require.NoError(t, err)
		assert.NotEqual(t, copyC.ID, res.Ref.ID)
		c, _ := srv.Comment(copyC.ID)
		assert.Equal(t, copyC.Body, c.Body)
	})
}
