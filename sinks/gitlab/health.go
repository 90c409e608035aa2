package gitlab

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/ccc-checkpoint/ccc/sinks"
)

var _ sinks.HealthChecker = (*Sink)(nil)

// Health asks GitLab who the token belongs to (GET /user) and, when target
// is not empty, whether that issue or merge request exists; it reports the
// rate-limit headroom the answers carried. It writes nothing.
func (s *Sink) Health(ctx context.Context, target string) (sinks.Health, error) {
	if s.cfg.Token == "" {
		return sinks.Health{}, sinks.Skip("%s", s.noToken())
	}
	h := sinks.Health{Credential: "GITLAB_TOKEN"}
	if s.baseErr != nil {
		return h, &sinks.Error{Cause: "invalid GITLAB_URL", Permanent: true, Err: s.baseErr}
	}
	var t Target
	if target != "" {
		var err error
		if t, err = ParseTarget(target); err != nil {
			return h, &sinks.Error{Cause: "invalid target " + strconv.Quote(target), Permanent: true, Err: err}
		}
	}
	r := s.newRun(ctx)
	var me struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
	}
	f := r.Retry(ctx, func() *failure { return r.Call(ctx, "get user", http.MethodGet, r.endpoint(nil, "user"), nil, &me) })
	h.RateLimit = rateLimit(r.Header)
	if f != nil {
		h.Requests = r.Requests
		return h, r.Error(f)
	}
	s.setUser(me.ID)
	h.Account = me.Username
	if target == "" {
		h.Requests = r.Requests
		return h, nil
	}
	var it struct {
		Title  string `json:"title"`
		WebURL string `json:"web_url"`
	}
	f = r.Retry(ctx, func() *failure {
		return r.Call(ctx, "get "+t.path(), http.MethodGet, r.endpoint(nil, "projects", t.Project, t.path(), strconv.Itoa(t.IID)), nil, &it)
	})
	if rl := rateLimit(r.Header); rl.Known {
		h.RateLimit = rl
	}
	h.Requests = r.Requests
	if f != nil {
		if f.NotFound {
			f.Cause, f.NotFound = t.String()+" not found", false
		}
		return h, r.Error(f)
	}
	h.Target = fmt.Sprintf("%s %q", t, it.Title)
	h.TargetURL = it.WebURL
	return h, nil
}
