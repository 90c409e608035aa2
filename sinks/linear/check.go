package linear

import (
	"context"
	"net/http"
	"time"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// Health is what `ccc doctor` reports about Linear.
type Health struct {
	// Credential names the variable the sink authenticates with.
	Credential string
	// The authenticated user and workspace.
	UserID, UserName, UserEmail string
	Organization                string
	// The issue, when one was asked about and found.
	IssueID, IssueIdentifier, IssueTitle, IssueURL string
	RateLimit                                      RateLimit
	Requests                                       int
}

// RateLimit is the request budget Linear reported with its last answer.
// Known is false when the answer carried no rate-limit headers.
type RateLimit = sinks.RateLimit

func rateLimitFrom(h http.Header) RateLimit {
	return sinks.RateLimitHeaders(h, "X-RateLimit-Requests-", time.Millisecond)
}

// Check asks Linear who the credentials belong to and, when issue is not
// empty, whether the issue exists; it reports the rate-limit headroom from
// the answers' headers. It changes nothing. Errors are *sinks.Error values
// like Upsert's ("authentication failed: check LINEAR_API_KEY",
// "issue CIA-9 not found"), returned with whatever was learnt before them;
// without credentials it returns a sinks.SkipError.
func (s *Sink) Check(ctx context.Context, issue string) (Health, error) {
	var h Health
	if err := s.loadStored(ctx); err != nil {
		return h, err
	}
	if _, h.Credential = s.credential(); h.Credential == "" {
		return h, sinks.Skip("LINEAR_API_KEY not set")
	}
	r := s.newRun(ctx)

	var who struct {
		Viewer struct {
			ID    string `json:"id"`
			Name  string `json:"name"`
			Email string `json:"email"`
		} `json:"viewer"`
		Organization struct {
			Name string `json:"name"`
		} `json:"organization"`
	}
	f := r.retry(ctx, func() *failure { return r.call(ctx, "Viewer", queryViewer, nil, &who) })
	h.RateLimit = rateLimitFrom(r.header)
	if f != nil {
		h.Requests = r.requests
		return h, r.error(f)
	}
	h.UserID, h.UserName, h.UserEmail = who.Viewer.ID, who.Viewer.Name, who.Viewer.Email
	h.Organization = who.Organization.Name

	if issue != "" {
		var is struct {
			Issue struct {
				ID         string `json:"id"`
				Identifier string `json:"identifier"`
				Title      string `json:"title"`
				URL        string `json:"url"`
			} `json:"issue"`
		}
		f := r.retry(ctx, func() *failure {
			return r.call(ctx, "Issue", queryIssue, map[string]any{"issue": issue}, &is)
		})
		if rl := rateLimitFrom(r.header); rl.Known {
			h.RateLimit = rl
		}
		if f != nil {
			if f.notFound {
				f.cause, f.notFound = "issue "+issue+" not found", false
			}
			h.Requests = r.requests
			return h, r.error(f)
		}
		h.IssueID, h.IssueIdentifier, h.IssueTitle, h.IssueURL = is.Issue.ID, is.Issue.Identifier, is.Issue.Title, is.Issue.URL
	}
	h.Requests = r.requests
	return h, nil
}
