package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// fakeStep returns err (or panics with p) and records that it ran.
type fakeStep struct {
	name, cons string
	err        error
	p          any
	note       string
	ran        *[]string
}

func (s fakeStep) String() string      { return s.name }
func (s fakeStep) Consequence() string { return s.cons }
func (s fakeStep) Run(_ context.Context, cp *Context) error {
	*s.ran = append(*s.ran, s.name)
	if s.p != nil {
		panic(s.p)
	}
	if s.note != "" {
		cp.notef("%s", s.note)
	}
	return s.err
}

func TestRunIsFailForward(t *testing.T) {
	var ran []string
	steps := []Step{
		fakeStep{name: "Persist progress", ran: &ran, note: "updated .ccc-progress.md"},
		fakeStep{name: "Git snapshot", ran: &ran, err: fmt.Errorf("wrapped: %w", sinks.Skip("working tree clean"))},
		fakeStep{name: "Linear update", cons: "status not persisted to issue tracker", ran: &ran, note: "half done",
			err: &Failure{Cause: "HTTP 503", Err: errors.New("server said 503 with a long body")}},
		fakeStep{name: "Exploding", cons: "nothing shown", ran: &ran, p: "boom"},
		fakeStep{name: "Continuation prompt", ran: &ran},
	}
	r := Run(context.Background(), &Context{Profile: Manual}, steps)

	assert.Equal(t, []string{"Persist progress", "Git snapshot", "Linear update", "Exploding", "Continuation prompt"}, ran,
		"every step runs although the third failed and the fourth panicked")
	assert.Equal(t, 3, r.Succeeded)
	assert.Equal(t, 5, r.Total)
	assert.Equal(t, OutcomePartial, r.Outcome())
	assert.Equal(t, []string{
		"Checkpoint saved; 2 of 5 steps failed: Linear update, Exploding.",
		"Persist progress: updated .ccc-progress.md.",
		"Git snapshot skipped — working tree clean.",
		"Failed: Linear update (HTTP 503) — status not persisted to issue tracker.",
		"Failed: Exploding (panic: boom) — nothing shown.",
	}, r.Lines(), "a failed step's note does not leak into a later line")
}

func TestReportSeedForms(t *testing.T) {
	all := Report{Total: 4, Succeeded: 4, Steps: []Result{{Name: "Persist progress", Status: OK}}}
	assert.Equal(t, "Checkpoint complete: 4/4 steps succeeded.\n", all.String())

	partial := Report{Total: 4, Succeeded: 3, Steps: []Result{
		{Name: "Linear update", Status: Failed, Message: "HTTP 503", Consequence: "status not persisted to issue tracker"},
	}}
	assert.Equal(t, "Checkpoint saved; 1 of 4 steps failed: Linear update.\nFailed: Linear update (HTTP 503) — status not persisted to issue tracker.\n", partial.String())

	queued := Report{Total: 4, Succeeded: 3, Steps: []Result{
		{Name: "Linear update", Status: Failed, Message: "HTTP 503", Consequence: queuedConsequence},
	}}
	assert.Equal(t, "Checkpoint saved; 1 of 4 steps failed: Linear update (queued for retry).", queued.Lines()[0],
		"never \"complete\" when a step failed")
}

// TestReportMarks: a failed or queued delivery is never marked done, and
// the summary's mark matches what it says.
func TestReportMarks(t *testing.T) {
	r := Report{Total: 2, Succeeded: 1, Steps: []Result{
		{Name: "Persist progress", Status: OK, Message: "updated .ccc-progress.md"},
		{Name: "Tracker update", Status: Failed, Message: "1 of 2 failed", Consequence: queuedConsequence, Sinks: []SinkResult{
			{Title: "Linear", Target: "CIA-1", Action: sinks.Failed, Error: "HTTP 500", Queued: true},
			{Title: "GitHub", Target: "a/b#1", Action: sinks.Updated},
		}},
	}, Warnings: []string{"w"}}
	assert.Equal(t, []Line{
		{MarkWarn, "Checkpoint saved; 1 of 2 steps failed: Tracker update (queued for retry)."},
		{MarkOK, "Persist progress: updated .ccc-progress.md."},
		{MarkFail, "Failed: Tracker update (1 of 2 failed) — queued for retry (ccc sync)."},
		{MarkFail, "  Linear: failed (HTTP 500) — queued for retry (ccc sync)."},
		{MarkOK, "  GitHub: updated comment on a/b#1."},
		{MarkWarn, "Warning: w"},
	}, r.Marked())
}

