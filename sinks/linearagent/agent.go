// Package linearagent is the linear-agent sink: it makes ccc a Linear
// agent. Each agent's work on an issue is an agent session (created with
// agentSessionCreateOnIssue) whose plan mirrors the progress file's tasks
// and whose activities say what each checkpoint did; people answer or
// stop it from Linear, and the hooks read those prompts (Prompts). Agent
// sessions need an app actor's OAuth token: with a personal key Linear
// refuses them, and the delivery falls back to the status comment.
package linearagent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/internal/redact"
	"github.com/ccc-checkpoint/ccc/progress"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
)

// Name is the sink's registry name.
const Name = "linear-agent"

// Config is the sink's configuration.
type Config struct {
	// Linear is how to reach Linear: the token (OAuthToken, an app
	// actor's), the endpoint, the retry tuning. Its NewID makes the
	// activities' ids.
	Linear linear.Config
	// Root is the project whose progress file the plan mirrors and whose
	// .ccc holds the sink's memo; "" keeps the memo in memory.
	Root string
	// StartIssue and Delegate: when a session starts, move the issue to
	// its team's first started state, and set the agent as its delegate
	// when it has none (preferences start_issue and delegate).
	StartIssue, Delegate bool
	// Key is the user's signing key (config.UserKey): the memo under
	// Root is trusted only with its signature. nil: no memo is trusted.
	Key []byte
	// Viewer is who the token acts as, stored with the sign-in of ccc
	// linear login; nil: asked once, before the first session is created.
	Viewer *Viewer
	// RepliesFrom is whose replies the hooks hand to the agent
	// (FromAssignee, FromStarter, FromAnyone); nil: DefaultRepliesFrom.
	// The others' are withheld and only counted.
	RepliesFrom []string
	// Redactor hides credentials in everything the sink reads from the
	// project itself (the plan, the activities); nil: redact.Default.
	Redactor *redact.Redactor
}

// Sink is the linear-agent sink. It is safe for concurrent use.
type Sink struct {
	cfg Config
	gql *linear.Sink
	mu  sync.Mutex
	mem map[string]memo // without a Root
	// viewer is Config.Viewer, or Linear's answer once asked.
	viewer *Viewer
	fell   string // why the last delivery fell back to the comment
	note   string // what the last delivery could not do, though delivered
}

var (
	_ sinks.Sink    = (*Sink)(nil)
	_ sinks.Phraser = (*Sink)(nil)
)

// New returns a sink for cfg.
func New(cfg Config) *Sink {
	l := linear.New(cfg.Linear)
	cfg.Linear.Tuning = cfg.Linear.Tuning.WithDefaults(linear.DefaultMaxBody)
	return &Sink{cfg: cfg, gql: l, mem: map[string]memo{}, viewer: cfg.Viewer}
}

// Name implements sinks.Sink.
func (s *Sink) Name() string { return Name }

// Title implements sinks.Sink.
func (s *Sink) Title() string { return "Linear agent" }

// Phrase implements sinks.Phraser.
func (s *Sink) Phrase(a sinks.Action, target string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fell != "" {
		return fmt.Sprintf("%s comment on %s (no agent session: %s)", a, target, s.fell)
	}
	phrase := "updated agent session on " + target
	if a == sinks.Created {
		phrase = "started agent session on " + target
	}
	if s.note != "" {
		phrase += " (" + s.note + ")"
	}
	return phrase
}

func (s *Sink) load(issue, agent string) (memo, string) {
	path := memoPath(s.cfg.Root, issue, agent)
	if path == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.mem[issue+"\x00"+agent], ""
	}
	return loadMemo(path, s.cfg.Key, issue, agent), path
}

func (s *Sink) save(issue, agent, path string, m memo) error {
	if path == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.mem[issue+"\x00"+agent] = m
		return nil
	}
	return saveMemo(path, s.cfg.Key, issue, agent, m)
}

// doc is the project's progress document, nil when there is none.
func (s *Sink) doc() *progress.Document {
	if s.cfg.Root == "" {
		return nil
	}
	data, err := projectfs.ReadProjectFile(s.cfg.Root, filepath.Join(s.cfg.Root, progress.FileName), progress.MaxSize)
	if err != nil || data == nil {
		return nil
	}
	doc, err := progress.Parse(data)
	if err != nil {
		return nil
	}
	return doc
}

// delivery is one Upsert's state.
type delivery struct {
	s        *Sink
	d        sinks.Delivery
	requests int
	// warning is what went wrong that did not fail the delivery.
	warning string
}

func (x *delivery) exec(ctx context.Context, op, query string, vars map[string]any, out any, once bool) *linear.CallError {
	n, err := x.s.gql.Exec(ctx, op, query, vars, out, once)
	x.requests += n
	return err
}

