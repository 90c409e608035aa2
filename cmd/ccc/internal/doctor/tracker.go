package doctor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ccc-checkpoint/ccc/checkpoint"
	"github.com/ccc-checkpoint/ccc/sinks"
)

// Tracker is doctor's findings about one tracker, each under the tracker's
// name: credentials, target, rate limit.
func Tracker(ctx context.Context, tr checkpoint.Tracker, issue string, timeout time.Duration) []Result {
	var checks []Result
	add := func(name string, status Status, msg, hint string) {
		checks = append(checks, Result{Name: name, Status: status, Message: msg, Hint: hint})
	}
	s := tr.Sink
	if tr.Skip != "" {
		add(s.Name(), Warn, s.Title()+": "+tr.Skip, "")
		return checks
	}
	target := tr.Target
	if target == "" {
		target = issue
	}
	hc, ok := s.(sinks.HealthChecker)
	if !ok {
		add(s.Name(), OK, "configured (no health check)", "")
		return checks
	}
	cctx, cancel := sinks.WithTimeout(ctx, timeout)
	h, err := hc.Health(cctx, target)
	cancel()
	var skip *sinks.SkipError
	var serr *sinks.Error
	switch {
	case errors.As(err, &skip):
		add(s.Name(), Warn, s.Title()+" not configured: "+skip.Reason, "")
		return checks
	case errors.As(err, &serr):
		add(s.Name(), Fail, s.Title()+": "+serr.Cause, hintFor(s, serr))
	case err != nil:
		add(s.Name(), Fail, s.Title()+": "+err.Error(), "")
	}
	if h.Account != "" {
		add(s.Name(), OK, fmt.Sprintf("authenticated as %s (%s)", h.Account, h.Credential), "")
	}
	if h.Target != "" {
		add(s.Name(), OK, h.Target+" found "+h.TargetURL, "")
	}
	if rl := h.RateLimit; rl.Low() {
		hint := "checkpoints now may wait for the reset or be queued for ccc sync"
		if !rl.Reset.IsZero() {
			hint = "requests resume at " + rl.Reset.UTC().Format(time.RFC3339) + "; " + hint
		}
		add(s.Name(), Warn, "rate limit nearly spent: "+rl.String(), hint)
	} else if rl.Known {
		add(s.Name(), OK, "rate limit: "+rl.String(), "")
	}
	return checks
}

func hintFor(s sinks.Sink, e *sinks.Error) string {
	switch {
	case s.Name() == "linear" && e.Permanent:
		return "check the key at Linear → Settings → API, and the issue key"
	case s.Name() == "github" && e.Permanent:
		return "check GITHUB_TOKEN (scopes: issues and pull requests, write) and owner/repo#N"
	case s.Name() == "gitlab" && e.Permanent:
		return "check GITLAB_TOKEN (a personal, project or group access token with the api scope; CI_JOB_TOKEN cannot write notes), GITLAB_URL and group/project#N"
	case s.Name() == "jira" && e.Permanent:
		return "check JIRA_BASE_URL, JIRA_EMAIL and JIRA_API_TOKEN (an API token of id.atlassian.com for that email), and that the account may comment on the issue"
	case e.Permanent:
		return ""
	default:
		return "a transient failure (network, server or rate limit): try again shortly"
	}
}
