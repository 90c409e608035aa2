package linearagent_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/testutil/linearschema"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
	"github.com/ccc-checkpoint/ccc/sinks/linear/oauth"
	"github.com/ccc-checkpoint/ccc/sinks/linearagent"
)

// newFake starts a fake with issue CIA-9 whose traffic is validated
// against Linear's schema, variables included, when the test ends.
func newFake(t *testing.T) *linearfake.Server {
	t.Helper()
	srv := linearfake.New()
	srv.AddIssue("CIA-9", "Be a Linear agent")
	t.Cleanup(func() {
		srv.Close()
		schema, err := linearschema.Load()
		require.NoError(t, err)
		for _, req := range srv.Requests() {
			doc, errs := gqlparser.LoadQueryWithRules(schema, req.Query, nil)
			require.Empty(t, errs, "%s", req.Query)
			for _, op := range doc.Operations {
				_, err := validator.VariableValues(schema, op, req.Variables)
				require.NoError(t, err, "%v", req.Variables)
			}
		}
	})
	return srv
}

const progressFile = `# Session Progress

**Issue:** CIA-9 — Be a Linear agent
**Next Action:** wire the hooks

## Completed Tasks
- design ✓
- fake ✓

## Current Task
- the sink — in progress

## Remaining Tasks
- hooks

## Decisions Made
- memo beside the state: the plan hash is no comment reference

## Blockers
- None
`

func newSink(t *testing.T, srv *linearfake.Server, token string) (*linearagent.Sink, string) {
	root := t.TempDir()
	write(t, root, progressFile)
	cfg := linear.Config{URL: srv.URL, Tuning: sinks.Tuning{InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond}}
	if strings.HasPrefix(token, "lin_oauth_") {
		cfg.OAuthToken = token
	} else {
		cfg.APIKey = token
	}
	return linearagent.New(linearagent.Config{Linear: cfg, Root: root, Key: testKey}), root
}

func write(t *testing.T, root, body string) {
	require.NoError(t, os.WriteFile(filepath.Join(root, ".ccc-progress.md"), []byte(body), 0o644))
}

// deliverer runs deliveries as the pipeline does: the Ref persisted
// before a send is what the next delivery sees when the send fails.
type deliverer struct {
	s    sinks.Sink
	prev sinks.Ref
}

func (d *deliverer) deliver(t *testing.T, body string) (sinks.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := sinks.Deliver(ctx, d.s, sinks.Delivery{
		Target: sinks.Target{Issue: "CIA-9", Agent: "main"}, Body: body, Prev: d.prev,
		Persist: func(r sinks.Ref) error { d.prev = r; return nil },
	})
	if err == nil {
		d.prev = res.Ref
	} else if res.Ref.ID != "" || res.Ref.PendingID != "" {
		d.prev = res.Ref
	}
	return res, err
}

func count(srv *linearfake.Server, field string) int {
	n := 0
	for _, r := range srv.Requests() {
		for _, f := range r.Fields {
			if f == field {
				n++
			}
		}
	}
	return n
}

