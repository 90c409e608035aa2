package linearfake

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// StaleAfter is how long a session may go without an activity before
// Linear shows it stale ("Interaction best practices": follow-up
// activities can be sent for up to 30 minutes).
const StaleAfter = 30 * time.Minute

// Session is an agent session as the fake holds it.
type Session struct {
	ID, Issue string
	// Owner is the app user that started it; Creator the person
	// responsible for it ("": none, as for a session an app starts).
	Owner, Creator string
	// Plan is the last plan sent (agentSessionUpdate), as decoded JSON.
	Plan       any
	URLs       []map[string]any
	Activities []Activity
	Deleted    bool
}

// Activity is one agent activity.
type Activity struct {
	ID        string
	Type      string
	Content   map[string]any
	Ephemeral bool
	Signal    string
	UserID    string
	UserName  string
	CreatedAt time.Time
}

// Sessions lists issue's live sessions, oldest first (copies).
func (s *Server) Sessions(issue string) []Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Session
	for _, a := range s.sessions {
		if strings.EqualFold(a.Issue, issue) && !a.Deleted {
			c := *a
			c.Activities = slices.Clone(a.Activities)
			out = append(out, c)
		}
	}
	return out
}

// Status is a session's state as Linear derives it from the last
// activity: pending before any, active after a thought or action (or a
// person's prompt), awaitingInput after an elicitation, error, complete
// after a response; stale after StaleAfter of silence (by Clock).
func (s *Server) Status(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.session(id)
	if a == nil {
		return ""
	}
	return s.status(a)
}

func (s *Server) status(a *Session) string {
	if len(a.Activities) == 0 {
		return "pending"
	}
	last := a.Activities[len(a.Activities)-1]
	if s.clock().Sub(last.CreatedAt) > StaleAfter {
		return "stale"
	}
	switch last.Type {
	case "elicitation":
		return "awaitingInput"
	case "error":
		return "error"
	case "response":
		return "complete"
	}
	return "active"
}

// AddPrompt writes a person's prompt in the session (as Linear's UI does;
// agentActivityCreatePrompt is internal), a stop request when stop; it
// returns the activity's id. Its author is OtherUserID, named author (the
// assignee of a new issue).
func (s *Server) AddPrompt(sessionID, author, body string, stop bool) string {
	return s.AddPromptBy(sessionID, OtherUserID, author, body, stop)
}

// AddPromptBy is AddPrompt written by the user userID.
func (s *Server) AddPromptBy(sessionID, userID, author, body string, stop bool) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.session(sessionID)
	if a == nil {
		return ""
	}
	act := Activity{ID: uuid.NewString(), Type: "prompt", Content: map[string]any{"type": "prompt", "body": body},
		UserID: userID, UserName: author, CreatedAt: s.clock()}
	if stop {
		act.Signal = "stop"
	}
	a.Activities = append(a.Activities, act)
	return act.ID
}

// SetSessionCreator makes userID the person responsible for the session
// (AgentSession.creator).
func (s *Server) SetSessionCreator(sessionID, userID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.session(sessionID); a != nil {
		a.Creator = userID
	}
}

// SetAssignee assigns the issue to userID ("": unassigned).
func (s *Server) SetAssignee(identifier, userID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if is := s.issue(identifier); is != nil {
		s.work(is).AssigneeID = userID
	}
}

// DeleteSession removes a session, as when a person deletes it.
func (s *Server) DeleteSession(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.session(id); a != nil {
		a.Deleted = true
	}
}

func (s *Server) clock() time.Time {
	if s.Clock != nil {
		return s.Clock()
	}
	return time.Now()
}

func (s *Server) session(id string) *Session {
	for _, a := range s.sessions {
		if a.ID == id && !a.Deleted {
			return a
		}
	}
	return nil
}

// AgentSessionsNotEnabled is Linear's answer to agentSessionCreateOnIssue
// for an application without webhooks for "Agent session events" (as
// issue 25 quotes it; its error code and type are not known, the fake
// answers a validation error).
const AgentSessionsNotEnabled = "Agent sessions are not enabled for this application."

// appOnly is Linear's refusal of an agent operation to a credential that
// is not an app actor's.
func appOnly(field string) *gqlError {
	return &gqlError{
		Message: "Forbidden", Code: "FORBIDDEN", Type: "forbidden", UserError: true,
		UserPresentableMessage: "Only OAuth applications acting as an app user (actor=app) can use agent sessions.",
		Path:                   []any{field}, HTTPStatus: http.StatusBadRequest,
	}
}

