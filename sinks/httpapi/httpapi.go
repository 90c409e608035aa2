// Package httpapi is what the REST trackers' sinks (Jira, GitLab) share to
// talk to their service: one JSON request with the sink's credentials and
// a bounded answer, its failure classified by the sink's own rules, the
// sink's retry policy inside the caller's deadline, and errors that never
// carry a credential. Each sink keeps what is its service's own: the
// addresses, the authentication header, how an error answer reads.
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// Failure is one classified failed request.
type Failure struct {
	Op    string
	Cause string
	// Fatal failures are not retried (sinks.Error's Permanent).
	Fatal bool
	// NotFound: the service answered 404.
	NotFound bool
	// Ambiguous: the request may have been carried out.
	Ambiguous bool
	// Message is the service's own message, cut to a report line.
	Message string
	// Wait is the service's hint of when to try again.
	Wait time.Duration
	Err  error
}

// Permanent implements sinks.Retriable.
func (f *Failure) Permanent() bool { return f.Fatal }

// RetryAfter implements sinks.Retriable.
func (f *Failure) RetryAfter() time.Duration { return f.Wait }

// Client is how a sink reaches its service.
type Client struct {
	// Sink is the sink's name ("jira"), Service how causes name the
	// service ("Jira").
	Sink, Service string
	HTTP          *http.Client
	// Version is ccc's, sent as User-Agent: ccc/<version>.
	Version string
	// Authorize sets the credentials on a request.
	Authorize func(*http.Request)
	// Classify reads a failed answer (status not 2xx) into a Failure;
	// Call sets its Op.
	Classify func(status int, h http.Header, raw []byte) *Failure
	// MaxAnswer bounds how much of one answer is read.
	MaxAnswer int64
	// Secrets are kept out of every error's text.
	Secrets []string
	// BadBase is the cause of a request address that cannot be built
	// ("invalid JIRA_BASE_URL").
	BadBase string
	sinks.Tuning
}

// Run is one delivery's or health check's requests: counted, with the
// headers of the last answer and the deadline they live in.
type Run struct {
	c        *Client
	Requests int
	// Header is the last answer's; nil when none came.
	Header http.Header
	budget time.Duration
}

// NewRun starts a run under ctx's deadline.
func (c *Client) NewRun(ctx context.Context) *Run {
	r := &Run{c: c}
	if dl, ok := ctx.Deadline(); ok {
		r.budget = dl.Sub(c.Now())
	}
	return r
}

// Call sends one request, in (when not nil) as JSON, and decodes a 2xx
// answer into out (when not nil).
func (r *Run) Call(ctx context.Context, op, method, target string, in, out any) *Failure {
	r.Header = nil
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return &Failure{Op: op, Cause: "could not encode the request", Fatal: true, Err: err}
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return &Failure{Op: op, Cause: r.c.BadBase, Fatal: true, Err: err}
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "ccc/"+r.c.Version)
	r.c.Authorize(req)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	r.Requests++
	resp, err := r.c.HTTP.Do(req)
	if err != nil {
		return r.transport(ctx, op, err)
	}
	defer resp.Body.Close()
	r.Header = resp.Header
	raw, err := io.ReadAll(io.LimitReader(resp.Body, r.c.MaxAnswer))
	if err != nil {
		f := r.transport(ctx, op, err)
		f.Ambiguous = true
		return f
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if out == nil || resp.StatusCode == http.StatusNoContent {
			return nil
		}
		if err := json.Unmarshal(raw, out); err != nil {
			return &Failure{Op: op, Cause: "unexpected answer from " + r.c.Service, Ambiguous: true, Err: err}
		}
		return nil
	}
	f := r.c.Classify(resp.StatusCode, resp.Header, raw)
	f.Op = op
	return f
}

// transport classifies an error that left no answer: a connection never
// made cannot have run the request.
func (r *Run) transport(ctx context.Context, op string, err error) *Failure {
	if ctx.Err() != nil {
		return r.CtxFailure(ctx, op)
	}
	f := &Failure{Op: op, Cause: "network error: " + sinks.NetCause(err), Err: err}
	var oerr *net.OpError
	f.Ambiguous = !(errors.As(err, &oerr) && oerr.Op == "dial")
	return f
}

// CtxFailure is the failure of a context that ended.
func (r *Run) CtxFailure(ctx context.Context, op string) *Failure {
	return &Failure{Op: op, Fatal: true, Err: ctx.Err(), Cause: sinks.ContextCause(ctx, r.budget)}
}

// Retry runs attempt with the sink's retry policy (sinks.Retry).
func (r *Run) Retry(ctx context.Context, attempt func() *Failure) *Failure {
	return sinks.Retry(ctx, r.c.Policy(), attempt, func(last *Failure) *Failure { return r.CtxFailure(ctx, last.Op) })
}

// Error is the sink's error for f, without the credentials in its text.
func (r *Run) Error(f *Failure) error {
	e := sinks.NewError(r.c.Sink, f.Op, f.Cause, f.Fatal, f.Err, r.c.Secrets...)
	e.RetryAfter = f.Wait
	return e
}

// ParseBase reads a service's address: http(s), a host, no credentials, no
// query; want says what is wanted in the error.
func ParseBase(raw, want string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" {
		return nil, &url.Error{Op: "parse", URL: u.Redacted(), Err: errors.New(want)}
	}
	return u, nil
}
