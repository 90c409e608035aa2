package jira

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/ccc-checkpoint/ccc/sinks"
)

var _ sinks.HealthChecker = (*Sink)(nil)

// Health asks Jira who the credentials belong to (GET /myself) and, when
// target is not empty, whether that issue exists and is visible; it
// reports the rate-limit headroom the answers carried. It writes nothing.
func (s *Sink) Health(ctx context.Context, target string) (sinks.Health, error) {
	if !s.cfg.credentials() || s.cfg.BaseURL == "" {
		return sinks.Health{}, sinks.Skip(noCredentials)
	}
	h := sinks.Health{Credential: s.cfg.credentialName()}
	if s.baseErr != nil {
		return h, &sinks.Error{Cause: "invalid JIRA_BASE_URL", Permanent: true, Err: s.baseErr}
	}
	key := ""
	if target != "" {
		var err error
		if key, err = ParseKey(target); err != nil {
			return h, &sinks.Error{Cause: "invalid target " + strconv.Quote(target), Permanent: true, Err: err}
		}
	}
	r := s.newRun(ctx)
	var me struct {
		AccountID    string `json:"accountId"`
		DisplayName  string `json:"displayName"`
		EmailAddress string `json:"emailAddress"`
	}
	f := r.Retry(ctx, func() *failure {
		return r.Call(ctx, "get myself", http.MethodGet, r.endpoint(nil, "rest", "api", "3", "myself"), nil, &me)
	})
	h.RateLimit = rateLimit(r.Header)
	if f != nil {
		h.Requests = r.Requests
		return h, r.Error(f)
	}
	s.setAccount(me.AccountID)
	h.Account = me.DisplayName
	if key == "" {
		h.Requests = r.Requests
		return h, nil
	}
	var is struct {
		Key    string `json:"key"`
		Fields struct {
			Summary string `json:"summary"`
		} `json:"fields"`
	}
	f = r.Retry(ctx, func() *failure {
		return r.Call(ctx, "get issue", http.MethodGet, r.endpoint(map[string][]string{"fields": {"summary"}}, "rest", "api", "3", "issue", key), nil, &is)
	})
	if rl := rateLimit(r.Header); rl.Known {
		h.RateLimit = rl
	}
	h.Requests = r.Requests
	if f != nil {
		if f.NotFound {
			f.Cause, f.NotFound = key+" not found (or not visible to "+s.cfg.credentialName()+")", false
		}
		return h, r.Error(f)
	}
	h.Target = fmt.Sprintf("%s %q", is.Key, is.Fields.Summary)
	h.TargetURL = s.base.JoinPath("browse", is.Key).String()
	return h, nil
}