func TestFirstDeliveryStartsOneSessionWithPlanAndAction(t *testing.T) {
	srv := newFake(t)
	s, root := newSink(t, srv, linearfake.OAuthToken)
	d := &deliverer{s: s}
	res, err := d.deliver(t, "status 1")
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	assert.Equal(t, "started agent session on CIA-9", s.Phrase(res.Action, "CIA-9"))
	sessions := srv.Sessions("CIA-9")
	require.Len(t, sessions, 1)
	assert.Equal(t, sessions[0].ID, res.Ref.ID)
	assert.Equal(t, []any{
		map[string]any{"content": "design", "status": "completed"},
		map[string]any{"content": "fake", "status": "completed"},
		map[string]any{"content": "the sink", "status": "inProgress"},
		map[string]any{"content": "hooks", "status": "pending"},
	}, sessions[0].Plan)
	acts := sessions[0].Activities
	require.Len(t, acts, 1)
	assert.Equal(t, "action", acts[0].Type)
	assert.Equal(t, "Checkpoint", acts[0].Content["action"])
	assert.Equal(t, "task 3 of 4 — the sink", acts[0].Content["parameter"])
	assert.Contains(t, acts[0].Content["result"], "Next: wire the hooks")
	assert.Equal(t, "active", srv.Status(res.Ref.ID))
	assert.Equal(t, res.Requests, srv.RequestCount())

	// Same plan, new status: an action, no plan update.
	_, err = d.deliver(t, "status 2")
	require.NoError(t, err)
	assert.Equal(t, 1, count(srv, "agentSessionUpdate"), "the plan is sent only when it changed")
	assert.Equal(t, 1, count(srv, "agentSessionCreateOnIssue"))

	// A task dropped, a blocker: the plan cancels it, the blocker asks.
	write(t, root, strings.Replace(strings.Replace(progressFile, "- hooks\n", "", 1),
		"- None", "- which token store? (unblocked by: a decision)", 1))
	_, err = d.deliver(t, "status 3")
	require.NoError(t, err)
	sessions = srv.Sessions("CIA-9")
	assert.Contains(t, sessions[0].Plan, map[string]any{"content": "hooks", "status": "canceled"})
	last := sessions[0].Activities[len(sessions[0].Activities)-1]
	assert.Equal(t, "elicitation", last.Type)
	assert.Equal(t, "which token store? (unblocked by: a decision)", last.Content["body"])
	assert.Equal(t, "awaitingInput", srv.Status(res.Ref.ID))

	// All done: one response.
	write(t, root, strings.Replace(strings.Replace(progressFile, "## Current Task\n- the sink — in progress\n", "## Current Task\n", 1),
		"## Remaining Tasks\n- hooks\n", "## Remaining Tasks\n", 1))
	_, err = d.deliver(t, "status 4")
	require.NoError(t, err)
	last = srv.Sessions("CIA-9")[0].Activities[len(srv.Sessions("CIA-9")[0].Activities)-1]
	assert.Equal(t, "response", last.Type)
	assert.Contains(t, last.Content["body"], "All 2 tasks complete.")
	assert.Equal(t, "complete", srv.Status(res.Ref.ID))
}

func TestFailIsAnError(t *testing.T) {
	srv := newFake(t)
	s, root := newSink(t, srv, linearfake.OAuthToken)
	write(t, root, strings.Replace(progressFile, "- None", "- FAILED: the upstream API was removed", 1))
	d := &deliverer{s: s}
	res, err := d.deliver(t, "failed")
	require.NoError(t, err)
	acts := srv.Sessions("CIA-9")[0].Activities
	assert.Equal(t, "error", acts[len(acts)-1].Type)
	assert.Equal(t, "the upstream API was removed", acts[len(acts)-1].Content["body"])
	assert.Equal(t, "error", srv.Status(res.Ref.ID))
}

// A personal key gets Linear's refusal, and the status goes to the comment.
func TestPersonalKeyFallsBackToTheComment(t *testing.T) {
	srv := newFake(t)
	s, _ := newSink(t, srv, linearfake.APIKey)
	d := &deliverer{s: s}
	res, err := d.deliver(t, "## Checkpoint Status\n\n**Next:** x\n")
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	assert.Empty(t, srv.Sessions("CIA-9"))
	assert.Len(t, srv.Comments("CIA-9"), 1)
	assert.Empty(t, res.Ref.ID, "no session is remembered: the next delivery asks again")
	assert.Zero(t, count(srv, "agentSessionCreateOnIssue"), "the viewer said it is no app")
	assert.Contains(t, s.Phrase(res.Action, "CIA-9"), "no agent session: not an app token")
}

// A lost answer to an activity: the retry sends the same id, Linear says it
// exists, and there is one activity.
func TestLostActivityAnswerIsNotDuplicated(t *testing.T) {
	srv := newFake(t)
	s, _ := newSink(t, srv, linearfake.OAuthToken)
	d := &deliverer{s: s}
	_, err := d.deliver(t, "one")
	require.NoError(t, err)
	srv.Inject(linearfake.Repeat(8, linearfake.LostResponse("agentActivityCreate"))...)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := sinks.Deliver(ctx, s, sinks.Delivery{Target: sinks.Target{Issue: "CIA-9", Agent: "main"}, Body: "two", Prev: d.prev,
		Persist: func(r sinks.Ref) error { d.prev = r; return nil }})
	require.Error(t, err)
	require.NotEmpty(t, d.prev.PendingID)
	srv.ClearFaults()
	d.prev = res.Ref
	_, err = d.deliver(t, "two")
	require.NoError(t, err)
	assert.Len(t, srv.Sessions("CIA-9")[0].Activities, 2, "one activity per delivery, the lost one included once")
}

