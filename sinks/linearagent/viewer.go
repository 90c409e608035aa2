package linearagent

import (
	"context"
	"strings"

	"github.com/ccc-checkpoint/ccc/sinks/linear"
)

// queryViewer asks whether the token is an app user's and whether its
// OAuth application receives agent sessions (User.supportsAgentSessions:
// only when the application has webhooks with "Agent session events").
const queryViewer = `query AgentViewer { viewer { id app supportsAgentSessions } }`

// Viewer is who the token acts as, as far as agent sessions go.
type Viewer struct {
	ID string
	// App: an app user (actor=app); SupportsAgentSessions: its
	// application has the "Agent session events" webhook on.
	App, SupportsAgentSessions bool
}

// Why an app token gets no agent session. Both are said in the fallback's
// phrase, so the fix is one read away.
const (
	whyNotApp     = "not an app token (the viewer is a person); linear-agent needs the app's sign-in: ccc linear login"
	whyNotEnabled = "agent sessions are not enabled for this OAuth application: in Linear, turn on its webhooks with " +
		"\"Agent session events\" (the webhook URL must answer 2xx), then run ccc linear login again"
)

// notEnabled says whether err is Linear's refusal of a session to an
// application without the "Agent session events" webhook.
func notEnabled(err *linear.CallError) bool {
	return err != nil && strings.Contains(strings.ToLower(err.Cause), "agent sessions are not enabled")
}

// viewer is the token's Viewer: the one stored with the sign-in
// (Config.Viewer), else asked once per sink.
func (x *delivery) viewer(ctx context.Context) (Viewer, *linear.CallError) {
	s := x.s
	s.mu.Lock()
	v := s.viewer
	s.mu.Unlock()
	if v != nil {
		return *v, nil
	}
	var out struct {
		V struct {
			ID                    string `json:"id"`
			App                   bool   `json:"app"`
			SupportsAgentSessions bool   `json:"supportsAgentSessions"`
		} `json:"viewer"`
	}
	if err := x.exec(ctx, "AgentViewer", queryViewer, nil, &out, false); err != nil {
		return Viewer{}, err
	}
	got := Viewer{ID: out.V.ID, App: out.V.App, SupportsAgentSessions: out.V.SupportsAgentSessions}
	s.mu.Lock()
	s.viewer = &got
	s.mu.Unlock()
	return got, nil
}

// sessionsRefused is why the token cannot have agent sessions, "" when it
// can.
func (v Viewer) sessionsRefused() string {
	switch {
	case !v.App:
		return whyNotApp
	case !v.SupportsAgentSessions:
		return whyNotEnabled
	}
	return ""
}