func TestPostSummary(t *testing.T) {
	post := func(rs ...SinkResult) string {
		return Report{Profile: Post, Total: 1, Steps: []Result{{Name: "Tracker update", Sinks: rs}}}.Lines()[0]
	}
	ok := SinkResult{Action: sinks.Updated}
	same := SinkResult{Action: sinks.Unchanged}
	queued := SinkResult{Action: sinks.Failed, Queued: true}
	skipped := SinkResult{Action: sinks.Skipped}
	assert.Equal(t, "Posted to 2 of 2 trackers.", post(ok, ok))
	assert.Equal(t, "Posted to 1 of 1 tracker.", post(ok))
	assert.Equal(t, "Posted to 1 of 2 trackers; 1 failed (queued for retry).", post(ok, queued))
	assert.Equal(t, "Posted to 1 of 2 trackers; 1 already up to date.", post(ok, same))
	assert.Equal(t, "Nothing new to post: 1 of 2 trackers already up to date; 1 skipped.", post(same, skipped))
	assert.Equal(t, "Nothing posted to 2 trackers; 1 already up to date, 1 failed (queued for retry).", post(same, queued))
	assert.Equal(t, "Nothing posted to 1 tracker; 1 failed (queued for retry).", post(queued))
	assert.Equal(t, "Nothing posted.", Report{Profile: Post, Total: 1, Steps: []Result{{Name: "Tracker update", Status: Skipped}}}.Lines()[0])
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		succeeded, total int
		want             Outcome
	}{
		{4, 4, OutcomeOK},
		{2, 2, OutcomeOK},
		{3, 4, OutcomePartial},
		{1, 4, OutcomePartial},
		{0, 4, OutcomeNothing},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Report{Succeeded: tt.succeeded, Total: tt.total}.Outcome(), "%d/%d", tt.succeeded, tt.total)
	}
	post := Report{Total: 1, Steps: []Result{{Name: "Tracker update", Status: Failed, Sinks: []SinkResult{{Action: "failed"}}}}}
	assert.Equal(t, OutcomePartial, post.Outcome(), "a sink that failed is a partial success")
}

func TestReportJSON(t *testing.T) {
	var ran []string
	r := Run(context.Background(), &Context{Profile: Automated, Prompt: "Resume CIA-1."}, []Step{
		fakeStep{name: "Persist progress", ran: &ran},
		fakeStep{name: "Tracker update", ran: &ran, err: sinks.Skip("no tracker configured")},
	})
	raw, err := json.Marshal(r)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(raw, &got))
	assert.Equal(t, "automated", got["profile"])
	assert.EqualValues(t, 2, got["succeeded"])
	assert.EqualValues(t, 2, got["total"])
	assert.Equal(t, "Resume CIA-1.", got["prompt"])
	steps := got["steps"].([]any)
	require.Len(t, steps, 2)
	second := steps[1].(map[string]any)
	assert.Equal(t, "Tracker update", second["name"])
	assert.Equal(t, "skipped", second["status"])
	assert.Equal(t, "no tracker configured", second["message"])
	assert.Contains(t, second, "duration_ms")
}

func TestProfiles(t *testing.T) {
	names := func(p Profile) []string {
		var out []string
		for _, s := range p.Steps(&Context{}) {
			if listed(s) {
				out = append(out, s.String())
			}
		}
		return out
	}
	assert.Equal(t, []string{"Persist progress", "Git snapshot", "Tracker update", "Continuation prompt"}, names(Manual))
	assert.Equal(t, []string{"Persist progress", "Tracker update"}, names(Automated))
	_, err := ParseProfile("interactive")
	assert.ErrorContains(t, err, `unknown profile "interactive"`)
}

