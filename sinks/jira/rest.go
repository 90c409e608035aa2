package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/httpapi"
)

// maxAnswer bounds how much of one answer is read: a page of 100 comments
// of Jira's largest body, in ADF, with room for the JSON around them.
const maxAnswer = 64 << 20

// rateLimitWait is how long to wait after a 429 that said nothing about
// when to come back.
const rateLimitWait = 30 * time.Second

// failure is one classified failed request.
type failure = httpapi.Failure

// run is one delivery's or health check's requests.
type run struct {
	*httpapi.Run
	s *Sink
}

func (s *Sink) newRun(ctx context.Context) *run { return &run{Run: s.api.NewRun(ctx), s: s} }

// client is how the sink reaches Jira (New).
func (s *Sink) client() *httpapi.Client {
	return &httpapi.Client{
		Sink: "jira", Service: "Jira", HTTP: s.cfg.HTTPClient, Version: s.cfg.Version,
		Authorize: s.cfg.authorize, Classify: s.classify, MaxAnswer: maxAnswer,
		Secrets: []string{s.cfg.APIToken, s.cfg.BearerToken}, BadBase: "invalid JIRA_BASE_URL", Tuning: s.cfg.Tuning,
	}
}

// apiError is Jira's error document: {"errorMessages": [...], "errors":
// {"field": "message"}}.
type apiError struct {
	ErrorMessages []string          `json:"errorMessages"`
	Errors        map[string]string `json:"errors"`
}

func (e apiError) text() string {
	msgs := append([]string(nil), e.ErrorMessages...)
	for field, msg := range e.Errors {
		msgs = append(msgs, field+": "+msg)
	}
	return strings.Join(msgs, "; ")
}

// endpoint is the address of path below the site's base.
func (r *run) endpoint(query url.Values, path ...string) string {
	u := r.s.base.JoinPath(path...)
	if query != nil {
		u.RawQuery = query.Encode()
	}
	return u.String()
}

// classify reads a failed answer as Atlassian documents it: 429 with
// Retry-After (seconds) and X-RateLimit-Reset (an ISO 8601 time), the
// limit named by RateLimit-Reason; 401 bad credentials; 403 no permission;
// 404 no such issue or comment (or no permission to see it); 5xx
// transient, sometimes with a Retry-After.
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
		f.Cause = "rate limited"
		if reason := h.Get("RateLimit-Reason"); reason != "" {
			f.Cause += " (" + sinks.Short(reason) + ")"
		}
		f.Cause += ", retry after " + sinks.HumanDuration(f.Wait, time.Second)
		return f
	case status == http.StatusUnauthorized:
		f.Cause, f.Fatal = "authentication failed: check "+s.cfg.credentialName(), true
		return f
	case status == http.StatusForbidden:
		f.Cause, f.Fatal = "permission denied", true
	case status == http.StatusNotFound:
		f.Cause, f.NotFound, f.Fatal = "not found", true, true
		return f
	case status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge:
		f.Cause, f.Fatal = "rejected by Jira", true
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

// resetWait is the time left until X-RateLimit-Reset, which Atlassian
// sends as an ISO 8601 time ("2026-11-28T10:15Z"); 0 when absent.
func resetWait(h http.Header, now time.Time) time.Duration {
	t := resetTime(h)
	if t.IsZero() {
		return 0
	}
	return max(t.Sub(now), 0)
}

func resetTime(h http.Header) time.Time {
	v := strings.TrimSpace(h.Get("X-RateLimit-Reset"))
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04Z07:00", "2006-01-02T15:04Z"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t
		}
	}
	return time.Time{}
}

// rateLimit is the budget an answer reported (X-RateLimit-Limit and
// -Remaining, reset as an ISO time); Known false without them.
func rateLimit(h http.Header) sinks.RateLimit {
	limit, err1 := strconv.Atoi(h.Get("X-RateLimit-Limit"))
	remaining, err2 := strconv.Atoi(h.Get("X-RateLimit-Remaining"))
	if err1 != nil || err2 != nil {
		return sinks.RateLimit{}
	}
	return sinks.RateLimit{Known: true, Limit: limit, Remaining: remaining, Reset: resetTime(h)}
}
