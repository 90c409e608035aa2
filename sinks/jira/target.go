package jira

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/ccc-checkpoint/ccc/progress"
)

// ParseKey reads a Jira issue key ("PROJ-123", any case: "proj-123" is
// PROJ-123) or a browse address of one
// ("https://acme.atlassian.net/browse/PROJ-123").
func ParseKey(s string) (string, error) {
	s = strings.TrimSpace(s)
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" {
		rest, ok := strings.CutPrefix(u.Path, "/browse/")
		if !ok {
			return "", fmt.Errorf("%q is not a Jira issue address (want https://<site>/browse/KEY-123)", s)
		}
		s = strings.Trim(rest, "/")
	}
	k, ok := progress.NormalIssue(s)
	if !ok {
		return "", fmt.Errorf("%q is not a Jira issue key like PROJ-123", s)
	}
	return k, nil
}

// keyOfURL is the issue key of a comment address the sink stored
// (".../browse/KEY-1?focusedCommentId=..."), "" when it names none.
func keyOfURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	rest, ok := strings.CutPrefix(u.Path, "/browse/")
	if !ok {
		return ""
	}
	k, ok := progress.NormalIssue(strings.Trim(rest, "/"))
	if !ok {
		return ""
	}
	return k
}