// notOwner refuses a change to another app's session ("Only updatable by
// the OAuth application that owns the session", the schema says).
func notOwner(field string) *gqlError {
	return &gqlError{
		Message: "Forbidden", Code: "FORBIDDEN", Type: "forbidden", UserError: true,
		UserPresentableMessage: "Only the OAuth application that owns the session can update it.",
		Path:                   []any{field}, HTTPStatus: http.StatusBadRequest,
	}
}

func (s *Server) agentQuery(root object, u *user) {
	root["agentSession"] = resolver(func(args map[string]any) (any, *gqlError) {
		id, _ := args["id"].(string)
		a := s.session(id)
		if a == nil {
			e := notFoundError("agentSession", "AgentSession")
			return nil, &e
		}
		return s.sessionObject(a, u), nil
	})
}

func (s *Server) agentMutations(root object, u *user) {
	root["issueUpdate"] = resolver(func(args map[string]any) (any, *gqlError) { return s.issueUpdate(args, u) })
	root["agentSessionCreateOnIssue"] = resolver(func(args map[string]any) (any, *gqlError) {
		if !u.App {
			return nil, appOnly("agentSessionCreateOnIssue")
		}
		if s.NoAgentSessionEvents {
			return nil, &gqlError{
				Message: AgentSessionsNotEnabled, Code: "INVALID_INPUT", Type: "invalid input", UserError: true,
				UserPresentableMessage: AgentSessionsNotEnabled, Path: []any{"agentSessionCreateOnIssue"}, HTTPStatus: http.StatusBadRequest,
			}
		}
		in, _ := args["input"].(map[string]any)
		issueID, _ := in["issueId"].(string)
		is := s.issue(issueID)
		if is == nil {
			e := notFoundError("agentSessionCreateOnIssue", "Issue")
			return nil, &e
		}
		a := &Session{ID: uuid.NewString(), Issue: is.Identifier, Owner: u.ID}
		s.sessions = append(s.sessions, a)
		return s.sessionPayload(a, u), nil
	})
	root["agentSessionUpdate"] = resolver(func(args map[string]any) (any, *gqlError) {
		if !u.App {
			return nil, appOnly("agentSessionUpdate")
		}
		id, _ := args["id"].(string)
		a := s.session(id)
		if a == nil {
			e := notFoundError("agentSessionUpdate", "AgentSession")
			return nil, &e
		}
		if a.Owner != u.ID {
			return nil, notOwner("agentSessionUpdate")
		}
		in, _ := args["input"].(map[string]any)
		if p, ok := in["plan"]; ok {
			a.Plan = p
		}
		if urls, ok := in["addedExternalUrls"].([]any); ok {
			for _, x := range urls {
				if m, ok := x.(map[string]any); ok {
					a.URLs = append(a.URLs, m)
				}
			}
		}
		return s.sessionPayload(a, u), nil
	})
	root["agentActivityCreate"] = resolver(func(args map[string]any) (any, *gqlError) {
		if !u.App {
			return nil, appOnly("agentActivityCreate")
		}
		in, _ := args["input"].(map[string]any)
		sid, _ := in["agentSessionId"].(string)
		a := s.session(sid)
		if a == nil {
			e := notFoundError("agentActivityCreate", "AgentSession")
			return nil, &e
		}
		if a.Owner != u.ID {
			return nil, notOwner("agentActivityCreate")
		}
		id, _ := in["id"].(string)
		if id == "" {
			id = uuid.NewString()
		} else if !uuidV4.MatchString(id) {
			return nil, &gqlError{
				Message: "Argument Validation Error", Code: "INVALID_INPUT", Type: "invalid input", UserError: true,
				UserPresentableMessage: "id must be a UUID v4.", Path: []any{"agentActivityCreate"}, HTTPStatus: http.StatusBadRequest,
			}
		}
		for _, o := range s.sessions {
			for _, act := range o.Activities {
				if act.ID == id {
					return nil, &gqlError{
						Message: "Entity already exists: AgentActivity", Code: "INVALID_INPUT", Type: "invalid input", UserError: true,
						UserPresentableMessage: "An agent activity with this id already exists.", Path: []any{"agentActivityCreate"},
						HTTPStatus: http.StatusBadRequest,
					}
				}
			}
		}
		content, _ := in["content"].(map[string]any)
		typ, _ := content["type"].(string)
		if !slices.Contains([]string{"thought", "action", "elicitation", "response", "error"}, typ) {
			return nil, &gqlError{
				Message: "Argument Validation Error", Code: "INVALID_INPUT", Type: "invalid input", UserError: true,
				UserPresentableMessage: "Invalid activity content type.", Path: []any{"agentActivityCreate"}, HTTPStatus: http.StatusBadRequest,
			}
		}
		eph, _ := in["ephemeral"].(bool)
		sig, _ := in["signal"].(string)
		// An ephemeral activity disappears after the next one.
		if n := len(a.Activities); n > 0 && a.Activities[n-1].Ephemeral {
			a.Activities = a.Activities[:n-1]
		}
		act := Activity{ID: id, Type: typ, Content: content, Ephemeral: eph, Signal: sig, UserID: u.ID, UserName: u.Name, CreatedAt: s.clock()}
		a.Activities = append(a.Activities, act)
		s.syncID++
		return object{"success": true, "lastSyncId": float64(s.syncID), "agentActivity": s.activityObject(a, act, u)}, nil
	})
}

