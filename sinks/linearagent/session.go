package linearagent

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// live is the memo of one delivery and the activity id persisted for it.
type live struct {
	memo
	pending string
}

type sessionAnswer struct {
	Success      bool `json:"success"`
	AgentSession struct {
		ID     string `json:"id"`
		URL    string `json:"url"`
		Status string `json:"status"`
	} `json:"agentSession"`
}

// create starts the session and stores its id (d.Persist) before anything
// is said in it. A non-nil Result is the delivery's outcome already: the
// fallback to the status comment when Linear refuses agent sessions to the
// credential.
func (x *delivery) create(ctx context.Context, m *live) (*sinks.Result, error) {
	v, verr := x.viewer(ctx)
	if verr != nil {
		return nil, verr.Error
	}
	if why := v.sessionsRefused(); why != "" {
		return x.fallback(ctx, why, sinks.Ref{})
	}
	var out struct {
		P sessionAnswer `json:"agentSessionCreateOnIssue"`
	}
	vars := map[string]any{"input": map[string]any{"issueId": x.d.Target.Issue}}
	// No client id for a session: an answer that may be lost is not
	// retried here, the outbox retries the whole delivery.
	if err := x.exec(ctx, "AgentSessionCreateOnIssue", mutationSessionCreate, vars, &out, true); err != nil {
		if notEnabled(err) {
			return x.fallback(ctx, whyNotEnabled, sinks.Ref{})
		}
		if err.Forbidden {
			return x.fallback(ctx, refusedWhy(err), sinks.Ref{})
		}
		return nil, err.Error
	}
	if !out.P.Success || out.P.AgentSession.ID == "" {
		return nil, &sinks.Error{Cause: "Linear did not create the agent session", Permanent: true}
	}
	m.Session, m.URL = out.P.AgentSession.ID, out.P.AgentSession.URL
	if x.d.Persist != nil {
		if err := x.d.Persist(sinks.Ref{ID: m.Session, URL: m.URL}); err != nil {
			return nil, &sinks.Error{Cause: "could not store the agent session id", Permanent: true, Err: err}
		}
	}
	return nil, nil
}

// fallback delivers the status as the linear sink's comment, for a
// credential Linear refuses agent sessions to; the reference stays keep
// (the session a former app token started, else empty), so the next
// delivery asks again (a token that becomes an app's works).
func (x *delivery) fallback(ctx context.Context, why string, keep sinks.Ref) (*sinks.Result, error) {
	s := x.s
	s.mu.Lock()
	s.fell = why
	s.mu.Unlock()
	cfg := s.cfg.Linear
	res, err := linear.New(cfg).Upsert(ctx, sinks.Delivery{
		Target: x.d.Target, Body: x.d.Body, Tag: x.d.Tag, FullText: x.d.FullText,
	})
	res.Ref = keep
	return &res, err
}

// refusedWhy is the fallback's reason for Linear's refusal of an agent
// operation to the credential.
func refusedWhy(err *linear.CallError) string {
	return "Linear refused it to this token (" + err.Cause + "); linear-agent needs an app actor's token, see ccc linear login"
}

// send says what changed since the memo: the plan, then one activity.
func (x *delivery) send(ctx context.Context, m *live) *linear.CallError {
	doc := x.s.doc()
	if doc != nil {
		if err := x.sendPlan(ctx, m, doc); err != nil {
			return err
		}
	}
	if err := x.sendLinks(ctx, m); err != nil {
		return err
	}
	content, mark := x.activity(m, doc)
	if err := x.activityCreate(ctx, m, content, false); err != nil {
		return err
	}
	mark()
	if content["type"] != "response" {
		m.Stopped = false // the agent goes on: keep-alives may follow
	}
	return nil
}