// Every side effect is a step in the list, the record and the outbox drain
// included; they print no line of their own.
func TestProfilesListEverySideEffect(t *testing.T) {
	names := func(p Profile) []string {
		var out []string
		for _, s := range p.Steps(&Context{}) {
			out = append(out, s.String())
		}
		return out
	}
	assert.Equal(t, []string{"Persist progress", "Git snapshot", "Agent record", "Outbox drain", "Tracker update", "Checkpoint branch", "Continuation prompt"}, names(Manual))
	assert.Equal(t, []string{"Persist progress", "Agent record", "Outbox drain", "Tracker update", "Checkpoint branch"}, names(Automated))
	assert.Equal(t, []string{"Outbox drain", "Tracker update"}, names(Post))
}

// unlistedStep is a fake step with no report line.
type unlistedStep struct{ fakeStep }

func (unlistedStep) unlisted() {}

func TestUnlistedStepHasNoLineAndItsFailureIsAWarning(t *testing.T) {
	var ran []string
	r := Run(context.Background(), &Context{Profile: Automated}, []Step{
		fakeStep{name: "Persist progress", ran: &ran},
		unlistedStep{fakeStep{name: "Agent record", ran: &ran, p: "boom"}},
		fakeStep{name: "Tracker update", ran: &ran},
	})
	assert.Equal(t, []string{"Persist progress", "Agent record", "Tracker update"}, ran)
	assert.Equal(t, 2, r.Total)
	assert.Equal(t, 2, r.Succeeded)
	require.Len(t, r.Steps, 2)
	assert.Equal(t, []string{"agent record: panic: boom"}, r.Warnings)
}

// gateStep is a fake step that signals when it starts and, when wait is set,
// waits (a second at most) for another step to start.
type gateStep struct {
	fakeStep
	started chan struct{}
	wait    chan struct{}
	waited  *bool
}

func (s gateStep) Run(ctx context.Context, cp *Context) error {
	close(s.started)
	if s.wait != nil {
		select {
		case <-s.wait:
			*s.waited = true
		case <-time.After(time.Second):
		}
	}
	cp.warnf("%s warned", s.name)
	return s.fakeStep.Run(ctx, cp)
}

type localGate struct{ gateStep }

func (localGate) alongside() {}

type remoteGate struct{ gateStep }

func (remoteGate) remote() {}

// The agent's record is written while the tracker waits on the network: a
// local step marked alongside runs at the same time as the remote steps
// after it, and the report keeps every step's line, in order, and both
// groups' warnings (issue 26).
func TestAlongsideStepsOverlapTheRemoteOnes(t *testing.T) {
	var ran, ranNet []string
	localStarted, remoteStarted := make(chan struct{}), make(chan struct{})
	waited := false
	steps := []Step{
		fakeStep{name: "Persist progress", ran: &ran},
		localGate{gateStep{fakeStep: fakeStep{name: "Record", ran: &ran}, started: localStarted, wait: remoteStarted, waited: &waited}},
		remoteGate{gateStep{fakeStep: fakeStep{name: "Tracker update", ran: &ranNet, note: "updated"}, started: remoteStarted}},
		fakeStep{name: "Continuation prompt", ran: &ran},
	}
	r := Run(context.Background(), &Context{Profile: Automated}, steps)
	assert.True(t, waited, "the tracker started while the record step ran")
	assert.Equal(t, []string{"Persist progress", "Record", "Continuation prompt"}, ran)
	assert.Equal(t, []string{"Tracker update"}, ranNet)
	assert.Equal(t, 4, r.Succeeded)
	assert.Equal(t, []string{"Persist progress", "Record", "Tracker update", "Continuation prompt"}, stepNames(r))
	assert.Equal(t, "updated", r.Steps[2].Message, "a step's note stays its own")
	assert.Equal(t, []string{"Record warned", "Tracker update warned"}, r.Warnings)
}

func stepNames(r Report) []string {
	var out []string
	for _, s := range r.Steps {
		out = append(out, s.Name)
	}
	return out
}
