package linear

import (
	"context"
	"fmt"

	"github.com/ccc-checkpoint/ccc/sinks"
)

var _ sinks.HealthChecker = (*Sink)(nil)

// Health is Check in the terms `ccc doctor` prints for every sink.
func (s *Sink) Health(ctx context.Context, issue string) (sinks.Health, error) {
	h, err := s.Check(ctx, issue)
	out := sinks.Health{Credential: h.Credential, Requests: h.Requests}
	if h.UserID != "" {
		out.Account = h.UserName
		if h.UserEmail != "" {
			out.Account += " <" + h.UserEmail + ">"
		}
		if h.Organization != "" {
			out.Account += " in " + h.Organization
		}
	}
	if h.IssueIdentifier != "" {
		out.Target = fmt.Sprintf("%s %q", h.IssueIdentifier, h.IssueTitle)
		out.TargetURL = h.IssueURL
	}
	out.RateLimit = h.RateLimit
	return out, err
}
