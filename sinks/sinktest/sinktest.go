// Package sinktest is the conformance suite every sink passes: the same
// subtests, run against a fake of the sink's tracker, prove the contract of
// sinks.Sink (one comment per agent, updated in place, found again by its
// marker, never duplicated, retried only when worth it, inside the
// caller's deadline).
package sinktest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/comment"
	"github.com/ccc-checkpoint/ccc/internal/testutil"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// Comment is a comment as the fake tracker holds it.
type Comment struct {
	ID   string
	Body string
	// Own is true when the account the sink authenticates as wrote it.
	Own bool
}

// Fake is the control surface of a fake tracker.
type Fake interface {
	// Comments lists the live comments on issue, oldest first.
	Comments(issue string) []Comment
	// Delete deletes a comment as a person would in the tracker's UI.
	Delete(id string)
	// AddForeign writes body on issue as another account; it returns the
	// new comment's id.
	AddForeign(issue, body string) string
	// FailTransient makes the next n requests fail in a way worth
	// retrying (HTTP 503).
	FailTransient(n int)
	// FailPermanent makes the next request fail in a way never worth
	// retrying (bad credentials).
	FailPermanent()
	// Slow makes the next request answer only after d.
	Slow(d time.Duration)
	// LoseCreate makes the next comment create succeed on the tracker and
	// its answer never reach the sink.
	LoseCreate()
	// Requests counts the requests received so far.
	Requests() int
}

// OwnWriter is an optional power of a Fake: write body on issue as the
// account the sink authenticates as, by hand, as a person using that
// account in the tracker's UI would. It returns "" when no person can write
// as that account (a bot), and the look-alike test is then skipped.
type OwnWriter interface {
	AddOwn(issue, body string) string
}

// Instance is a sink talking to a fresh fake.
type Instance struct {
	Sink sinks.Sink
	Fake Fake
	// Issue exists on the fake and has no comments.
	Issue string
}

// Harness starts instances. New is called once per subtest; it registers
// its own cleanup with t. The sink it returns must retry quickly (a few
// milliseconds between tries) so the suite stays fast.
type Harness struct {
	New func(t *testing.T) Instance
	// Truncating, when set, is New for a sink that cuts bodies to maxBody
	// characters with a note naming where the full text is, and ends them
	// with Marker(agent); nil for a sink that never cuts.
	Truncating func(t *testing.T, maxBody int) Instance
	Marker     func(agent string) string
}

// Run runs the conformance suite.
func Run(t *testing.T, h Harness) {
	tests := []struct {
		name string
		run  func(t *testing.T, in Instance)
	}{
		{"create", testCreate},
		{"update in place", testUpdate},
		{"unchanged sends nothing", testUnchanged},
		{"stale id recovers by marker", testStaleID},
		{"lost state recovers by marker", testLostState},
		{"deleted comment is recreated", testDeleted},
		{"transient failure then success", testTransient},
		{"permanent failure is not retried", testPermanent},
		{"deadline is respected", testDeadline},
		{"lost create response leaves one comment", testLostCreate},
		{"lost create then failed run leaves one comment", testLostCreateAcrossRuns},
		{"another account's marker is never adopted", testForeignMarker},
		{"a look-alike by the same account is never adopted", testLookAlike},
		{"two agents own two comments", testTwoAgents},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, h.New(t))
		})
	}
	if h.Truncating != nil {
		t.Run("truncation note names the full text", func(t *testing.T) { testFullText(t, h) })
		t.Run("open blocks are closed before the note and the marker", func(t *testing.T) { testClosedBlocks(t, h) })
	}
}

// Body renders a status whose Next line is next, so that tests can tell
// deliveries apart.
func Body(next string) string { return bodyAt(next, updated) }

var updated = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

func bodyAt(next string, at time.Time) string {
	return comment.Render(comment.Status{
		Updated: at, TaskN: 1, TaskM: 2, Completed: 0, Percent: 0,
		Task: "conformance", Status: "In Progress", Next: next,
	})
}

const nextPrefix = "**Next:** "

// deliver runs one delivery through sinks.Deliver with a generous deadline.
func deliver(t *testing.T, in Instance, agent, next string, prev sinks.Ref) (sinks.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return sinks.Deliver(ctx, in.Sink, sinks.Delivery{
		Target: sinks.Target{Issue: in.Issue, Agent: agent},
		Body:   Body(next),
		Prev:   prev,
	})
}

