package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/comment"
	"github.com/ccc-checkpoint/ccc/internal/gitrepo"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/state"
	"github.com/ccc-checkpoint/ccc/state/outbox"
)

// Tracker is one sink and where it writes.
type Tracker struct {
	Sink sinks.Sink
	// Target is the sink's target ("owner/repo#12"); "" means the project's
	// issue key as FindIssue finds it (how Linear names an issue).
	Target string
	// Skip, when set, is why the sink cannot run here (no target).
	Skip string
}

// SinkResult is one sink's part of the tracker step.
type SinkResult struct {
	Sink     string       `json:"sink"`
	Title    string       `json:"-"`
	Target   string       `json:"target,omitempty"`
	Action   sinks.Action `json:"action"`
	URL      string       `json:"url,omitempty"`
	Requests int          `json:"requests"`
	// Error is the failure's cause or the skip's reason.
	Error string `json:"error,omitempty"`
	// Queued says a failed delivery waits in the outbox for `ccc sync`.
	Queued bool `json:"queued,omitempty"`
	// Redacted counts the credentials replaced in the body before it left.
	Redacted int `json:"redacted,omitempty"`
	// Wrote words what a delivery wrote, "created comment on CIA-5" when
	// empty.
	Wrote string `json:"-"`
}

// wrote words what a delivery through s wrote to target, in the sink's own
// words when it has them (s may be nil).
func wrote(s sinks.Sink, a sinks.Action, target string) string {
	if p, ok := s.(sinks.Phraser); ok {
		return p.Phrase(a, target)
	}
	return fmt.Sprintf("%s comment on %s", a, target)
}

// queuedConsequence replaces "status not persisted" once the outbox holds
// the update.
const queuedConsequence = "queued for retry (ccc sync)"

// mark is how the report marks one sink's outcome: a failed delivery is
// never ✓, queued or not.
func (r SinkResult) mark() Mark {
	switch r.Action {
	case sinks.Created, sinks.Updated:
		return MarkOK
	case sinks.Failed:
		return MarkFail
	}
	return MarkWarn
}

// line is how the report shows one sink's outcome.
func (r SinkResult) line() string {
	switch r.Action {
	case sinks.Created, sinks.Updated:
		s := r.Wrote
		if s == "" {
			s = wrote(nil, r.Action, r.Target)
		}
		if r.URL != "" {
			s += " " + r.URL
		}
		if r.Redacted > 0 {
			s += fmt.Sprintf(" (%d secret(s) redacted)", r.Redacted)
		}
		return s
	case sinks.Unchanged:
		return "skipped — status unchanged"
	case sinks.Skipped:
		return "skipped — " + r.Error
	default:
		s := "failed (" + r.Error + ")"
		if r.Redacted > 0 {
			s += fmt.Sprintf(" (%d secret(s) redacted)", r.Redacted)
		}
		if r.Queued {
			s += " — " + queuedConsequence
		}
		return s
	}
}

// trackerStep is protocol step 3: upsert this agent's status comment on
// every configured tracker, each independently of the others.
type trackerStep struct{ trackers []Tracker }

func (t trackerStep) String() string {
	if len(t.trackers) == 1 {
		return t.trackers[0].Sink.Title() + " update"
	}
	return "Tracker update"
}

func (trackerStep) Consequence() string { return "status not persisted to issue tracker" }

func (t trackerStep) Run(ctx context.Context, cp *Context) error {
	if err := trackerSkip(cp, t.trackers); err != nil {
		return err
	}
	if cp.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = sinks.WithTimeout(ctx, cp.Timeout)
		defer cancel()
	}
	issue, from := cp.trackerIssue()
	if d := cp.drained; d.ran {
		// One budget for the drain and the deliveries, one issue for both.
		issue, from = d.issue, d.from
		if !d.deadline.IsZero() {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, d.deadline)
			defer cancel()
		}
	}
	body := cp.Tracker.Body
	if body == "" {
		body = comment.Render(comment.Build(cp.Doc, cp.Now))
	}
	// What the run reports (a CI step summary is public) never holds a
	// credential, whatever a sink's redaction preference.
	cp.StatusBody, _ = cp.Redactor.Redact(body)

	results := make([]SinkResult, len(t.trackers))
	for i, tr := range t.trackers {
		target := tr.Target
		if target == "" {
			target = issue
		}
		done := cp.waitFor(tr.Sink.Title(), target)
		results[i] = cp.deliverTo(ctx, tr, issue, from, body)
		done()
	}
	cp.sinkResults = results
	return trackerOutcome(cp, results)
}

