package checkpoint

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state"
)

// A project set up by CCC's own commands names the main agent's Linear
// comment under checkpointCommentId: ccc updates that comment instead of
// creating a second one, but only for the state's own issue and only until
// it keeps references of its own.
func TestAdoptsCCCCommentID(t *testing.T) {
	tests := []struct {
		name   string
		state  string
		sink   string
		agent  string
		edits  progress.Edits
		adopts bool
	}{
		{"the state's issue", `{"linearIssue": "CIA-1", "checkpointCommentId": "ccc-1"}`, "linear", "main", progress.Edits{Current: "a"}, true},
		{"activeIssue", `{"activeIssue": "CIA-1", "checkpointCommentId": "ccc-1"}`, "linear", "main", progress.Edits{Current: "a"}, true},
		{"--issue may name another issue", `{"linearIssue": "CIA-1", "checkpointCommentId": "ccc-1"}`, "linear", "main", progress.Edits{Issue: "CIA-2", Current: "a"}, false},
		{"another agent", `{"linearIssue": "CIA-1", "checkpointCommentId": "ccc-1"}`, "linear", "worker-2", progress.Edits{Current: "a"}, false},
		{"another sink", `{"linearIssue": "CIA-1", "checkpointCommentId": "ccc-1"}`, "github", "main", progress.Edits{Current: "a"}, false},
		{"ccc keeps its own references", `{"linearIssue": "CIA-1", "checkpointCommentId": "ccc-1", "ccc": {"refs": {"linear": {"CIA-9": {"main": {"id": "x"}}}}}}`,
			"linear", "main", progress.Edits{Current: "a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			require.NoError(t, os.WriteFile(state.Path(root), []byte(tt.state), 0o644))
			sink := &fakeSink{name: tt.sink}
			cp := newCP(root, Automated, tt.edits)
			cp.Agent = tt.agent
			cp.Trackers = []Tracker{{Sink: sink, Target: "CIA-1"}}
			r := runCP(cp)
			require.Equal(t, 1, sink.calls, "%v", r.Lines())
			sr := r.Steps[len(r.Steps)-1].Sinks
			require.Len(t, sr, 1)
			if tt.adopts {
				assert.Equal(t, sinks.Updated, sr[0].Action, "the CCC comment is updated")
			} else {
				assert.Equal(t, sinks.Created, sr[0].Action)
			}
		})
	}
}