func mustDeliver(t *testing.T, in Instance, agent, next string, prev sinks.Ref, want sinks.Action) sinks.Result {
	t.Helper()
	res, err := deliver(t, in, agent, next, prev)
	require.NoError(t, err)
	require.Equal(t, want, res.Action)
	if want != sinks.Unchanged {
		require.NotEmpty(t, res.Ref.ID)
		require.Empty(t, res.Ref.PendingID, "a delivered ref has no pending id")
	}
	return res
}

// only returns the one live comment, failing when there is not exactly one.
func only(t *testing.T, in Instance) Comment {
	t.Helper()
	cs := in.Fake.Comments(in.Issue)
	require.Len(t, cs, 1, "comments: %v", cs)
	return cs[0]
}

func byID(t *testing.T, in Instance, id string) Comment {
	t.Helper()
	for _, c := range in.Fake.Comments(in.Issue) {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no live comment %s", id)
	return Comment{}
}

func says(c Comment, next string) bool {
	return strings.Contains(c.Body, nextPrefix+next+"\n")
}

func testCreate(t *testing.T, in Instance) {
	res := mustDeliver(t, in, "main", "first", sinks.Ref{}, sinks.Created)
	c := only(t, in)
	assert.Equal(t, res.Ref.ID, c.ID)
	assert.True(t, c.Own)
	assert.True(t, says(c, "first"), c.Body)
	assert.True(t, strings.HasPrefix(c.Body, comment.Heading), c.Body)
	assert.NotEmpty(t, res.Ref.URL)
	assert.Equal(t, sinks.BodyHash(Body("first")), res.Ref.BodyHash)
	assert.Equal(t, in.Fake.Requests(), res.Requests, "Result.Requests counts every request")
}

func testUpdate(t *testing.T, in Instance) {
	first := mustDeliver(t, in, "main", "first", sinks.Ref{}, sinks.Created)
	before := in.Fake.Requests()
	res := mustDeliver(t, in, "main", "second", first.Ref, sinks.Updated)
	assert.Equal(t, first.Ref.ID, res.Ref.ID)
	assert.Equal(t, 1, in.Fake.Requests()-before, "the steady state is one request")
	assert.Equal(t, 1, res.Requests)
	assert.True(t, says(only(t, in), "second"))
}

func testUnchanged(t *testing.T, in Instance) {
	first := mustDeliver(t, in, "main", "same", sinks.Ref{}, sinks.Created)
	before := in.Fake.Requests()
	res, err := sinks.Deliver(context.Background(), in.Sink, sinks.Delivery{
		Target: sinks.Target{Issue: in.Issue, Agent: "main"},
		Body:   bodyAt("same", updated.Add(time.Hour)),
		Prev:   first.Ref,
	})
	require.NoError(t, err)
	assert.Equal(t, sinks.Unchanged, res.Action, "a new timestamp alone is no change")
	assert.Equal(t, first.Ref, res.Ref)
	assert.Equal(t, before, in.Fake.Requests(), "an unchanged body sends nothing")
}

func testStaleID(t *testing.T, in Instance) {
	gone := mustDeliver(t, in, "scratch", "scratch", sinks.Ref{}, sinks.Created)
	in.Fake.Delete(gone.Ref.ID)
	own := mustDeliver(t, in, "main", "first", sinks.Ref{}, sinks.Created)
	res := mustDeliver(t, in, "main", "second", sinks.Ref{ID: gone.Ref.ID}, sinks.Updated)
	assert.Equal(t, own.Ref.ID, res.Ref.ID, "the stored id is gone: the agent's own comment is found by its marker")
	assert.True(t, says(only(t, in), "second"))
}

func testLostState(t *testing.T, in Instance) {
	first := mustDeliver(t, in, "main", "first", sinks.Ref{}, sinks.Created)
	res := mustDeliver(t, in, "main", "second", sinks.Ref{}, sinks.Updated)
	assert.Equal(t, first.Ref.ID, res.Ref.ID)
	assert.True(t, says(only(t, in), "second"))
}

func testDeleted(t *testing.T, in Instance) {
	first := mustDeliver(t, in, "main", "first", sinks.Ref{}, sinks.Created)
	in.Fake.Delete(first.Ref.ID)
	res := mustDeliver(t, in, "main", "second", first.Ref, sinks.Created)
	assert.NotEqual(t, first.Ref.ID, res.Ref.ID)
	c := only(t, in)
	assert.Equal(t, res.Ref.ID, c.ID)
	assert.True(t, says(c, "second"))
}

func testTransient(t *testing.T, in Instance) {
	first := mustDeliver(t, in, "main", "first", sinks.Ref{}, sinks.Created)
	in.Fake.FailTransient(2)
	before := in.Fake.Requests()
	res := mustDeliver(t, in, "main", "second", first.Ref, sinks.Updated)
	assert.Equal(t, 3, in.Fake.Requests()-before, "two failures, then the update")
	assert.Equal(t, 3, res.Requests)
	assert.True(t, says(only(t, in), "second"))
}

// Delivery is agent's delivery to target of Body(next).
func Delivery(target, agent, next string, prev sinks.Ref) sinks.Delivery {
	return sinks.Delivery{Target: sinks.Target{Issue: target, Agent: agent}, Body: Body(next), Prev: prev}
}

// Upsert runs s.Upsert (no unchanged check) with a generous deadline.
func Upsert(t *testing.T, s sinks.Sink, d sinks.Delivery) (sinks.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.Upsert(ctx, d)
}

// ErrorOf is err as the *sinks.Error, with a Cause, that it must be.
func ErrorOf(t *testing.T, err error) *sinks.Error {
	t.Helper()
	var serr *sinks.Error
	require.True(t, errors.As(err, &serr), "want a *sinks.Error, got %T: %v", err, err)
	require.NotEmpty(t, serr.Cause)
	return serr
}

func testPermanent(t *testing.T, in Instance) {
	first := mustDeliver(t, in, "main", "first", sinks.Ref{}, sinks.Created)
	in.Fake.FailPermanent()
	before := in.Fake.Requests()
	res, err := deliver(t, in, "main", "second", first.Ref)
	serr := ErrorOf(t, err)
	assert.True(t, serr.Permanent)
	assert.Equal(t, sinks.Failed, res.Action)
	assert.Equal(t, 1, in.Fake.Requests()-before, "a permanent failure is not retried")
	assert.Equal(t, 1, res.Requests)
	assert.True(t, says(only(t, in), "first"))
}

func testDeadline(t *testing.T, in Instance) {
	first := mustDeliver(t, in, "main", "first", sinks.Ref{}, sinks.Created)
	in.Fake.Slow(10 * time.Second)
	const budget = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	start := time.Now()
	_, err := sinks.Deliver(ctx, in.Sink, sinks.Delivery{
		Target: sinks.Target{Issue: in.Issue, Agent: "main"}, Body: Body("second"), Prev: first.Ref,
	})
	elapsed := time.Since(start)
	serr := ErrorOf(t, err)
	assert.True(t, strings.HasPrefix(serr.Cause, "timeout"), "cause %q", serr.Cause)
	// Loose on purpose: the point is that it does not hang.
	assert.Less(t, elapsed, budget+3*time.Second)
}

func testLostCreate(t *testing.T, in Instance) {
	in.Fake.LoseCreate()
	res := mustDeliver(t, in, "main", "first", sinks.Ref{}, sinks.Created)
	c := only(t, in)
	assert.Equal(t, res.Ref.ID, c.ID)
	assert.True(t, says(c, "first"))
}

func testLostCreateAcrossRuns(t *testing.T, in Instance) {
	in.Fake.LoseCreate()
	in.Fake.FailPermanent()
	var persisted []sinks.Ref
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := sinks.Deliver(ctx, in.Sink, sinks.Delivery{
		Target:  sinks.Target{Issue: in.Issue, Agent: "main"},
		Body:    Body("first"),
		Persist: func(r sinks.Ref) error { persisted = append(persisted, r); return nil },
	})
	_ = ErrorOf(t, err) // asserts the error type; the value is not needed here
	if len(persisted) > 0 {
		assert.Equal(t, persisted[len(persisted)-1], res.Ref, "a failed result carries what was persisted")
	}
	again := mustDeliver(t, in, "main", "second", res.Ref, sinks.Created)
	c := only(t, in)
	assert.Equal(t, again.Ref.ID, c.ID)
	assert.True(t, says(c, "second"))
}

func testForeignMarker(t *testing.T, in Instance) {
	first := mustDeliver(t, in, "main", "first", sinks.Ref{}, sinks.Created)
	copied := byID(t, in, first.Ref.ID).Body
	foreign := in.Fake.AddForeign(in.Issue, copied)
	in.Fake.Delete(first.Ref.ID)

	res := mustDeliver(t, in, "main", "second", sinks.Ref{}, sinks.Created)
	assert.NotEqual(t, foreign, res.Ref.ID)
	f := byID(t, in, foreign)
	assert.Equal(t, copied, f.Body, "another account's comment is never touched")
	assert.False(t, f.Own)
	assert.Len(t, in.Fake.Comments(in.Issue), 2)
}

// testTag stands for the user's key: what it signs only this user's ccc
// can sign.
func testTag(fields ...string) string {
	sum := sha256.Sum256([]byte("test key\x00" + strings.Join(fields, "\x00")))
	return hex.EncodeToString(sum[:])
}

// A person using the sink's own account writes a comment that ends with
// ccc's marker line (copied from ccc's comment, tag and all, after it was
// deleted; or bare): with the user's tag in the delivery, it is never
// taken for ccc's comment.
func testLookAlike(t *testing.T, in Instance) {
	w, ok := in.Fake.(OwnWriter)
	if !ok {
		t.Skip("the fake cannot write as the sink's account by hand")
	}
	tagged := func(next string) sinks.Result {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := sinks.Deliver(ctx, in.Sink, sinks.Delivery{
			Target: sinks.Target{Issue: in.Issue, Agent: "main"}, Body: Body(next), Tag: testTag,
		})
		require.NoError(t, err)
		return res
	}
	first := tagged("first")
	require.NotEmpty(t, first.Ref.ID)
	lines := strings.Split(strings.TrimSpace(byID(t, in, first.Ref.ID).Body), "\n")
	in.Fake.Delete(first.Ref.ID)
	for _, body := range []string{"I agree.\n\n" + lines[len(lines)-1], "I agree.\n\n" + Body("mine") + "\n\n" + lines[len(lines)-1]} {
		id := w.AddOwn(in.Issue, body)
		if id == "" {
			t.Skip("no person writes as the sink's account")
		}
		res := tagged("second")
		assert.NotEqual(t, id, res.Ref.ID)
		assert.Equal(t, body, byID(t, in, id).Body, "the person's comment is never touched")
		in.Fake.Delete(res.Ref.ID)
		in.Fake.Delete(id)
	}
}

func testTwoAgents(t *testing.T, in Instance) {
	other := mustDeliver(t, in, "main-2", "other first", sinks.Ref{}, sinks.Created)
	mine := mustDeliver(t, in, "main", "mine first", sinks.Ref{}, sinks.Created)
	assert.NotEqual(t, other.Ref.ID, mine.Ref.ID, `"main" must not adopt the comment of "main-2"`)

	other2 := mustDeliver(t, in, "main-2", "other second", sinks.Ref{}, sinks.Updated)
	assert.Equal(t, other.Ref.ID, other2.Ref.ID)
	mine2 := mustDeliver(t, in, "main", "mine second", sinks.Ref{}, sinks.Updated)
	assert.Equal(t, mine.Ref.ID, mine2.Ref.ID)

	require.Len(t, in.Fake.Comments(in.Issue), 2)
	assert.True(t, says(byID(t, in, other.Ref.ID), "other second"))
	assert.True(t, says(byID(t, in, mine.Ref.ID), "mine second"))
	for _, c := range in.Fake.Comments(in.Issue) {
		assert.Equal(t, 1, strings.Count(c.Body, nextPrefix), fmt.Sprintf("one status per comment: %q", c.Body))
	}
}

// The truncation note names where the delivery says the full text is (the
// body file of ccc post, the job summary), and the progress file only when
// the delivery names nothing.
func testFullText(t *testing.T, h Harness) {
	const maxBody = 600
	long := comment.Render(comment.Status{
		TaskN: 1, TaskM: 2, Task: "long", Next: "ship it",
		Decisions: []string{strings.Repeat("because ", 200)},
	})
	tests := []struct {
		name, fullText, want string
	}{
		{"body file", "report.md", "report.md"},
		{"job summary", "the job summary", "the job summary"},
		{"a name on one line", "odd\nname.md", "odd name.md"},
		{"nothing named", "", sinks.DefaultProgressPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := h.Truncating(t, maxBody)
			_, err := sinks.Deliver(context.Background(), in.Sink, sinks.Delivery{
				Target: sinks.Target{Issue: in.Issue, Agent: "main"}, Body: long, FullText: tt.fullText,
			})
			require.NoError(t, err)
			got := only(t, in).Body
			assert.LessOrEqual(t, utf8.RuneCountInString(got), maxBody)
			assert.True(t, strings.HasSuffix(got, "\n"+comment.TruncateNote(tt.want)+"\n\n"+h.Marker("main")), got)
			if tt.want != sinks.DefaultProgressPath {
				assert.NotContains(t, got, sinks.DefaultProgressPath)
			}
		})
	}
}

