package github

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
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// maxAnswer bounds how much of one answer is read: a page of 100 comments
// of 65,536 characters each, with room for the JSON around them.
const maxAnswer = 64 << 20

// secondaryWait is how long GitHub asks a client to wait after a secondary
// rate limit that came without a Retry-After header.
const secondaryWait = time.Minute

// msgIntegration is GitHub's message when an installation token (an
// Actions GITHUB_TOKEN) lacks a permission: for GET /user always, for a
// write when the token is read-only (a pull request from a fork).
const msgIntegration = "resource not accessible by integration"

// failure is one classified failed request.
type failure struct {
	op    string
	cause string
	// permanent failures are not retried.
	permanent bool
	// notFound: GitHub answered 404.
	notFound bool
	// integration: 403 "Resource not accessible by integration".
	integration bool
	// ambiguous: the request may have been carried out.
	ambiguous bool
	// skip, when set, turns the failure into a sinks.SkipError.
	skip string
	// message is GitHub's own message, cut to a report line.
	message string
	// wait is the server's hint of when to try again.
	wait time.Duration
	err  error
}

// apiError is GitHub's error document.
type apiError struct {
	Message string `json:"message"`
	Errors  []struct {
		Resource string `json:"resource"`
		Field    string `json:"field"`
		Code     string `json:"code"`
		Message  string `json:"message"`
	} `json:"errors"`
}

// text is the message with the first field error's detail.
func (e apiError) text() string {
	msg := e.Message
	if len(e.Errors) > 0 {
		fe := e.Errors[0]
		detail := fe.Message
		if detail == "" && fe.Field != "" {
			detail = fe.Field + " " + strings.ReplaceAll(fe.Code, "_", " ")
		}
		if detail != "" {
			msg += ": " + detail
		}
	}
	return msg
}

// run is the state of one delivery or health check: the counted requests
// and the deadline they live in.
type run struct {
	s        *Sink
	requests int
	// header of the last answer; nil when none came.
	header http.Header
	// budget is the time the context allowed at the start, 0 for none.
	budget time.Duration
}

func (s *Sink) newRun(ctx context.Context) *run {
	r := &run{s: s}
	if dl, ok := ctx.Deadline(); ok {
		r.budget = dl.Sub(s.cfg.Now())
	}
	return r
}

// endpoint is the API address of path below the base (which keeps an
// Enterprise prefix such as /api/v3).
func (r *run) endpoint(query url.Values, path ...string) string {
	u := r.s.base.JoinPath(path...)
	if query != nil {
		u.RawQuery = query.Encode()
	}
	return u.String()
}

// call sends one request and decodes a 2xx answer into out (when not
// nil). It returns the answer's headers, also on failure.
func (r *run) call(ctx context.Context, op, method, target string, in, out any) (http.Header, *failure) {
	r.header = nil
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, &failure{op: op, cause: "could not encode the request", permanent: true, err: err}
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, &failure{op: op, cause: "invalid GitHub API address", permanent: true, err: err}
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", APIVersion)
	req.Header.Set("User-Agent", "ccc/"+r.s.cfg.Version)
	req.Header.Set("Authorization", "Bearer "+r.s.cfg.Token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	r.requests++
	resp, err := r.s.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, r.transport(ctx, op, err)
	}
	defer resp.Body.Close()
	r.header = resp.Header
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		f := r.transport(ctx, op, err)
		f.ambiguous = true
		return resp.Header, f
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if out == nil {
			return resp.Header, nil
		}
		if err := json.Unmarshal(raw, out); err != nil {
			// Something in front of GitHub answered; the request may have
			// run.
			return resp.Header, &failure{op: op, cause: "unexpected answer from GitHub", ambiguous: true, err: err}
		}
		return resp.Header, nil
	}
	return resp.Header, r.classify(op, resp.StatusCode, resp.Header, raw)
}

// transport classifies an error that left no answer.
func (r *run) transport(ctx context.Context, op string, err error) *failure {
	if ctx.Err() != nil {
		return r.ctxFailure(ctx, op)
	}
	f := &failure{op: op, cause: "network error: " + sinks.NetCause(err), err: err}
	// A request whose connection was never made cannot have run.
	var oerr *net.OpError
	f.ambiguous = !(errors.As(err, &oerr) && oerr.Op == "dial")
	return f
}