func (s *Server) sessionPayload(a *Session, u *user) object {
	s.syncID++
	return object{"success": true, "lastSyncId": float64(s.syncID), "agentSession": s.sessionObject(a, u)}
}

func (s *Server) sessionObject(a *Session, u *user) object {
	var is any
	if i := s.issue(a.Issue); i != nil {
		is = s.issueObject(i, u)
	}
	o := object{
		"id": a.ID, "status": s.status(a), "plan": a.Plan, "issue": is, "creator": s.userRef(a.Creator, u),
		"url": "https://linear.app/fake/issue/" + a.Issue + "#agent-session-" + a.ID[:8],
	}
	o["activities"] = resolver(func(args map[string]any) (any, *gqlError) {
		var nodes []object
		want := ""
		var after time.Time
		if f, ok := args["filter"].(map[string]any); ok {
			if t, ok := f["type"].(map[string]any); ok {
				want, _ = t["eq"].(string)
			}
			if c, ok := f["createdAt"].(map[string]any); ok {
				if gt, ok := c["gt"].(string); ok {
					t, err := time.Parse(time.RFC3339Nano, gt)
					if err != nil {
						return nil, &gqlError{Message: "Argument Validation Error", Code: "INVALID_INPUT", UserError: true, HTTPStatus: http.StatusBadRequest}
					}
					after = t
				}
			}
		}
		acts := slices.Clone(a.Activities)
		slices.SortStableFunc(acts, func(x, y Activity) int { return x.CreatedAt.Compare(y.CreatedAt) })
		if s.NewestFirst {
			// Linear documents only "ordered by createdAt".
			slices.Reverse(acts)
		}
		for _, act := range acts {
			// Times are served to the millisecond, and compared so.
			if (want == "" || act.Type == want) && act.CreatedAt.Truncate(time.Millisecond).After(after) {
				nodes = append(nodes, s.activityObject(a, act, u))
			}
		}
		if n, ok := toInt(args["last"]); ok && n < len(nodes) {
			nodes = nodes[len(nodes)-n:]
		}
		return object{"nodes": nodes}, nil
	})
	return o
}

var contentTypes = map[string]string{
	"thought": "AgentActivityThoughtContent", "action": "AgentActivityActionContent",
	"elicitation": "AgentActivityElicitationContent", "response": "AgentActivityResponseContent",
	"error": "AgentActivityErrorContent", "prompt": "AgentActivityPromptContent",
}

func (s *Server) activityObject(a *Session, act Activity, viewer *user) object {
	content := object{"__typename": contentTypes[act.Type]}
	for k, v := range act.Content {
		content[k] = v
	}
	var signal any
	if act.Signal != "" {
		signal = act.Signal
	}
	return object{
		"id": act.ID, "createdAt": act.CreatedAt, "ephemeral": act.Ephemeral, "signal": signal, "content": content,
		"user": object{"id": act.UserID, "name": act.UserName},
	}
}

// workflowState is one of the fake team's states (every issue is in the
// one team).
type workflowState struct {
	ID, Name, Type string
	Position       float64
}

