package github

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/ccc-checkpoint/ccc/sinks"
)

var _ sinks.HealthChecker = (*Sink)(nil)

// Health asks GitHub who the token belongs to (the bot login for an
// installation token, which may not read GET /user) and, when target is
// not empty, whether that issue or pull request exists; it reports the
// rate-limit headroom from the answers' headers. It writes nothing. Errors
// are *sinks.Error values like Upsert's ("authentication failed: check
// GITHUB_TOKEN", "owner/repo#12 not found"), returned with whatever was
// learnt before them; without a token it returns a sinks.SkipError.
func (s *Sink) Health(ctx context.Context, target string) (sinks.Health, error) {
	if s.cfg.Token == "" {
		return sinks.Health{}, sinks.Skip(noToken)
	}
	h := sinks.Health{Credential: s.cfg.TokenEnv}
	if s.baseErr != nil {
		return h, &sinks.Error{Cause: "invalid GITHUB_API_URL", Permanent: true, Err: s.baseErr}
	}
	var t Target
	if target != "" {
		var err error
		if t, err = ParseTarget(target); err != nil {
			return h, &sinks.Error{Cause: "invalid target " + strconv.Quote(target), Permanent: true, Err: err}
		}
	}
	r := s.newRun(ctx)
	login, installation, f := r.user(ctx, true)
	h.RateLimit = rateLimit(r.header)
	if f != nil {
		h.Requests = r.requests
		return h, r.error(f)
	}
	if installation && login == "" {
		login = s.cfg.BotLogin
		if login == "" {
			login = DefaultBotLogin
		}
	}
	h.Account = login
	if installation {
		h.Account += " (installation token)"
	}
	if target == "" {
		h.Requests = r.requests
		return h, nil
	}

	var is struct {
		Title   string `json:"title"`
		HTMLURL string `json:"html_url"`
	}
	f = r.retry(ctx, func() *failure {
		_, f := r.call(ctx, "get issue", http.MethodGet,
			r.endpoint(nil, "repos", t.Owner, t.Repo, "issues", strconv.Itoa(t.Number)), nil, &is)
		return f
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
	h.Target = fmt.Sprintf("%s %q", t, is.Title)
	h.TargetURL = is.HTMLURL
	return h, nil
}

// rateLimit is the primary rate-limit budget an answer reported (Known
// false when it carried no such headers).
func rateLimit(h http.Header) sinks.RateLimit {
	return sinks.RateLimitHeaders(h, "X-Ratelimit-", time.Second)
}
