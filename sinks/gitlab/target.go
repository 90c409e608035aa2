package gitlab

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Kind is what a note is written on.
type Kind int

const (
	// Issue is a project issue: group/project#12.
	Issue Kind = iota
	// MergeRequest is a merge request: group/project!34.
	MergeRequest
)

// Target is one issue or merge request of a project, named by the
// project's full path (groups and subgroups included) and its iid.
type Target struct {
	Project string
	Kind    Kind
	IID     int
}

// String is the target as ParseTarget reads it.
func (t Target) String() string {
	sep := "#"
	if t.Kind == MergeRequest {
		sep = "!"
	}
	return t.Project + sep + strconv.Itoa(t.IID)
}

// path is the API path of the target's notes' parent.
func (t Target) path() string {
	if t.Kind == MergeRequest {
		return "merge_requests"
	}
	return "issues"
}

// ParseTarget reads "group/project#12" (an issue), "group/sub/project!34"
// (a merge request), or the web address of either
// ("https://gitlab.com/group/project/-/issues/12", ".../-/merge_requests/34",
// any host, so that self-managed addresses work).
func ParseTarget(s string) (Target, error) {
	s = strings.TrimSpace(s)
	bad := func(why string) (Target, error) {
		return Target{}, fmt.Errorf("gitlab: invalid target %q: %s", s, why)
	}
	var t Target
	var num string
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
			return bad("not an http(s) address")
		}
		project, rest, ok := strings.Cut(strings.Trim(u.Path, "/"), "/-/")
		parts := strings.Split(rest, "/")
		if !ok || len(parts) < 2 || (parts[0] != "issues" && parts[0] != "merge_requests") {
			return bad("want https://HOST/group/project/-/issues/12 or .../-/merge_requests/34")
		}
		t.Project, num = project, parts[1]
		if parts[0] == "merge_requests" {
			t.Kind = MergeRequest
		}
	} else {
		i := strings.LastIndexAny(s, "#!")
		if i <= 0 {
			return bad("want group/project#12 (an issue) or group/project!34 (a merge request)")
		}
		t.Project, num = s[:i], s[i+1:]
		if s[i] == '!' {
			t.Kind = MergeRequest
		}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || strconv.Itoa(n) != num {
		return bad("the number is not a positive integer")
	}
	t.IID = n
	if !validProject(t.Project) {
		return bad("the project is not a GitLab path like group/project")
	}
	return t, nil
}

// validProject says p is a project path: at least a namespace and a name,
// each segment of letters, digits, '_', '-' and '.' that starts and ends
// with a letter or digit, as GitLab allows.
func validProject(p string) bool {
	segs := strings.Split(p, "/")
	if len(segs) < 2 {
		return false
	}
	for _, seg := range segs {
		if seg == "" || len(seg) > 255 {
			return false
		}
		for i, r := range seg {
			alnum := r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
			if !alnum && ((i == 0 || i == len(seg)-1) || !strings.ContainsRune("_-.", r)) {
				return false
			}
		}
	}
	return true
}