// A body that ends inside a fenced code block, or is cut inside one, has
// the block closed before the note and the marker: rendered, the note is a
// paragraph and the marker a block of its own (an HTML comment, hidden,
// when the marker is one), never code.
func testClosedBlocks(t *testing.T, h Harness) {
	const maxBody = 600
	var log strings.Builder
	for i := range 100 {
		fmt.Fprintf(&log, "step %03d ok\n", i)
	}
	marker := h.Marker("main")
	markerKind := "Paragraph"
	if strings.HasPrefix(marker, "<!--") {
		markerKind = "HTMLBlock"
	}
	note := comment.TruncateNote("report.md")
	tests := []struct {
		name, body string
		// last are the blocks before the marker: kind and start of text.
		last []string
	}{
		{"body file ending inside a fence", "## Report\n\n```\nstep 1 ok\nstep 2 ok\n",
			[]string{"Heading: Report", "FencedCodeBlock: step 1 ok"}},
		{"long log cut inside its fence", "## Build log\n\n```text\n" + log.String() + "```\n\nAll green.",
			[]string{"Heading: Build log", "FencedCodeBlock: step 000 ok", "Paragraph: " + note}},
		{"body file ending inside an HTML comment", "## Report\n\n<!-- draft\nnot for now\n",
			[]string{"Heading: Report", "HTMLBlock: <!-- draft"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := h.Truncating(t, maxBody)
			_, err := sinks.Deliver(context.Background(), in.Sink, sinks.Delivery{
				Target: sinks.Target{Issue: in.Issue, Agent: "main"}, Body: tt.body, FullText: "report.md",
			})
			require.NoError(t, err)
			got := only(t, in).Body
			assert.LessOrEqual(t, utf8.RuneCountInString(got), maxBody)
			bs := testutil.Blocks(got)
			require.Greater(t, len(bs), len(tt.last), got)
			assert.Equal(t, markerKind+": "+marker, bs[len(bs)-1], "the marker is a block of its own: %q", got)
			bs = bs[:len(bs)-1]
			for i, want := range tt.last {
				b := bs[len(bs)-len(tt.last)+i]
				assert.True(t, strings.HasPrefix(b, want), "block %q, want it to start %q", b, want)
			}
		})
	}
}