func TestVanishedSessionIsCreatedAgainOnce(t *testing.T) {
	srv := newFake(t)
	s, _ := newSink(t, srv, linearfake.OAuthToken)
	d := &deliverer{s: s}
	first, err := d.deliver(t, "one")
	require.NoError(t, err)
	srv.DeleteSession(first.Ref.ID)
	res, err := d.deliver(t, "two")
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	assert.NotEqual(t, first.Ref.ID, res.Ref.ID)
	assert.Len(t, srv.Sessions("CIA-9"), 1)
	assert.Equal(t, 2, count(srv, "agentSessionCreateOnIssue"))
}

func TestPromptsSinceTheLastSeenAndStop(t *testing.T) {
	srv := newFake(t)
	s, _ := newSink(t, srv, linearfake.OAuthToken)
	d := &deliverer{s: s}
	res, err := d.deliver(t, "one")
	require.NoError(t, err)
	ctx := context.Background()

	ps, err := s.Prompts(ctx, "CIA-9", "main")
	require.NoError(t, err)
	assert.Empty(t, ps)

	srv.AddPrompt(res.Ref.ID, "Ada", "use the keychain", false)
	ps, err = s.Prompts(ctx, "CIA-9", "main")
	require.NoError(t, err)
	require.Len(t, ps, 1)
	assert.Equal(t, linearagent.Prompt{ID: ps[0].ID, Body: "use the keychain", Author: "Ada", AuthorID: linearfake.OtherUserID, At: ps[0].At, Assignee: true}, ps[0])
	assert.False(t, ps[0].At.IsZero())
	ps, err = s.Prompts(ctx, "CIA-9", "main")
	require.NoError(t, err)
	assert.Empty(t, ps, "a prompt is handed on once")

	srv.AddPrompt(res.Ref.ID, "Ada", "", true)
	ps, err = s.Prompts(ctx, "CIA-9", "main")
	require.NoError(t, err)
	require.Len(t, ps, 1)
	assert.True(t, ps[0].Stop)
	acts := srv.Sessions("CIA-9")[0].Activities
	assert.Equal(t, "Stopped at the request of Ada.", acts[len(acts)-1].Content["body"], "the stop is acknowledged")
}

func TestThoughtAtMostOnePerFewMinutesKeepsTheSessionFresh(t *testing.T) {
	srv := newFake(t)
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	srv.Clock = func() time.Time { return now }
	s, root := newSink(t, srv, linearfake.OAuthToken)
	_ = root
	cfg := linear.Config{URL: srv.URL, OAuthToken: linearfake.OAuthToken}
	cfg.Now = func() time.Time { return now }
	_ = s
	s = linearagent.New(linearagent.Config{Linear: cfg, Root: root, Key: testKey})
	d := &deliverer{s: s}
	res, err := d.deliver(t, "one")
	require.NoError(t, err)
	ctx := context.Background()

	now = now.Add(31 * time.Minute)
	assert.Equal(t, "stale", srv.Status(res.Ref.ID))
	sent, err := s.Thought(ctx, "CIA-9", "main", "still working")
	require.NoError(t, err)
	assert.True(t, sent)
	assert.Equal(t, "active", srv.Status(res.Ref.ID))
	now = now.Add(time.Minute)
	sent, err = s.Thought(ctx, "CIA-9", "main", "still working")
	require.NoError(t, err)
	assert.False(t, sent, "at most one thought per few minutes")
	assert.Equal(t, 1, count(srv, "agentActivityCreate")-1)
	acts := srv.Sessions("CIA-9")[0].Activities
	assert.True(t, acts[len(acts)-1].Ephemeral)
}

// The pull request and the GitHub status comment the github sink wrote are
// added to the session's external links, each once.
func TestGitHubLinksAreAddedOnce(t *testing.T) {
	srv := newFake(t)
	s, root := newSink(t, srv, linearfake.OAuthToken)
	require.NoError(t, os.WriteFile(filepath.Join(root, ".ccc-state.json"), []byte(`{"ccc": {"refs": {"github": {"o/r#3": {"main":
		{"id": "7", "url": "https://github.com/o/r/pull/3#issuecomment-7"}}}}}}`), 0o644))
	d := &deliverer{s: s}
	_, err := d.deliver(t, "one")
	require.NoError(t, err)
	_, err = d.deliver(t, "two")
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{
		{"label": "Pull request o/r#3", "url": "https://github.com/o/r/pull/3"},
		{"label": "GitHub status comment", "url": "https://github.com/o/r/pull/3#issuecomment-7"},
	}, srv.Sessions("CIA-9")[0].URLs)
	assert.Equal(t, 2, count(srv, "agentSessionUpdate"), "the plan once, the links once")
}