// teamStates are the fake team's workflow states; a new issue is in Todo,
// assigned to OtherUserID.
var teamStates = []workflowState{
	{"5e0b0000-0000-4000-8000-000000000001", "Backlog", "backlog", 0},
	{"5e0b0000-0000-4000-8000-000000000002", "Todo", "unstarted", 1},
	{"5e0b0000-0000-4000-8000-000000000004", "In Review", "started", 3},
	{"5e0b0000-0000-4000-8000-000000000003", "In Progress", "started", 2},
	{"5e0b0000-0000-4000-8000-000000000005", "Done", "completed", 4},
	{"5e0b0000-0000-4000-8000-000000000006", "Triage", "triage", -1},
}

// issueWork is an issue's state, delegate and assignee.
type issueWork struct{ StateID, DelegateID, AssigneeID string }

func (s *Server) work(is *issue) *issueWork {
	if s.issueWork == nil {
		s.issueWork = map[string]*issueWork{}
	}
	w := s.issueWork[is.ID]
	if w == nil {
		w = &issueWork{StateID: teamStates[1].ID, AssigneeID: OtherUserID}
		s.issueWork[is.ID] = w
	}
	return w
}

// IssueWork is an issue's state name and its delegate's id ("" for none).
func (s *Server) IssueWork(identifier string) (state, delegateID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.issue(identifier)
	if is == nil {
		return "", ""
	}
	w := s.work(is)
	for _, st := range teamStates {
		if st.ID == w.StateID {
			state = st.Name
		}
	}
	return state, w.DelegateID
}

// SetIssueState puts an issue in the team's state named name ("Triage",
// "Backlog", "Todo", "In Progress", "In Review", "Done").
func (s *Server) SetIssueState(identifier, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.issue(identifier)
	if is == nil {
		return
	}
	for _, st := range teamStates {
		if st.Name == name {
			s.work(is).StateID = st.ID
			return
		}
	}
	panic("linearfake: no state " + name)
}

func stateObject(st workflowState) object {
	return object{"id": st.ID, "name": st.Name, "type": st.Type, "position": st.Position}
}

// userRef is the user id as an object: a member the fake knows in full,
// else its id and name ("" for none: null).
func (s *Server) userRef(id string, viewer *user) any {
	if id == "" {
		return nil
	}
	if u := s.userByID(id); u != nil {
		return s.userObject(u, viewer)
	}
	return object{"id": id, "name": ""}
}

// issueWorkFields adds an issue's state, delegate, assignee and team to
// its object.
func (s *Server) issueWorkFields(o object, is *issue, viewer *user) {
	w := s.work(is)
	for _, st := range teamStates {
		if st.ID == w.StateID {
			o["state"] = stateObject(st)
		}
	}
	o["delegate"] = s.userObject(s.userByID(w.DelegateID), viewer)
	o["assignee"] = s.userRef(w.AssigneeID, viewer)
	o["team"] = object{"id": "7ea30000-0000-4000-8000-000000000001", "key": "CIA", "states": resolver(func(args map[string]any) (any, *gqlError) {
		want := ""
		if f, ok := args["filter"].(map[string]any); ok {
			if t, ok := f["type"].(map[string]any); ok {
				want, _ = t["eq"].(string)
			}
		}
		var nodes []object
		for _, st := range teamStates {
			if want == "" || st.Type == want {
				nodes = append(nodes, stateObject(st))
			}
		}
		return object{"nodes": nodes}, nil
	})}
}

func (s *Server) issueUpdate(args map[string]any, u *user) (any, *gqlError) {
	id, _ := args["id"].(string)
	in, _ := args["input"].(map[string]any)
	is := s.issue(id)
	if is == nil {
		e := notFoundError("issueUpdate", "Issue")
		return nil, &e
	}
	w := s.work(is)
	if v, ok := in["stateId"].(string); ok {
		w.StateID = v
	}
	if v, ok := in["delegateId"].(string); ok {
		w.DelegateID = v
	}
	s.syncID++
	return object{"success": true, "lastSyncId": float64(s.syncID), "issue": s.issueObject(is, u)}, nil
}

// AddForeignSession starts a session on issue owned by another app, with
// one action whose result is body; it returns the session's id.
func (s *Server) AddForeignSession(issue, body string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &Session{ID: uuid.NewString(), Issue: issue, Owner: OtherUserID, Activities: []Activity{{
		ID: uuid.NewString(), Type: "action", UserID: OtherUserID, CreatedAt: s.clock(),
		Content: map[string]any{"type": "action", "action": "Checkpoint", "parameter": issue, "result": body},
	}}}
	s.sessions = append(s.sessions, a)
	return a.ID
}