// trackerSkip is why the tracker step (and the outbox drain before it) has
// nothing to do, nil when it has.
func trackerSkip(cp *Context, trackers []Tracker) error {
	switch {
	case cp.Tracker.Skip:
		flag := cp.Tracker.SkipFlag
		if flag == "" {
			flag = "--skip-tracker"
		}
		return sinks.Skip("%s given", flag)
	case len(trackers) == 0:
		return sinks.Skip("no tracker configured")
	case cp.Doc == nil && cp.Tracker.Body == "":
		return sinks.Skip("no progress document to report")
	}
	return nil
}

// trackerOutcome is the tracker step's line from its sinks' results.
func trackerOutcome(cp *Context, results []SinkResult) error {
	// One sink's outcome is the step's line; several each get a line of
	// their own under it (Report.Lines), so the step's line only counts
	// them rather than repeat their reasons.
	var fails, skips, done []string
	queued := true
	for _, r := range results {
		switch r.Action {
		case sinks.Failed:
			fails = append(fails, r.Error)
			queued = queued && r.Queued
		case sinks.Skipped:
			skips = append(skips, r.Error)
		case sinks.Unchanged:
			skips = append(skips, "status unchanged")
		default:
			done = append(done, r.line())
		}
	}
	n := len(results)
	var f *Failure
	switch {
	case len(fails) > 0 && n == 1:
		f = &Failure{Cause: fails[0]}
	case len(fails) > 0:
		f = &Failure{Cause: fmt.Sprintf("%d of %d failed", len(fails), n)}
	case len(done) == 0 && n == 1:
		return sinks.Skip("%s", skips[0])
	case len(done) == 0:
		return sinks.Skip("none of %d delivered", n)
	case n == 1:
		cp.notef("%s", done[0])
	default:
		cp.notef("%d of %d delivered", len(done), n)
	}
	if f != nil && queued {
		f.Consequence = queuedConsequence
	}
	if f != nil {
		return f
	}
	return nil
}

// deliverTo sends body through one tracker and stores the reference it
// returns; every outcome, failure included, comes back as a SinkResult.
func (cp *Context) deliverTo(ctx context.Context, tr Tracker, issue, from, body string) SinkResult {
	s := tr.Sink
	res := SinkResult{Sink: s.Name(), Title: s.Title(), Target: tr.Target}
	if res.Target == "" {
		res.Target = issue
		if issue == "" && tr.Skip == "" {
			tr.Skip = fmt.Sprintf("no issue to update (pass --issue KEY-123, or set linearIssue in %s)", state.FileName)
		}
	}
	if tr.Skip != "" {
		res.Action, res.Error = sinks.Skipped, tr.Skip
		return res
	}
	if tr.Target == "" {
		cp.debugf("tracker: %s: issue %s from %s", s.Name(), issue, from)
	}
	// The body is rendered once this delivery holds its lock, from the
	// progress file as it is then: when several processes deliver for one
	// agent, the last to deliver sends the newest status, whatever order
	// their runs started in.
	next := func() (outbox.Entry, bool) {
		return outbox.Entry{Body: cp.latestStatus(body), FullText: cp.Tracker.FullText, RenderedAt: time.Now().UTC()}, true
	}
	key := outbox.Entry{Sink: s.Name(), Target: res.Target, Agent: cp.Agent}
	if q, err := outbox.Queued(cp.Root, key); err == nil && q.Held(cp.Now) {
		// The tracker asked to be left alone until then: the new status
		// joins the queue instead of asking again.
		e, _ := next()
		e = cp.redacted(s, key, e, &res)
		e.NextAttempt = q.NextAttempt
		res.Action = sinks.Failed
		res.Error = fmt.Sprintf("%s; not retried before %s", q.LastError, q.NextAttempt.UTC().Format("15:04 UTC"))
		res.Queued = cp.queue(ctx, e, q.LastError)
		return res
	}
	return cp.send(ctx, s, res, cp.Agent, next)
}

// Redeliver sends one queued entry and updates the outbox: removed once
// delivered, re-queued with its attempt counted when it fails again. The
// entry is read again once its delivery lock is held: another process may
// have delivered it, or queued a newer body, meanwhile.
func (cp *Context) Redeliver(ctx context.Context, s sinks.Sink, e outbox.Entry) SinkResult {
	res := SinkResult{Sink: s.Name(), Title: s.Title(), Target: e.Target}
	next := func() (outbox.Entry, bool) {
		cur, err := outbox.Queued(cp.Root, e)
		if err != nil || !cur.Verify(cp.Key) {
			return outbox.Entry{}, false
		}
		return cur, true
	}
	return cp.send(ctx, s, res, e.Agent, next)
}

