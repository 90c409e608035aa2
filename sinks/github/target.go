package github

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// Target is one issue or pull request; GitHub numbers both in one sequence
// per repository and comments on both through the issue endpoints.
type Target struct {
	Owner, Repo string
	Number      int
}

// String is the target as ParseTarget reads it: "owner/repo#123".
func (t Target) String() string { return fmt.Sprintf("%s/%s#%d", t.Owner, t.Repo, t.Number) }

var (
	ownerRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`) })
	repoRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`) })
	shortRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^/#\s]+)/([^/#\s]+)#([0-9]+)$`) })
)

// ParseTarget reads "owner/repo#123", or the web address of an issue or pull
// request ("https://github.com/owner/repo/pull/123", ".../issues/123",
// anything after the number ignored, any host so that Enterprise addresses
// work).
func ParseTarget(s string) (Target, error) {
	s = strings.TrimSpace(s)
	bad := func(why string) (Target, error) {
		return Target{}, fmt.Errorf("github: invalid target %q: %s", s, why)
	}
	var owner, repo, num string
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
			return bad("not an http(s) address")
		}
		parts := strings.Split(strings.Trim(u.Path, "/"), "/")
		if len(parts) < 4 || (parts[2] != "pull" && parts[2] != "issues") {
			return bad("want https://HOST/owner/repo/pull/123 or .../issues/123")
		}
		owner, repo, num = parts[0], parts[1], parts[3]
	} else {
		m := shortRe().FindStringSubmatch(s)
		if m == nil {
			return bad("want owner/repo#123")
		}
		owner, repo, num = m[1], m[2], m[3]
	}
	if !ownerRe().MatchString(owner) {
		return bad("owner is not a GitHub account name")
	}
	if !repoRe().MatchString(repo) || repo == "." || repo == ".." {
		return bad("repo is not a GitHub repository name")
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || strings.HasPrefix(num, "+") {
		return bad("the number must be a positive integer")
	}
	return Target{Owner: owner, Repo: repo, Number: n}, nil
}

var pullRefRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^refs/pull/([0-9]+)/(?:merge|head)$`) })

// TargetFromActions finds the target of a GitHub Actions job: the
// repository from GITHUB_REPOSITORY and the number from the event payload
// at GITHUB_EVENT_PATH (pull_request.number, else issue.number: the
// pull_request, pull_request_target, pull_request_review, issues and
// issue_comment events), else from GITHUB_REF "refs/pull/N/merge". It
// returns ok=false with the reason outside Actions or when the event names
// no issue or pull request (a push, a schedule).
func TargetFromActions(env config.GitHubEnv) (Target, string, bool) {
	if !env.Actions {
		return Target{}, "not running in GitHub Actions", false
	}
	full := strings.TrimSpace(env.Repository)
	if full == "" {
		return Target{}, "GITHUB_REPOSITORY not set", false
	}
	owner, repo, ok := strings.Cut(full, "/")
	if !ok || !ownerRe().MatchString(owner) || !repoRe().MatchString(repo) {
		return Target{}, fmt.Sprintf("GITHUB_REPOSITORY %q is not owner/repo", full), false
	}
	event := env.EventName
	if event == "" {
		event = "workflow"
	}
	reason := fmt.Sprintf("the %s event names no issue or pull request", event)

	if path := env.EventPath; path != "" {
		n, why := numberFromEvent(path)
		if n > 0 {
			return Target{Owner: owner, Repo: repo, Number: n}, "", true
		}
		if why != "" {
			reason = why
		}
	}
	if m := pullRefRe().FindStringSubmatch(env.Ref); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			return Target{Owner: owner, Repo: repo, Number: n}, "", true
		}
	}
	return Target{}, reason, false
}

// numberFromEvent reads the issue or pull request number from an Actions
// event payload; why explains a payload that could not be read.
func numberFromEvent(path string) (n int, why string) {
	data, err := projectfs.ReadProjectFile("", path, projectfs.MaxEventSize)
	if err != nil {
		return 0, "cannot read GITHUB_EVENT_PATH: " + err.Error()
	}
	var ev struct {
		PullRequest *struct {
			Number int `json:"number"`
		} `json:"pull_request"`
		Issue *struct {
			Number int `json:"number"`
		} `json:"issue"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return 0, "GITHUB_EVENT_PATH is not an event payload: " + err.Error()
	}
	switch {
	case ev.PullRequest != nil && ev.PullRequest.Number > 0:
		return ev.PullRequest.Number, ""
	case ev.Issue != nil && ev.Issue.Number > 0:
		return ev.Issue.Number, ""
	}
	return 0, ""
}

// ForkFromActions says whether a GitHub Actions job runs for a pull request
// from a fork, whose GITHUB_TOKEN is read-only whatever the workflow's
// permissions say: the event payload's pull_request.head.repo is another
// repository than its base (or than GITHUB_REPOSITORY), or is gone (a
// deleted fork). head.repo.fork alone is read only when the payload names
// no repositories: a repository that is itself a fork has it set on
// pull requests between its own branches, whose token can write. A
// pull_request_target job runs in the base repository with its token's
// full permissions, so it is never a fork's job here.
func ForkFromActions(env config.GitHubEnv) bool {
	if !env.Actions || env.EventName == "pull_request_target" {
		return false
	}
	path := env.EventPath
	if path == "" {
		return false
	}
	data, err := projectfs.ReadProjectFile("", path, projectfs.MaxEventSize)
	if err != nil {
		return false
	}
	type repo struct {
		FullName string `json:"full_name"`
		Fork     bool   `json:"fork"`
	}
	var ev struct {
		PullRequest *struct {
			Head *struct {
				Repo json.RawMessage `json:"repo"`
			} `json:"head"`
			Base *struct {
				Repo *repo `json:"repo"`
			} `json:"base"`
		} `json:"pull_request"`
	}
	if json.Unmarshal(data, &ev) != nil || ev.PullRequest == nil || ev.PullRequest.Head == nil ||
		len(ev.PullRequest.Head.Repo) == 0 {
		return false
	}
	var head *repo
	if json.Unmarshal(ev.PullRequest.Head.Repo, &head) != nil {
		return false
	}
	if head == nil {
		// "repo": null is what GitHub sends once the fork is deleted.
		return true
	}
	base := strings.TrimSpace(env.Repository)
	if b := ev.PullRequest.Base; b != nil && b.Repo != nil && b.Repo.FullName != "" {
		base = b.Repo.FullName
	}
	if head.FullName != "" && base != "" {
		return !strings.EqualFold(head.FullName, base)
	}
	return head.Fork
}
