package checkpoint

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state"
)

// seenSink records the deliveries it is given.
type seenSink struct{ got []sinks.Delivery }

func (s *seenSink) Name() string  { return "linear" }
func (s *seenSink) Title() string { return "Linear" }
func (s *seenSink) Upsert(_ context.Context, d sinks.Delivery) (sinks.Result, error) {
	s.got = append(s.got, d)
	return sinks.Result{Action: sinks.Updated, Ref: sinks.Ref{ID: "c-1"}}, nil
}

// A stored reference is trusted only when this user's key signed it: any
// other is handed to the sink as Unverified (its pending id dropped), said
// once, and replaced by a signed one once delivered.
func TestStoredRefsAreTrustedOnlyWhenSigned(t *testing.T) {
	signed := signRef(testKey, "linear", "CIA-1", "main", sinks.Ref{ID: "c-1"})
	otherKey := []byte("fedcba9876543210fedcba9876543210")
	tests := []struct {
		name, state string
		unverified  bool
	}{
		{"unsigned", `{"linearIssue": "CIA-1", "ccc": {"refs": {"linear": {"CIA-1": {"main": {"id": "human-1", "pendingId": "p-1"}}}}}}`, true},
		{"signed by another key", `{"linearIssue": "CIA-1", "ccc": {"refs": {"linear": {"CIA-1": {"main": {"id": "c-1", "sig": "` +
			signRef(otherKey, "linear", "CIA-1", "main", sinks.Ref{ID: "c-1"}).Sig + `"}}}}}}`, true},
		{"signed for another issue", `{"linearIssue": "CIA-1", "ccc": {"refs": {"linear": {"CIA-1": {"main": {"id": "c-1", "sig": "` +
			signRef(testKey, "linear", "CIA-2", "main", sinks.Ref{ID: "c-1"}).Sig + `"}}}}}}`, true},
		{"legacy checkpointCommentId", `{"linearIssue": "CIA-1", "checkpointCommentId": "human-1"}`, true},
		{"signed", `{"linearIssue": "CIA-1", "ccc": {"refs": {"linear": {"CIA-1": {"main": {"id": "c-1", "sig": "` + signed.Sig + `"}}}}}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			require.NoError(t, os.WriteFile(state.Path(root), []byte(tt.state), 0o644))
			sink := &seenSink{}
			cp := newCP(root, Automated, progress.Edits{Current: "a"})
			cp.Trackers = []Tracker{{Sink: sink, Target: "CIA-1"}}
			runCP(cp)
			require.Len(t, sink.got, 1)
			d := sink.got[0]
			assert.Equal(t, tt.unverified, d.Unverified)
			assert.Empty(t, d.Prev.PendingID)
			alerts := strings.Join(cp.Alerts, "\n")
			if tt.unverified && !strings.Contains(tt.state, "checkpointCommentId") {
				assert.Len(t, cp.Alerts, 1)
				assert.Contains(t, alerts, "not signed by this user's ccc")
			} else {
				assert.Empty(t, cp.Alerts)
			}

			// Delivered: the stored reference is now signed and trusted.
			cp = newCP(root, Automated, progress.Edits{Current: "b"})
			cp.Trackers = []Tracker{{Sink: sink, Target: "CIA-1"}}
			runCP(cp)
			require.Len(t, sink.got, 2)
			assert.False(t, sink.got[1].Unverified)
			assert.Empty(t, cp.Alerts)
		})
	}
}

// Without a key (the user config dir cannot be written) nothing stored is
// trusted, silently: the key's own warning says why.
func TestNoKeyTrustsNoRef(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(state.Path(root), []byte(`{"linearIssue": "CIA-1", "ccc": {"refs": {"linear": {"CIA-1": {"main": {"id": "c-1"}}}}}}`), 0o644))
	sink := &seenSink{}
	cp := newCP(root, Automated, progress.Edits{Current: "a"})
	cp.Key = nil
	cp.Trackers = []Tracker{{Sink: sink, Target: "CIA-1"}}
	runCP(cp)
	require.Len(t, sink.got, 1)
	assert.True(t, sink.got[0].Unverified)
	assert.Nil(t, sink.got[0].Tag)
	assert.Empty(t, cp.Alerts)
}
