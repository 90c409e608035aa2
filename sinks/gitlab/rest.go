package gitlab

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
	"slices"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/sinks"
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
type failure struct {
	op    string
	cause string
	// permanent failures are not retried.
	permanent bool
	// notFound: GitLab answered 404.
	notFound bool
	// ambiguous: the request may have been carried out.
	ambiguous bool
	// message is GitLab's own message, cut to a report line.
	message string
	// wait is the server's hint of when to try again.
	wait time.Duration
	err  error
}

func (f *failure) Permanent() bool           { return f.permanent }
func (f *failure) RetryAfter() time.Duration { return f.wait }

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
		return &failure{op: op, cause: "invalid GITLAB_URL", permanent: true, err: err}
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "ccc/"+r.s.cfg.Version)
	req.Header.Set("PRIVATE-TOKEN", r.s.cfg.Token)
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
			return &failure{op: op, cause: "unexpected answer from GitLab", ambiguous: true, err: err}
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

// classify reads a failed answer as GitLab documents it: 429 with
// Retry-After and RateLimit-Reset (epoch seconds), or neither; 401 bad
// token; 403 no permission; 404 no such project, issue or note (or no
// permission to see it); 400 and 422 refused; 5xx transient.
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
		f.cause = "rate limited, retry after " + sinks.HumanDuration(f.wait, time.Second)
		return f
	case status == http.StatusUnauthorized:
		f.cause, f.permanent = "authentication failed: check GITLAB_TOKEN", true
		return f
	case status == http.StatusForbidden:
		f.cause, f.permanent = "permission denied", true
	case status == http.StatusNotFound:
		f.cause, f.notFound, f.permanent = "not found", true, true
		return f
	case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity || status == http.StatusRequestEntityTooLarge:
		f.cause, f.permanent = "rejected by GitLab", true
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

func (r *run) ctxFailure(ctx context.Context, op string) *failure {
	return &failure{op: op, permanent: true, err: ctx.Err(), cause: sinks.ContextCause(ctx, r.budget)}
}

func (r *run) retry(ctx context.Context, attempt func() *failure) *failure {
	return sinks.Retry(ctx, r.s.cfg.Policy(), attempt, func(last *failure) *failure { return r.ctxFailure(ctx, last.op) })
}

// error turns a failure into the sink's error, keeping the credentials out
// of its text.
func (r *run) error(f *failure) error {
	e := sinks.NewError("gitlab", f.op, f.cause, f.permanent, f.err, r.s.cfg.Token)
	e.RetryAfter = f.wait
	return e
}
