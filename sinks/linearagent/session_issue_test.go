package linearagent_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// A state file's reference the memo does not vouch for may name a session
// of another issue (copied, edited): ccc asks Linear which issue it is on
// and writes nothing into it unless it is the delivery's; the delivery
// goes to the memo's session, else a new one.
func TestSessionOfAnotherIssueIsNotWrittenTo(t *testing.T) {
	for _, withMemo := range []bool{false, true} {
		name := "no memo"
		if withMemo {
			name = "memo's session"
		}
		t.Run(name, func(t *testing.T) {
			srv := newFake(t)
			srv.AddIssue("CIA-10", "Another issue")
			s, _ := newSink(t, srv, linearfake.OAuthToken)
			ctx := context.Background()
			other, err := sinks.Deliver(ctx, s, sinks.Delivery{Target: sinks.Target{Issue: "CIA-10", Agent: "main"}, Body: "elsewhere"})
			require.NoError(t, err)
			d := &deliverer{s: s}
			var own string
			if withMemo {
				res, err := d.deliver(t, "one")
				require.NoError(t, err)
				own = res.Ref.ID
			}
			before := len(srv.Sessions("CIA-10")[0].Activities)

			d.prev = sinks.Ref{ID: other.Ref.ID}
			res, err := d.deliver(t, "two")
			require.NoError(t, err)
			assert.NotEqual(t, other.Ref.ID, res.Ref.ID)
			assert.Len(t, srv.Sessions("CIA-10")[0].Activities, before, "nothing said in another issue's session")
			got := srv.Sessions("CIA-9")
			require.Len(t, got, 1)
			assert.Equal(t, got[0].ID, res.Ref.ID)
			if withMemo {
				assert.Equal(t, own, res.Ref.ID, "the memo's session goes on")
			}
		})
	}
}