func (r *run) classify(op string, status int, h http.Header, raw []byte) *failure {
	f := &failure{op: op}
	var ae apiError
	if json.Unmarshal(raw, &ae) == nil {
		f.message = sinks.Short(ae.text())
	}
	lower := strings.ToLower(ae.Message)
	now := r.s.cfg.Now()
	switch {
	case (status == http.StatusForbidden || status == http.StatusTooManyRequests) && h.Get("X-Ratelimit-Remaining") == "0":
		f.wait = max(sinks.RetryAfterHeader(h, now), untilReset(h, now))
	case (status == http.StatusForbidden && (strings.Contains(lower, "secondary rate limit") || strings.Contains(lower, "abuse"))) ||
		status == http.StatusTooManyRequests:
		f.wait = sinks.RetryAfterHeader(h, now)
		if f.wait == 0 {
			f.wait = secondaryWait
		}
	case status == http.StatusUnauthorized:
		f.cause, f.permanent = "authentication failed: check "+r.s.cfg.TokenEnv, true
		return f
	case status == http.StatusForbidden:
		f.cause, f.permanent = "permission denied", true
		f.integration = strings.Contains(lower, msgIntegration)
		if f.message != "" {
			f.cause += ": " + f.message
		}
		return f
	case status == http.StatusNotFound:
		f.cause, f.notFound, f.permanent = "not found", true, true
		return f
	case status == http.StatusUnprocessableEntity:
		f.cause, f.permanent = "rejected by GitHub", true
		if f.message != "" {
			f.cause += ": " + f.message
		}
		return f
	case status >= 500:
		// GitHub (or a proxy in front of an Enterprise server) may say
		// when to come back; Retry still keeps the wait in the deadline.
		f.wait = sinks.RetryAfterHeader(h, now)
		f.cause, f.ambiguous = fmt.Sprintf("HTTP %d", status), true
		return f
	default:
		f.cause, f.permanent = fmt.Sprintf("HTTP %d", status), true
		if f.message != "" {
			f.cause += ": " + f.message
		}
		return f
	}
	f.cause = "rate limited"
	if f.wait > 0 {
		f.cause += ", retry after " + sinks.HumanDuration(f.wait, time.Second)
	}
	return f
}

// untilReset is the time left until x-ratelimit-reset (epoch seconds).
func untilReset(h http.Header, now time.Time) time.Duration {
	return max(sinks.ResetHeader(h, "X-Ratelimit-Reset", time.Second).Sub(now), 0)
}

// ctxFailure is the failure of a context that ended.
func (r *run) ctxFailure(ctx context.Context, op string) *failure {
	return &failure{op: op, permanent: true, err: ctx.Err(), cause: sinks.ContextCause(ctx, r.budget)}
}

// retry runs attempt with the sink's retry policy (see sinks.Retry).
func (r *run) retry(ctx context.Context, attempt func() *failure) *failure {
	return sinks.Retry(ctx, r.s.cfg.Policy(), attempt, func(last *failure) *failure { return r.ctxFailure(ctx, last.op) })
}

func (f *failure) Permanent() bool           { return f.permanent }
func (f *failure) RetryAfter() time.Duration { return f.wait }

// error turns a failure into the sink's error, keeping the token out of its
// text.
func (r *run) error(f *failure) error {
	e := sinks.NewError("github", f.op, f.cause, f.permanent, f.err, r.s.cfg.Token)
	e.RetryAfter = f.wait
	return e
}

// nextLink is the rel="next" address of a Link header, "" when there is
// none.
func nextLink(h http.Header) string {
	for _, v := range h.Values("Link") {
		for part := range strings.SplitSeq(v, ",") {
			target, params, ok := strings.Cut(part, ";")
			if !ok {
				continue
			}
			target = strings.TrimSpace(target)
			if !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
				continue
			}
			for p := range strings.SplitSeq(params, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.TrimSpace(k) != "rel" {
					continue
				}
				for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(val), `"`)) {
					if rel == "next" {
						return target[1 : len(target)-1]
					}
				}
			}
		}
	}
	return ""
}

// sameOrigin says whether next may be sent the token: only to the scheme,
// host and port the token was meant for, as for redirects.
func (r *run) sameOrigin(next string) bool {
	u, err := url.Parse(next)
	return err == nil && sinks.SameOrigin(r.s.base, u)
}
