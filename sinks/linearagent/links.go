package linearagent

import (
	"context"
	"slices"
	"strings"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
	"github.com/ccc-checkpoint/ccc/state"
)

// link is an external URL of the session.
type link struct {
	Label string `json:"label"`
	URL   string `json:"url"`
}

// links are the pull request and the GitHub status comment that the
// github sink wrote for agent (its references in the state file).
func (s *Sink) links(agent string) []link {
	if s.cfg.Root == "" {
		return nil
	}
	data, err := projectfs.ReadProjectFile(s.cfg.Root, state.Path(s.cfg.Root), state.MaxSize)
	if err != nil {
		return nil
	}
	st, err := state.Parse(data)
	if err != nil {
		return nil
	}
	var out []link
	for _, target := range st.RefTargets("github") {
		var ref sinks.Ref
		if ok, err := st.Ref("github", target, agent, &ref); !ok || err != nil || !strings.HasPrefix(ref.URL, "https://") {
			continue
		}
		if pr, _, ok := strings.Cut(ref.URL, "#"); ok && strings.Contains(pr, "/pull/") {
			out = append(out, link{Label: "Pull request " + target, URL: pr})
		}
		out = append(out, link{Label: "GitHub status comment", URL: ref.URL})
	}
	return out
}

// sendLinks adds the links the session does not have yet
// (addedExternalUrls keeps the ones people or Linear added).
func (x *delivery) sendLinks(ctx context.Context, m *live) *linear.CallError {
	var add []link
	for _, l := range x.s.links(x.d.Target.Agent) {
		if !slices.Contains(m.Links, l.URL) {
			add = append(add, l)
		}
	}
	if len(add) == 0 {
		return nil
	}
	var out struct {
		P sessionAnswer `json:"agentSessionUpdate"`
	}
	vars := map[string]any{"id": m.Session, "input": map[string]any{"addedExternalUrls": add}}
	if err := x.exec(ctx, "AgentSessionUpdate", mutationSessionUpdate, vars, &out, false); err != nil {
		return err
	}
	for _, l := range add {
		m.Links = append(m.Links, l.URL)
	}
	return nil
}
