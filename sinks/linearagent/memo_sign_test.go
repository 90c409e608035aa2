package linearagent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linearagent"
)

// A memo the repository committed (or copied from another issue's) is not
// this user's: the sink never reads prompts from, nor writes into, the
// session it names.
func TestForgedMemoIsNotTrusted(t *testing.T) {
	srv := newFake(t)
	srv.AddIssue("CIA-10", "Another issue")
	s, root := newSink(t, srv, linearfake.OAuthToken)
	res, err := (&deliverer{s: s}).deliver(t, "one")
	require.NoError(t, err)
	srv.AddPrompt(res.Ref.ID, "Ada", "private to CIA-9", false)

	// CIA-9's signed memo, copied to CIA-10's place; and an unsigned one.
	data, err := os.ReadFile(linearagent.MemoPath(root, "CIA-9", "main"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(linearagent.MemoPath(root, "CIA-10", "main"), data, 0o644))
	unsigned, _ := json.Marshal(map[string]any{"session": res.Ref.ID})
	require.NoError(t, os.MkdirAll(filepath.Dir(linearagent.MemoPath(root, "CIA-9", "other")), 0o755))
	require.NoError(t, os.WriteFile(linearagent.MemoPath(root, "CIA-9", "other"), unsigned, 0o644))

	ctx := context.Background()
	for _, target := range []sinks.Target{{Issue: "CIA-10", Agent: "main"}, {Issue: "CIA-9", Agent: "other"}} {
		ps, err := s.Prompts(ctx, target.Issue, target.Agent)
		require.NoError(t, err)
		assert.Empty(t, ps, "%v: no prompt read from a session this user's ccc did not store", target)
	}
	before := len(srv.Sessions("CIA-9")[0].Activities)
	out, err := sinks.Deliver(ctx, s, sinks.Delivery{Target: sinks.Target{Issue: "CIA-10", Agent: "main"}, Body: "two"})
	require.NoError(t, err)
	assert.NotEqual(t, res.Ref.ID, out.Ref.ID)
	assert.Len(t, srv.Sessions("CIA-9")[0].Activities, before, "CIA-9's session is untouched")
}