// send delivers the entry next gives (a body and when it was rendered)
// through one sink as agent, holding that (sink, target, agent)'s delivery
// lock, and under the same lock stores the reference the sink returns and
// updates the outbox: a delivered body removes what was queued before it, a
// failed one is queued unless a newer body already is. Holding the lock
// across both keeps an older status from ever landing after a newer one.
// next returns false when nothing is left to deliver.
func (cp *Context) send(ctx context.Context, s sinks.Sink, res SinkResult, agent string, next func() (outbox.Entry, bool)) SinkResult {
	key := outbox.Entry{Sink: s.Name(), Target: res.Target, Agent: agent}
	unlock, lerr := outbox.LockDelivery(ctx, cp.Root, key)
	if lerr != nil {
		// Another process is delivering this key, or the lock cannot be
		// had at all (a read-only .ccc): queue this body (the outbox keeps
		// whichever was rendered last) and say which.
		e, ok := next()
		if !ok {
			return cp.finish(ctx, s, res, sinks.Result{Action: sinks.Unchanged}, nil, key)
		}
		e = cp.redacted(s, key, e, &res)
		cause := lerr.Error()
		if errors.Is(lerr, projectfs.ErrBusy) {
			cause = "another ccc process is delivering to " + res.Target
		}
		return cp.finish(ctx, s, res, sinks.Result{Action: sinks.Failed}, &sinks.Error{Cause: cause, Err: lerr}, e)
	}
	defer unlock()
	e, ok := next()
	if !ok {
		res.Action = sinks.Unchanged // delivered by another process meanwhile
		return res
	}
	e = cp.redacted(s, key, e, &res)
	r, err := cp.deliver(ctx, s, e)
	return cp.finish(ctx, s, res, r, err, e)
}

// finish turns a delivery's outcome into res and updates the outbox under
// the delivery lock send holds: a delivered body removes what was queued
// before it, a failed one is queued.
func (cp *Context) finish(ctx context.Context, s sinks.Sink, res SinkResult, r sinks.Result, err error, e outbox.Entry) SinkResult {
	res.Action, res.Requests, res.URL = r.Action, r.Requests, r.Ref.URL
	var skip *sinks.SkipError
	var serr *sinks.Error
	switch {
	case err == nil:
		if r.Action == sinks.Created || r.Action == sinks.Updated {
			res.Wrote = wrote(s, r.Action, res.Target)
		}
		if lerr := cp.withLock(ctx, func() error { return outbox.Dequeue(cp.Root, e) }); lerr != nil {
			cp.warnf("%v", lerr)
		}
		return res
	case errors.As(err, &skip):
		// Nothing is queued for a sink that cannot run here; what
		// was queued stays.
		res.Error = skip.Reason
		return res
	case errors.As(err, &serr):
		res.Error = serr.Cause
		// A sink says "could not store the comment id"; why (a state
		// file that is not valid JSON, a read-only directory) is the
		// cause to fix.
		var ref *refError
		var corrupt *state.CorruptError
		switch {
		case errors.As(err, &corrupt):
			res.Error += ": " + rel(cp.Root, corrupt.Where()) + " is not valid JSON"
		case errors.As(err, &ref):
			res.Error += ": " + ref.err.Error()
		}
		cp.debugf("tracker: %s: %v", s.Name(), err)
	default:
		res.Error = err.Error()
	}
	// A server's answer may echo the credential (plain, base64):
	// the cause goes to the report, the outbox and ccc sync's lines.
	res.Error, _ = cp.Redactor.Redact(res.Error)
	// The tracker's own wait (Retry-After, a rate limit's reset)
	// decides when the outbox tries again, when it is the longer.
	e.NextAttempt = time.Time{}
	if serr != nil && serr.RetryAfter > 0 {
		e.NextAttempt = cp.Now.Add(serr.RetryAfter)
	}
	res.Queued = cp.queue(ctx, e, res.Error)
	return res
}

