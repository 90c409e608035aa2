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
	f := r.retry(ctx, func() *failure { return r.call(ctx, "get user", http.MethodGet, r.endpoint(nil, "user"), nil, &me) })
	h.RateLimit = rateLimit(r.header)
	if f != nil {
		h.Requests = r.requests
		return h, r.error(f)
	}
	s.setUser(me.ID)
	h.Account = me.Username
	if target == "" {
		h.Requests = r.requests
		return h, nil
	}
	var it struct {
		Title  string `json:"title"`
		WebURL string `json:"web_url"`
	}
	f = r.retry(ctx, func() *failure {
		return r.call(ctx, "get "+t.path(), http.MethodGet, r.endpoint(nil, "projects", t.Project, t.path(), strconv.Itoa(t.IID)), nil, &it)
	})
	if rl := rateLimit(r.header); rl.Known {
		h.RateLimit = rl
	}
	h.Requests = r.requests
	if f != nil {
		if f.notFound {
			f.cause, f.notFound = t.String()+" not found", false
		}
		return h, r.error(f)
	}
	h.Target = fmt.Sprintf("%s %q", t, it.Title)
	h.TargetURL = it.WebURL
	return h, nil
}