// When a session starts, the issue moves to the team's first started state
// and the agent becomes its delegate; each behind its preference.
func TestSessionStartMovesTheIssueAndDelegates(t *testing.T) {
	for _, tt := range []struct {
		start, delegate bool
		state, deleg    string
		requests        int
	}{
		// The viewer's query (once per sink without a stored sign-in),
		// the session, the issue's work and its update, plan, activity.
		{true, true, "In Progress", linearfake.ViewerID, 6},
		{false, true, "Todo", linearfake.ViewerID, 6},
		{true, false, "In Progress", "", 6},
		{false, false, "Todo", "", 4},
	} {
		srv := newFake(t)
		root := t.TempDir()
		write(t, root, progressFile)
		s := linearagent.New(linearagent.Config{Linear: linear.Config{URL: srv.URL, OAuthToken: linearfake.OAuthToken},
			Root: root, Key: testKey, StartIssue: tt.start, Delegate: tt.delegate})
		d := &deliverer{s: s}
		res, err := d.deliver(t, "one")
		require.NoError(t, err)
		state, deleg := srv.IssueWork("CIA-9")
		assert.Equal(t, tt.state, state, "%+v", tt)
		assert.Equal(t, tt.deleg, deleg, "%+v", tt)
		assert.Equal(t, tt.requests, res.Requests, "%+v", tt)
		// The next session on a started, delegated issue changes nothing.
		srv.DeleteSession(res.Ref.ID)
		_, err = d.deliver(t, "two")
		require.NoError(t, err)
		if tt.start && tt.delegate {
			assert.Equal(t, 1, count(srv, "issueUpdate"))
		}
	}
}

// A stored reference naming another app's session (a committed state file)
// is unverified: the sink never writes into it and starts its own.
func TestUnverifiedSessionIsNeverWrittenInto(t *testing.T) {
	srv := newFake(t)
	s, _ := newSink(t, srv, linearfake.OAuthToken)
	foreign := srv.AddForeignSession("CIA-9", "theirs")
	ctx := context.Background()
	res, err := sinks.Deliver(ctx, s, sinks.Delivery{Target: sinks.Target{Issue: "CIA-9", Agent: "main"}, Body: "mine",
		Prev: sinks.Ref{ID: foreign}, Unverified: true})
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	assert.NotEqual(t, foreign, res.Ref.ID)
	for _, a := range srv.Sessions("CIA-9") {
		if a.ID == foreign {
			assert.Len(t, a.Activities, 1, "the other app's session is untouched")
		}
	}
}

// What the sink reads from the progress file itself is redacted like the
// status body: the plan and the activities never carry a credential.
func TestPlanAndActivitiesAreRedacted(t *testing.T) {
	srv := newFake(t)
	s, root := newSink(t, srv, linearfake.OAuthToken)
	token := "ghp_" + strings.Repeat("a1B2c3D4e5", 4)[:36]
	write(t, root, strings.Replace(strings.Replace(progressFile, "- the sink — in progress", "- rotate "+token+" — in progress", 1),
		"- None", "- revoke "+token, 1))
	d := &deliverer{s: s}
	_, err := d.deliver(t, "one")
	require.NoError(t, err)
	for _, r := range srv.Requests() {
		assert.NotContains(t, fmt.Sprint(r.Variables), token)
	}
	a := srv.Sessions("CIA-9")[0]
	assert.Contains(t, fmt.Sprint(a.Plan), "rotate [REDACTED:github-token]")
	assert.Equal(t, "revoke [REDACTED:github-token]", a.Activities[0].Content["body"])
}

