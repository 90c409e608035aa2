package gitlab

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/httpapi"
)

// maxAnswer bounds how much of one answer is read: a page of 100 notes of
// a megabyte each would not fit; ccc's own notes are far smaller, and a
// page over the bound is an error, never a silent cut.
const maxAnswer = 128 << 20

// rateLimitWait is how long to wait after a 429 that said nothing about
// when to come back: GitLab's limits are per minute, and gitlab.com has
// answered 429 without its RateLimit headers (gitlab-org/gitlab#365728).
const rateLimitWait = time.Minute

// failure is one classified failed request.
type failure = httpapi.Failure

// run is one delivery's or health check's requests.
type run struct {
	*httpapi.Run
	s *Sink
}

func (s *Sink) newRun(ctx context.Context) *run { return &run{Run: s.api.NewRun(ctx), s: s} }

// client is how the sink reaches GitLab (New): the token as PRIVATE-TOKEN.
func (s *Sink) client() *httpapi.Client {
	return &httpapi.Client{
		Sink: "gitlab", Service: "GitLab", HTTP: s.cfg.HTTPClient, Version: s.cfg.Version,
		Authorize: func(req *http.Request) { req.Header.Set("PRIVATE-TOKEN", s.cfg.Token) },
		Classify:  s.classify, MaxAnswer: maxAnswer, Secrets: []string{s.cfg.Token}, BadBase: "invalid GITLAB_URL",
		Tuning: s.cfg.Tuning,
	}
}

// apiError is GitLab's error document: {"message": "404 Not found"}, a
// validation's {"message": {"note": ["is too long ..."]}}, or OAuth's
// {"error": ..., "error_description": ...}.
type apiError struct {
	Message          json.RawMessage `json:"message"`
	Error            string          `json:"error"`
	ErrorDescription string          `json:"error_description"`
}

func (e apiError) text() string {
	var msg string
	if json.Unmarshal(e.Message, &msg) == nil && msg != "" {
		return msg
	}
	var fields map[string][]string
	if json.Unmarshal(e.Message, &fields) == nil {
		var parts []string
		for field, msgs := range fields {
			parts = append(parts, field+" "+strings.Join(msgs, ", "))
		}
		slices.Sort(parts)
		return strings.Join(parts, "; ")
	}
	if e.ErrorDescription != "" {
		return e.ErrorDescription
	}
	return e.Error
}

// endpoint is the API address of path below the instance's /api/v4, each
// element one segment: a project path's slashes are encoded (%2F), as
// GitLab wants a project named by its path.
func (r *run) endpoint(query url.Values, path ...string) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(r.s.base.String(), "/"))
	b.WriteString("/api/v4")
	for _, p := range path {
		b.WriteString("/" + url.PathEscape(p))
	}
	if query != nil {
		b.WriteString("?" + query.Encode())
	}
	return b.String()
}

// classify reads a failed answer as GitLab documents it: 429 with
// Retry-After and RateLimit-Reset (epoch seconds), or neither; 401 bad
// token; 403 no permission; 404 no such project, issue or note (or no
// permission to see it); 400 and 422 refused; 5xx transient.
func (s *Sink) classify(status int, h http.Header, raw []byte) *failure {
	f := &failure{}
	var ae apiError
	if json.Unmarshal(raw, &ae) == nil {
		f.Message = sinks.Short(ae.text())
	}
	now := s.cfg.Now()
	switch {
	case status == http.StatusTooManyRequests:
		f.Wait = max(sinks.RetryAfterHeader(h, now), resetWait(h, now))
		if f.Wait == 0 {
			f.Wait = rateLimitWait
		}
		f.Cause = "rate limited, retry after " + sinks.HumanDuration(f.Wait, time.Second)
		return f
	case status == http.StatusUnauthorized:
		f.Cause, f.Fatal = "authentication failed: check GITLAB_TOKEN", true
		return f
	case status == http.StatusForbidden:
		f.Cause, f.Fatal = "permission denied", true
	case status == http.StatusNotFound:
		f.Cause, f.NotFound, f.Fatal = "not found", true, true
		return f
	case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity || status == http.StatusRequestEntityTooLarge:
		f.Cause, f.Fatal = "rejected by GitLab", true
	case status >= 500:
		f.Wait = sinks.RetryAfterHeader(h, now)
		f.Cause, f.Ambiguous = fmt.Sprintf("HTTP %d", status), true
		return f
	default:
		f.Cause, f.Fatal = fmt.Sprintf("HTTP %d", status), true
	}
	if f.Message != "" {
		f.Cause += ": " + f.Message
	}
	return f
}

// resetWait is the time left until RateLimit-Reset (epoch seconds); 0
// when absent.
func resetWait(h http.Header, now time.Time) time.Duration {
	t := sinks.ResetHeader(h, "RateLimit-Reset", time.Second)
	if t.IsZero() {
		return 0
	}
	return max(t.Sub(now), 0)
}

// rateLimit is the budget an answer reported (RateLimit-Limit,
// -Remaining, -Reset); Known false without them.
func rateLimit(h http.Header) sinks.RateLimit {
	return sinks.RateLimitHeaders(h, "RateLimit-", time.Second)
}