func (x *delivery) sendPlan(ctx context.Context, m *live, doc *progress.Document) *linear.CallError {
	steps, texts := plan(doc, m.Tasks)
	for i := range steps {
		steps[i].Content = x.s.cfg.Redactor.Clip(steps[i].Content, MaxPlanItem)
	}
	h := planHash(steps)
	if h == m.PlanHash {
		return nil
	}
	var out struct {
		P sessionAnswer `json:"agentSessionUpdate"`
	}
	vars := map[string]any{"id": m.Session, "input": map[string]any{"plan": steps}}
	if err := x.exec(ctx, "AgentSessionUpdate", mutationSessionUpdate, vars, &out, false); err != nil {
		return err
	}
	m.PlanHash, m.Tasks = h, texts
	return nil
}

// activity is what this delivery says and what to remember once said.
func (x *delivery) activity(m *live, doc *progress.Document) (map[string]any, func()) {
	none := func() {}
	if doc == nil {
		// No progress file (ccc post, a test): the status itself.
		return map[string]any{"type": "action", "action": "Checkpoint", "parameter": x.d.Target.Issue,
			"result": capped(x.d.Body, min(MaxResult, x.s.cfg.Linear.MaxBody))}, none
	}
	if reason := failure(doc); reason != "" && !m.Failed {
		return map[string]any{"type": "error", "body": reason}, func() { m.Failed = true }
	}
	open := openBlockers(doc)
	for _, b := range open {
		if !slices.Contains(m.Blockers, b) && failure(doc) == "" {
			return map[string]any{"type": "elicitation", "body": b}, func() { m.Blockers = append(m.Blockers, b) }
		}
	}
	// A resolved blocker may be asked about again when it comes back.
	m.Blockers = slices.DeleteFunc(m.Blockers, func(b string) bool { return !slices.Contains(open, b) })
	if doc.Status() == progress.Complete && doc.TaskM() > 0 && !m.Done {
		return map[string]any{"type": "response", "body": summary(doc, m.Links)}, func() { m.Done = true }
	}
	if doc.Status() != progress.Complete {
		m.Done = false
	}
	c := map[string]any{"type": "action", "action": "Checkpoint", "parameter": position(doc)}
	if r := result(doc); r != "" {
		c["result"] = capped(r, MaxResult)
	}
	return c, none
}

// activityCreate sends one activity with an id chosen and persisted
// before it is sent (the pending one of a delivery whose answer was lost
// is sent again): Linear's "already exists" for it means delivered.
func (x *delivery) activityCreate(ctx context.Context, m *live, content map[string]any, ephemeral bool) *linear.CallError {
	if m.pending == "" {
		m.pending = x.s.cfg.Linear.NewID()
		if x.d.Persist != nil {
			if err := x.d.Persist(sinks.Ref{ID: m.Session, URL: m.URL, PendingID: m.pending}); err != nil {
				m.pending = ""
				return &linear.CallError{Error: &sinks.Error{Cause: "could not store the activity id", Permanent: true, Err: err}}
			}
		}
	}
	clean := map[string]any{}
	for k, v := range content {
		if text, ok := v.(string); ok && k != "type" {
			v = x.s.redacted(text)
		}
		clean[k] = v
	}
	input := map[string]any{"agentSessionId": m.Session, "id": m.pending, "content": clean}
	if ephemeral {
		input["ephemeral"] = true
	}
	var out struct {
		P struct {
			Success bool `json:"success"`
		} `json:"agentActivityCreate"`
	}
	err := x.exec(ctx, "AgentActivityCreate", mutationActivityCreate, map[string]any{"input": input}, &out, false)
	if err != nil && !err.Exists {
		return err
	}
	m.pending = ""
	return nil
}

// errNoSession is Thought's and Prompts' answer when no session exists.
var errNoSession = errors.New("no agent session")

// thoughtEvery is how often at most an ephemeral thought is sent.
const thoughtEvery = 3 * time.Minute

// capped is s redacted, then cut to n runes.
func capped(s string, n int) string { return redact.Clip(s, n) }
