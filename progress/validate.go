package progress

import (
	"errors"
	"fmt"
	"sort"
)

// Problem is one finding of Validate.
type Problem struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Message) }

// Validate checks a progress file against the layout it uses: the canonical layout needs every section
// of the protocol and the Issue header field; the legacy layout needs Completed Tasks, Current Task and
// an issue. It also reports an issue that is not a key like CIA-123, repeated sections, lists and items
// ccc does not read, and input that is not text. Problems are sorted by line; missing parts are
// reported at the title's line. What makes the file too broken for a checkpoint to touch (Check) comes
// first: every merge conflict marker line, or the absence of any section ccc knows.
func Validate(path string, src []byte) []Problem {
	first := Conflicts(path, src)
	if len(first) == 0 {
		var be *BrokenError
		if errors.As(Check(path, src), &be) {
			first = []Problem{{Path: path, Line: be.Line, Message: be.Problem}}
		}
	}
	rest := validate(path, src)
	if len(first) == 1 && len(rest) == 1 && first[0] == rest[0] {
		return first // a file too deep to parse: Check and Parse say the same
	}
	return append(first, rest...)
}

func validate(path string, src []byte) []Problem {
	d, err := Parse(src)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			return []Problem{{Path: path, Line: pe.Line, Message: pe.Msg}}
		}
		return []Problem{{Path: path, Line: 1, Message: err.Error()}}
	}
	s := d.src
	var ps []Problem
	add := func(line int, format string, args ...any) {
		ps = append(ps, Problem{Path: path, Line: line, Message: fmt.Sprintf(format, args...)})
	}
	top := 1
	if s.pre.h1 >= 0 {
		top = s.pre.h1Line
	}

	required := []kind{kindCompleted, kindCurrent, kindRemaining, kindDecisions, kindBlockers, kindPrompt}
	if d.Layout() == Legacy {
		required = []kind{kindCompleted, kindCurrent}
	}
	for _, k := range required {
		if !s.present[k] {
			add(top, "missing section %q", "## "+titles[k])
		}
	}

	// The issue may come from the legacy section in either layout: a legacy document that ccc gave a
	// Continuation Prompt is canonical but still holds its issue there.
	issueLine := 0
	switch {
	case s.pre.has[fieldIssue]:
		issueLine = s.pre.lineOf[fieldIssue]
	case s.present[kindIssue]:
		for _, sec := range s.secs {
			if sec.kind == kindIssue {
				issueLine = sec.line
			}
		}
	}
	switch {
	case issueLine == 0 && d.Layout() == Legacy:
		add(top, "missing issue: add a **Issue:** header field or a \"## Linear Issue\" section")
	case issueLine == 0:
		add(top, "missing **Issue:** header field")
	case d.Issue.Key == "":
		add(issueLine, "issue has no key (want a key like CIA-123)")
	case !keyRe().MatchString(d.Issue.Key):
		add(issueLine, "issue %q is not a key like CIA-123", d.Issue.Key)
	}

	firstAt := map[string]int{}
	for _, sec := range s.secs {
		name := normalise(sec.title)
		k := headings[name]
		if sec.dup {
			add(sec.line, "duplicate section %q (first at line %d); ccc reads only the first", "## "+sec.title, firstAt[titles[k]])
			continue
		}
		if k != kindUnknown {
			firstAt[titles[k]] = sec.line
		}
		for _, line := range sec.extra {
			if k == kindCurrent {
				add(line, "\"## %s\" has more than one item; only the first is the current task", sec.title)
			} else {
				add(line, "\"## %s\" has more than one list; only the first is read", sec.title)
			}
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
	return ps
}