// Shown is everything a failed delivery shows a user or a log: each error
// as %v, %+v and %#v, its sinks.Error cause and what it wraps, then each of
// more (%+v, or bytes as they are, such as a fake's recorded requests). A
// test asserts that no credential appears in it.
func Shown(errs []error, more ...any) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "%v\n%+v\n%#v\n", e, e, e)
		if serr := (*sinks.Error)(nil); errors.As(e, &serr) {
			b.WriteString(serr.Cause + "\n")
			fmt.Fprintf(&b, "%v\n", errors.Unwrap(serr))
		}
	}
	for _, m := range more {
		if raw, ok := m.([]byte); ok {
			b.Write(raw)
			continue
		}
		fmt.Fprintf(&b, "%+v\n", m)
	}
	return b.String()
}

// Waits records a sink's retry waits instead of spending them: Sleep goes
// in the sink's config.
type Waits struct {
	mu sync.Mutex
	d  []time.Duration
}

// Sleep records d and returns at once.
func (w *Waits) Sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

// All lists the waits recorded so far.
func (w *Waits) All() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

// Want is what a steady-state update that met scripted failures comes to:
// what is retried, how long it waits, and what the report will say.
type Want struct {
	OK        bool
	Cause     string
	Permanent bool
	Requests  int
	// MinWaits are lower bounds of the recorded retry waits.
	MinWaits []time.Duration
	// NoWait: no wait was started.
	NoWait bool
	// RetryAfter is the tracker's wait the failure carries (for the
	// outbox's next attempt); checked on failures only.
	RetryAfter time.Duration
}

// Check asserts that the update of the comment first names, which ended
// in res and err after waits, came to w.
func (w Want) Check(t *testing.T, first sinks.Ref, res sinks.Result, err error, waits []time.Duration) {
	t.Helper()
	assert.Equal(t, w.Requests, res.Requests, "requests")
	if w.OK {
		require.NoError(t, err)
		assert.Equal(t, sinks.Updated, res.Action)
		assert.Equal(t, first.ID, res.Ref.ID)
	} else {
		serr := ErrorOf(t, err)
		assert.Equal(t, w.Cause, serr.Cause)
		assert.Equal(t, w.Permanent, serr.Permanent)
		assert.Equal(t, w.RetryAfter, serr.RetryAfter, "the tracker's wait, for the outbox")
		assert.Equal(t, sinks.Failed, res.Action)
		assert.Equal(t, first, res.Ref, "a failed update keeps the stored ref")
	}
	require.GreaterOrEqual(t, len(waits), len(w.MinWaits))
	for i, atLeast := range w.MinWaits {
		assert.GreaterOrEqual(t, waits[i], atLeast, "wait %d", i)
	}
	if w.NoWait {
		assert.Empty(t, waits, "no wait is started that would outlive the deadline")
	}
}