// Upsert implements sinks.Sink. The first delivery for an issue and agent
// creates the agent session (its id is the Ref's ID, stored in the state
// file); every delivery then sends the plan when it changed and one
// activity: an error for a new --fail, an elicitation for a new blocker,
// the response once all tasks are complete, else the checkpoint's action.
// The activity's id is chosen here and persisted (d.Persist, as the Ref's
// PendingID) before it is sent, so a retry after a lost answer sends the
// same id, and Linear's "already exists" for it counts as delivered. A
// session that no longer exists is created again, once. When Linear
// refuses agent sessions to the credential (a personal key), the status
// goes to the issue's comment as the linear sink writes it.
func (s *Sink) Upsert(ctx context.Context, d sinks.Delivery) (sinks.Result, error) {
	s.mu.Lock()
	s.fell, s.note = "", ""
	s.mu.Unlock()
	switch ok, err := s.gql.HasCredential(ctx); {
	case err != nil:
		// The delivery waits in the outbox for the next login.
		return sinks.Result{Action: sinks.Failed, Ref: d.Prev}, err
	case !ok:
		return sinks.Result{Action: sinks.Skipped}, sinks.Skip("no Linear app token (run ccc linear login, or set LINEAR_OAUTH_TOKEN)")
	}
	if d.Target.Issue == "" {
		return sinks.Result{Action: sinks.Skipped}, sinks.Skip("no Linear issue to update")
	}
	x := &delivery{s: s, d: d}
	mm, path := s.load(d.Target.Issue, d.Target.Agent)
	stored := mm
	switch {
	case d.Unverified:
		// Never write into a session this user's ccc did not store.
		mm, stored = memo{LastPrompt: mm.LastPrompt}, memo{}
	case d.Prev.ID == "":
		// The state file lost the reference: the memo's session, if any.
	case d.Prev.ID != mm.Session:
		// A session the memo does not know: what Linear was shown is
		// unknown, so everything is said again; and only if it is on
		// this issue (the state file is not signed as the memo is).
		on, err := x.onIssue(ctx, d.Prev.ID)
		if err != nil {
			return sinks.Result{Action: sinks.Failed, Ref: d.Prev, Requests: x.requests}, err.Error
		}
		if on {
			mm = memo{Session: d.Prev.ID, LastPrompt: mm.LastPrompt}
		} else {
			stored = memo{} // the memo's session, else a new one
		}
	default:
		stored = memo{}
	}
	m := &live{memo: mm, pending: d.Prev.PendingID}
	action := sinks.Updated
	if m.Session == "" {
		res, err := x.create(ctx, m)
		if err != nil || res != nil {
			return x.result(res, err)
		}
		action = sinks.Created
	}
	err := x.send(ctx, m)
	if err != nil && err.NotFound && action != sinks.Created && stored.Session != "" && stored.Session != m.Session {
		// The stored session is gone; the memo names another one.
		m = &live{memo: stored}
		err = x.send(ctx, m)
	}
	if err != nil && err.NotFound && action != sinks.Created {
		// The session is gone (deleted in Linear): once, a new one.
		m = &live{memo: memo{LastPrompt: m.LastPrompt}}
		res, cerr := x.create(ctx, m)
		if cerr != nil || res != nil {
			return x.result(res, cerr)
		}
		action, err = sinks.Created, x.send(ctx, m)
	}
	ref := sinks.Ref{ID: m.Session, URL: m.URL}
	if err != nil && err.Forbidden {
		// A personal key where an app token started the session.
		return x.result(x.fallback(ctx, refusedWhy(err), ref))
	}
	if err != nil {
		if m.pending != "" {
			ref.PendingID = m.pending
		}
		return sinks.Result{Action: sinks.Failed, Ref: ref, Requests: x.requests}, err.Error
	}
	m.pending = ""
	if action == sinks.Created {
		// After the first response (plan, activity): Linear asks for one
		// within 10 seconds, and for it before the issue's state moves.
		// The state and delegate are courtesies: the status went out,
		// and the next session tries again.
		if err := x.begin(ctx); err != nil {
			x.warning = "issue not moved to started: " + err.Cause
		}
	}
	s.mu.Lock()
	s.note = x.warning
	s.mu.Unlock()
	if serr := s.save(d.Target.Issue, d.Target.Agent, path, m.memo); serr != nil {
		return sinks.Result{Action: sinks.Failed, Ref: ref, Requests: x.requests},
			&sinks.Error{Cause: "could not store the agent session's memo", Permanent: true, Err: serr}
	}
	return sinks.Result{Action: action, Ref: ref, Requests: x.requests}, nil
}

// onIssue says whether session is on the delivery's issue (by id or
// identifier); a session Linear does not find is on none.
func (x *delivery) onIssue(ctx context.Context, session string) (bool, *linear.CallError) {
	var out struct {
		S struct {
			Issue *struct {
				ID         string `json:"id"`
				Identifier string `json:"identifier"`
			} `json:"issue"`
		} `json:"agentSession"`
	}
	if err := x.exec(ctx, "AgentSessionIssue", querySessionIssue, map[string]any{"id": session}, &out, false); err != nil {
		if err.NotFound {
			return false, nil
		}
		return false, err
	}
	is, want := out.S.Issue, x.d.Target.Issue
	return is != nil && (is.ID == want || strings.EqualFold(is.Identifier, want)), nil
}

func (x *delivery) result(res *sinks.Result, err error) (sinks.Result, error) {
	if res != nil {
		res.Requests += x.requests
		return *res, err
	}
	return sinks.Result{Action: sinks.Failed, Requests: x.requests}, err
}

// redacted is text without credentials: the pipeline redacts the status
// body, but the plan and the activities come from the progress file.
func (s *Sink) redacted(text string) string {
	out, _ := s.cfg.Redactor.Redact(text) // a nil *Redactor is redact.Default
	return out
}
