package linearagent_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// An app whose OAuth application has no "Agent session events" webhook:
// viewer.supportsAgentSessions says so before any session is tried, and
// the status goes to the comment with that reason.
func TestAgentSessionsNotEnabledFallsBackWithTheReason(t *testing.T) {
	srv := newFake(t)
	srv.NoAgentSessionEvents = true
	s, _ := newSink(t, srv, linearfake.OAuthToken)
	d := &deliverer{s: s}
	res, err := d.deliver(t, "## Checkpoint Status\n")
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	assert.Len(t, srv.Comments("CIA-9"), 1)
	assert.Zero(t, count(srv, "agentSessionCreateOnIssue"), "the viewer said so in advance")
	assert.Contains(t, s.Phrase(res.Action, "CIA-9"), "agent sessions are not enabled for this OAuth application")
	assert.Contains(t, s.Phrase(res.Action, "CIA-9"), "Agent session events")

	_, err = d.deliver(t, "## Checkpoint Status\n\nagain\n")
	require.NoError(t, err)
	assert.Equal(t, 1, operations(srv, "AgentViewer"), "the viewer is asked once per sink")
}

// Linear's refusal text itself (the flag said yes, or was not read) is the
// same fallback, not a failure.
func TestAgentSessionsNotEnabledRefusalFallsBack(t *testing.T) {
	srv := newFake(t)
	s, _ := newSink(t, srv, linearfake.OAuthToken)
	srv.Inject(linearfake.InvalidInput("agentSessionCreateOnIssue", linearfake.AgentSessionsNotEnabled))
	d := &deliverer{s: s}
	res, err := d.deliver(t, "## Checkpoint Status\n")
	require.NoError(t, err)
	assert.Len(t, srv.Comments("CIA-9"), 1)
	assert.Empty(t, res.Ref.ID)
	assert.Contains(t, s.Phrase(res.Action, "CIA-9"), "agent sessions are not enabled")
}

func operations(srv *linearfake.Server, op string) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Operation == op {
			n++
		}
	}
	return n
}