// The sign-in of `ccc linear login` (Config.StoredToken) is a credential
// like LINEAR_OAUTH_TOKEN for every call: a delivery, the hooks' prompts
// and keep-alives, each in a process of its own that has not read the
// store yet. Nobody signed in: a skip, as without a token.
func TestStoredSignInIsACredential(t *testing.T) {
	srv := newFake(t)
	root := t.TempDir()
	write(t, root, progressFile)
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	srv.Clock = func() time.Time { return now }
	reads := 0
	fresh := func(tok string, err error) *linearagent.Sink {
		cfg := linear.Config{URL: srv.URL, StoredToken: func(context.Context) (string, error) { reads++; return tok, err }}
		cfg.Now = func() time.Time { return now }
		return linearagent.New(linearagent.Config{Linear: cfg, Root: root, Key: testKey})
	}
	d := &deliverer{s: fresh(linearfake.OAuthToken, nil)}
	res, err := d.deliver(t, "one")
	require.NoError(t, err)
	assert.Equal(t, sinks.Created, res.Action)
	require.Len(t, srv.Sessions("CIA-9"), 1)
	assert.Equal(t, 1, reads, "the store is read once per sink")

	ctx := context.Background()
	srv.AddPrompt(res.Ref.ID, "Ada", "use the keychain", false)
	ps, err := fresh(linearfake.OAuthToken, nil).Prompts(ctx, "CIA-9", "main")
	require.NoError(t, err)
	require.Len(t, ps, 1)
	assert.Equal(t, "use the keychain", ps[0].Body)

	now = now.Add(31 * time.Minute)
	sent, err := fresh(linearfake.OAuthToken, nil).Thought(ctx, "CIA-9", "main", "still working")
	require.NoError(t, err)
	assert.True(t, sent)

	// Signed out: a skip naming both ways to sign in, nothing sent.
	before := len(srv.Requests())
	d = &deliverer{s: fresh("", oauth.ErrNoToken), prev: d.prev}
	res, err = d.deliver(t, "two")
	var skip *sinks.SkipError
	require.ErrorAs(t, err, &skip)
	assert.Contains(t, err.Error(), "ccc linear login")
	assert.Equal(t, sinks.Skipped, res.Action)
	assert.Len(t, srv.Requests(), before)

	// A sign-in Linear no longer accepts: a retryable failure that says
	// to log in again, not a skip.
	_, err = (&deliverer{s: fresh("", &sinks.Error{Cause: "refused: run ccc linear login again", Err: oauth.ErrLoginRequired}), prev: d.prev}).deliver(t, "three")
	require.Error(t, err)
	assert.False(t, errors.As(err, &skip), "%v", err)
	assert.Contains(t, err.Error(), "ccc linear login again")
}

// testKey stands for the user's signing key (config.UserKey).
var testKey = []byte("0123456789abcdef0123456789abcdef")

// An issue in triage is not moved out of it (Linear's best practices); the
// agent still becomes its delegate.
func TestSessionStartLeavesAnIssueInTriage(t *testing.T) {
	srv := newFake(t)
	srv.SetIssueState("CIA-9", "Triage")
	root := t.TempDir()
	write(t, root, progressFile)
	s := linearagent.New(linearagent.Config{Linear: linear.Config{URL: srv.URL, OAuthToken: linearfake.OAuthToken},
		Root: root, Key: testKey, StartIssue: true, Delegate: true})
	_, err := (&deliverer{s: s}).deliver(t, "one")
	require.NoError(t, err)
	state, deleg := srv.IssueWork("CIA-9")
	assert.Equal(t, "Triage", state)
	assert.Equal(t, linearfake.ViewerID, deleg)
}

// The first response (the plan and the first activity) goes out before
// the issue's state moves: Linear's first-response window is 10 seconds.
func TestFirstResponseBeforeTheStateMove(t *testing.T) {
	srv := newFake(t)
	root := t.TempDir()
	write(t, root, progressFile)
	s := linearagent.New(linearagent.Config{Linear: linear.Config{URL: srv.URL, OAuthToken: linearfake.OAuthToken},
		Root: root, Key: testKey, StartIssue: true, Delegate: true})
	_, err := (&deliverer{s: s}).deliver(t, "one")
	require.NoError(t, err)
	var order []string
	for _, r := range srv.Requests() {
		for _, f := range r.Fields {
			if f == "agentSessionCreateOnIssue" || f == "agentSessionUpdate" || f == "agentActivityCreate" || f == "issueUpdate" {
				order = append(order, f)
			}
		}
	}
	assert.Equal(t, []string{"agentSessionCreateOnIssue", "agentSessionUpdate", "agentActivityCreate", "issueUpdate"}, order)
}