// redacted fills e's key and replaces the credentials in its body: nothing
// unredacted reaches a sink or the outbox. Where the user's own preferences
// turned a sink's redaction off, the patterns are off for it, never the
// credentials ccc holds.
func (cp *Context) redacted(s sinks.Sink, key, e outbox.Entry, res *SinkResult) outbox.Entry {
	e.Sink, e.Target, e.Agent = key.Sink, key.Target, key.Agent
	r := cp.Redactor
	if cp.Tracker.NoRedact[s.Name()] {
		r = r.HeldOnly()
	}
	e.Body, res.Redacted = r.Redact(e.Body)
	return e
}

// queue keeps a failed delivery in the outbox; it reports whether it could.
func (cp *Context) queue(ctx context.Context, e outbox.Entry, cause string) bool {
	cause, _ = cp.Redactor.Redact(cause)
	if len(cp.Key) > 0 {
		e = e.Sign(cp.Key)
	}
	err := cp.withLock(ctx, func() error {
		_, err := outbox.Queue(cp.Root, e, cause, cp.Now)
		return err
	})
	if err != nil {
		cp.warnf("%s: update not queued for retry: %v", e.Sink, err)
		return false
	}
	return true
}

func (cp *Context) withLock(ctx context.Context, fn func() error) error {
	// The lock must be had even when the delivery used up the deadline:
	// what failed is worth keeping.
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	unlock, err := projectfs.Lock(lctx, cp.Root)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// deliver sends e's body through one sink to e's target as e's agent (the
// caller holds the delivery lock) and stores the reference it returns.
func (cp *Context) deliver(ctx context.Context, s sinks.Sink, e outbox.Entry) (sinks.Result, error) {
	target, agent := e.Target, e.Agent
	prev, unverified := cp.storedRef(s, target, agent)
	saveRef := func(ref sinks.Ref) error {
		ref = signRef(cp.Key, s.Name(), target, agent, ref)
		return refErr(cp.updateBookkeeping(ctx, func(st *state.State) error {
			if err := st.SetRef(s.Name(), target, agent, ref); err != nil {
				return err
			}
			// The seed's key for the comment id: the main agent's Linear one.
			if s.Name() == "linear" && agent == "main" && ref.ID != "" {
				return st.Set("checkpointCommentId", ref.ID)
			}
			return nil
		}))
	}
	res, err := sinks.Deliver(ctx, s, sinks.Delivery{
		Target:     sinks.Target{Issue: target, Agent: agent},
		Body:       e.Body,
		Prev:       prev,
		Unverified: unverified,
		Tag:        cp.tagger(),
		Persist:    saveRef,
		FullText:   e.FullText,
	})
	if err == nil && res.Action != sinks.Unchanged {
		res.Ref.UpdatedAt = cp.Now.UTC()
		if serr := saveRef(res.Ref); serr != nil {
			cp.warnf("%s: comment %s written but not recorded: %v", s.Title(), res.Ref.ID, serr)
		}
	}
	return res, err
}

// storedRef is the comment reference stored for (s, target, agent), and
// whether the sink must check it before updating the comment it names.
func (cp *Context) storedRef(s sinks.Sink, target, agent string) (prev sinks.Ref, unverified bool) {
	// The reference as stored now, not as read at the start of the run:
	// another process may have created the comment meanwhile.
	st := cp.State
	if data, err := projectfs.ReadProjectFile(cp.Root, state.Path(cp.Root), state.MaxSize); err == nil {
		if fresh, err := state.Parse(data); err == nil {
			st = fresh
		}
	}
	if st != nil {
		found, err := st.Ref(s.Name(), target, agent, &prev)
		if err != nil {
			cp.warnf("%v", err)
		}
		if found && !validRef(cp.Key, s.Name(), target, agent, prev) {
			// Not written by this user's ccc: the id may name anyone's
			// comment anywhere. The sink checks it before updating it;
			// a pending id, which the sink would create or update
			// unchecked, is dropped. A delivery replaces the reference
			// with a signed one, so this is said once. Without a key
			// every reference is unverified, and the key's own warning
			// says why.
			if len(cp.Key) > 0 {
				cp.alertf("%s: the comment reference stored for %s (agent %s) in %s is not signed by this user's ccc: checking the comment before updating it",
					s.Title(), target, agent, state.FileName)
			}
			prev.PendingID, unverified = "", true
		}
		// A project that CCC's own tooling set up keeps the main agent's
		// Linear comment id under the seed's key: adopt that comment
		// rather than create a second one. Only while ccc has stored no
		// Linear reference of its own and the issue is the state's own
		// (with --issue the id may name a comment on another issue).
		if !found && s.Name() == "linear" && agent == "main" && !st.HasRefs("linear") &&
			cp.Edits.Issue == "" && st.Issue() == target {
			// Unsigned by nature: checked by the sink like any.
			prev.ID, unverified = st.String("checkpointCommentId"), true
		}
	}
	return prev, unverified
}

// refFields lists what a reference's signature covers: the comment it
// names, where, for whom.
func refFields(sink, target, agent string, r sinks.Ref) []string {
	return []string{"ccc/ref/v1", sink, target, agent, r.ID, r.URL, r.PendingID, r.BodyHash}
}

// signRef signs r with key (no key: r stays unsigned, and is checked when
// next used).
func signRef(key []byte, sink, target, agent string, r sinks.Ref) sinks.Ref {
	r.Sig = ""
	if len(key) > 0 {
		r.Sig = projectfs.Tag(key, refFields(sink, target, agent, r)...)
	}
	return r
}

// validRef says whether r, stored for (sink, target, agent), was signed
// with key. The zero reference needs no signature: it names nothing.
func validRef(key []byte, sink, target, agent string, r sinks.Ref) bool {
	if r.ID == "" && r.PendingID == "" {
		return true
	}
	return projectfs.ValidTag(key, r.Sig, refFields(sink, target, agent, r)...)
}

// tagger signs with the user's key for the sinks' markers; nil without a
// key.
func (cp *Context) tagger() func(fields ...string) string {
	if len(cp.Key) == 0 {
		return nil
	}
	return func(fields ...string) string { return projectfs.Tag(cp.Key, fields...) }
}

// refError is a sink's reference that could not be stored in the state
// file; the report names its cause.
type refError struct{ err error }

func (e *refError) Error() string { return e.err.Error() }
func (e *refError) Unwrap() error { return e.err }

func refErr(err error) error {
	if err == nil {
		return nil
	}
	return &refError{err}
}

var branchIssue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[^a-z0-9])([a-z][a-z0-9]*-[0-9]+)(?:[^0-9]|$)`)
})

// FindIssue resolves a project's tracker issue the way the tracker step does,
// for commands that report on it (`ccc doctor`).
func FindIssue(ctx context.Context, root, flag string, now time.Time) (issue, from string) {
	cp := &Context{Root: root, Issue: flag}
	if l, err := state.Load(root, now); err == nil {
		cp.State = l.State
	}
	if data, err := readProgress(filepath.Join(root, progress.FileName)); err == nil && data != nil {
		cp.Doc, _ = progress.Parse(data)
	}
	if repo, err := gitrepo.Open(ctx, root); err == nil {
		cp.branch, _ = repo.Branch(ctx)
	}
	return cp.trackerIssue()
}

// trackerIssue finds the issue to update: --issue, else the state's
// linearIssue/activeIssue, else the progress document's Issue, else a
// KEY-123 in the branch name. It says where it found it.
func (cp *Context) trackerIssue() (issue, from string) {
	if cp.Issue != "" {
		if k, ok := progress.NormalIssue(cp.Issue); ok {
			return k, "--issue"
		}
		return cp.Issue, "--issue"
	}
	if cp.State != nil {
		if k := strings.TrimSpace(cp.State.Issue()); k != "" {
			if n, ok := progress.NormalIssue(k); ok {
				k = n
			}
			return k, state.FileName
		}
	}
	if cp.Doc != nil && cp.Doc.Issue.Key != "" {
		return cp.Doc.Issue.Key, progress.FileName
	}
	if m := branchIssue().FindStringSubmatch(cp.branch); m != nil {
		if k, ok := progress.NormalIssue(m[1]); ok {
			return k, "branch " + cp.branch
		}
	}
	return "", ""
}

// latestStatus is the status rendered from the progress file as it is now,
// or fallback when the run delivers a body of its own (ccc post) or the file
// cannot be read or is broken.
func (cp *Context) latestStatus(fallback string) string {
	if cp.Tracker.Body != "" || cp.Doc == nil {
		return fallback
	}
	data, err := readProgress(filepath.Join(cp.Root, progress.FileName))
	if err != nil || data == nil {
		return fallback
	}
	// The file persist just wrote is the document it holds: parsed once.
	doc := cp.Doc
	if src := cp.persisted.src; src == nil || string(data) != string(src) {
		if doc, err = progress.CheckParse(progress.FileName, data); err != nil {
			return fallback
		}
	}
	return comment.Render(comment.Build(doc, cp.Now))
}
