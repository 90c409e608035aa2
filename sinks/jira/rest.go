package jira

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// maxAnswer bounds how much of one answer is read: a page of 100 comments
// of Jira's largest body, in ADF, with room for the JSON around them.
const maxAnswer = 64 << 20

// rateLimitWait is how long to wait after a 429 that said nothing about
// when to come back.
const rateLimitWait = 30 * time.Second

// failure is one classified failed request.
type failure struct {
	op    string
	cause string
	// permanent failures are not retried.
	permanent bool
	// notFound: Jira answered 404.
	notFound bool
	// ambiguous: the request may have been carried out.
	ambiguous bool
	// message is Jira's own message, cut to a report line.
	message string
	// wait is the server's hint of when to try again.
	wait time.Duration
	err  error
}

func (f *failure) Permanent() bool           { return f.permanent }
func (f *failure) RetryAfter() time.Duration { return f.wait }

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

// run is the state of one delivery or health check.
type run struct {
	s        *Sink
	requests int
	header   http.Header
	budget   time.Duration
}

func (s *Sink) newRun(ctx context.Context) *run {
	r := &run{s: s}
	if dl, ok := ctx.Deadline(); ok {
		r.budget = dl.Sub(s.cfg.Now())
	}
	return r
}

// endpoint is the address of path below the site's base.
func (r *run) endpoint(query url.Values, path ...string) string {
	u := r.s.base.JoinPath(path...)
	if query != nil {
		u.RawQuery = query.Encode()
	}
	return u.String()
}

// call sends one request and decodes a 2xx answer into out (when not nil).
func (r *run) call(ctx context.Context, op, method, target string, in, out any) *failure {
	r.header = nil
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return &failure{op: op, cause: "could not encode the request", permanent: true, err: err}
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return &failure{op: op, cause: "invalid JIRA_BASE_URL", permanent: true, err: err}
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "ccc/"+r.s.cfg.Version)
	r.s.cfg.authorize(req)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	r.requests++
	resp, err := r.s.cfg.HTTPClient.Do(req)
	if err != nil {
		return r.transport(ctx, op, err)
	}
	defer resp.Body.Close()
	r.header = resp.Header
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		f := r.transport(ctx, op, err)
		f.ambiguous = true
		return f
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if out == nil || resp.StatusCode == http.StatusNoContent {
			return nil
		}
		if err := json.Unmarshal(raw, out); err != nil {
			return &failure{op: op, cause: "unexpected answer from Jira", ambiguous: true, err: err}
		}
		return nil
	}
	return r.classify(op, resp.StatusCode, resp.Header, raw)
}

func (r *run) transport(ctx context.Context, op string, err error) *failure {
	if ctx.Err() != nil {
		return r.ctxFailure(ctx, op)
	}
	f := &failure{op: op, cause: "network error: " + sinks.NetCause(err), err: err}
	var oerr *net.OpError
	f.ambiguous = !(errors.As(err, &oerr) && oerr.Op == "dial")
	return f
}

// classify reads a failed answer as Atlassian documents it: 429 with
// Retry-After (seconds) and X-RateLimit-Reset (an ISO 8601 time), the
// limit named by RateLimit-Reason; 401 bad credentials; 403 no permission;
// 404 no such issue or comment (or no permission to see it); 5xx
// transient, sometimes with a Retry-After.
func (r *run) classify(op string, status int, h http.Header, raw []byte) *failure {
	f := &failure{op: op}
	var ae apiError
	if json.Unmarshal(raw, &ae) == nil {
		f.message = sinks.Short(ae.text())
	}
	now := r.s.cfg.Now()
	switch {
	case status == http.StatusTooManyRequests:
		f.wait = max(sinks.RetryAfterHeader(h, now), resetWait(h, now))
		if f.wait == 0 {
			f.wait = rateLimitWait
		}
		f.cause = "rate limited"
		if reason := h.Get("RateLimit-Reason"); reason != "" {
			f.cause += " (" + sinks.Short(reason) + ")"
		}
		f.cause += ", retry after " + sinks.HumanDuration(f.wait, time.Second)
		return f
	case status == http.StatusUnauthorized:
		f.cause, f.permanent = "authentication failed: check "+r.s.cfg.credentialName(), true
		return f
	case status == http.StatusForbidden:
		f.cause, f.permanent = "permission denied", true
	case status == http.StatusNotFound:
		f.cause, f.notFound, f.permanent = "not found", true, true
		return f
	case status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge:
		f.cause, f.permanent = "rejected by Jira", true
	case status >= 500:
		f.wait = sinks.RetryAfterHeader(h, now)
		f.cause, f.ambiguous = fmt.Sprintf("HTTP %d", status), true
		return f
	default:
		f.cause, f.permanent = fmt.Sprintf("HTTP %d", status), true
	}
	if f.message != "" {
		f.cause += ": " + f.message
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

func (r *run) ctxFailure(ctx context.Context, op string) *failure {
	return &failure{op: op, permanent: true, err: ctx.Err(), cause: sinks.ContextCause(ctx, r.budget)}
}

func (r *run) retry(ctx context.Context, attempt func() *failure) *failure {
	return sinks.Retry(ctx, r.s.cfg.Policy(), attempt, func(last *failure) *failure { return r.ctxFailure(ctx, last.op) })
}

// error turns a failure into the sink's error, keeping the credentials out
// of its text.
func (r *run) error(f *failure) error {
	e := sinks.NewError("jira", f.op, f.cause, f.permanent, f.err, r.s.cfg.APIToken, r.s.cfg.BearerToken)
	e.RetryAfter = f.wait
	return e
}
