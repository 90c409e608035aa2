package file

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// endLine closes an agent's section. Begin lines name the agent and the
// section's id:
//
//	<!-- ccc:status agent="main" id="s-1f2e3d4c5b6a" -->
//	## Checkpoint Status
//	...
//	<!-- /ccc:status -->
//
// Both are HTML comments, so a rendered STATUS.md shows only the statuses.
const endLine = "<!-- /ccc:status -->"

// beginPrefix starts every begin line: a file that holds it anywhere is a
// status file (CheckTarget), one without it is someone else's.
const beginPrefix = "<!-- ccc:status "

var beginLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^<!-- ccc:status agent=("(?:[^"\\]|\\.)*") id="([A-Za-z0-9_-]+)" -->$`)
})

func begin(agent, id string) string {
	return fmt.Sprintf("<!-- ccc:status agent=%s id=%q -->", strconv.Quote(agent), id)
}

// section is one agent's status in the file: lines [start, end] of the
// document, begin and end lines included.
type section struct {
	agent, id  string
	start, end int
}

// document is a status file split into lines (each keeping its line
// ending) and the sections found in it. Everything outside the sections is
// the user's and is written back byte for byte.
type document struct {
	lines    []string
	sections []section
	eol      string
}

// CorruptError is a status file ccc will not rewrite: a section that never
// ends would swallow the rest of the file.
type CorruptError struct {
	Path string
	Line int
	Msg  string
}

func (e *CorruptError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg) }

// parse splits data into a document. Begin lines count only at the start
// of a line and outside fenced code blocks, so a section quoted or shown as
// an example in the file is never taken for one.
func parse(path string, data []byte) (*document, error) {
	d := &document{eol: "\n"}
	if bytes.Contains(data, []byte("\r\n")) {
		d.eol = "\r\n"
	}
	if len(data) > 0 {
		d.lines = strings.SplitAfter(string(data), "\n")
		if d.lines[len(d.lines)-1] == "" {
			d.lines = d.lines[:len(d.lines)-1]
		}
	}
	var fence string
	for i := 0; i < len(d.lines); i++ {
		line := strings.TrimRight(d.lines[i], " \t\r\n")
		if fence != "" {
			if closesFence(line, fence) {
				fence = ""
			}
			continue
		}
		if f := opensFence(line); f != "" {
			fence = f
			continue
		}
		m := beginLine().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		agent, err := strconv.Unquote(m[1])
		if err != nil {
			continue
		}
		s := section{agent: agent, id: m[2], start: i, end: -1}
		for j := i + 1; j < len(d.lines); j++ {
			l := strings.TrimRight(d.lines[j], " \t\r\n")
			if l == endLine {
				s.end = j
				break
			}
			if beginLine().MatchString(l) {
				break
			}
		}
		if s.end < 0 {
			return nil, &CorruptError{Path: path, Line: i + 1,
				Msg: fmt.Sprintf("the status section of agent %q has no end line %s; fix or remove it by hand", agent, endLine)}
		}
		d.sections = append(d.sections, s)
		i = s.end
	}
	return d, nil
}

// opensFence returns the fence a line opens (``` or ~~~, three or more,
// indented at most three spaces), or "".
func opensFence(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 && (c == "~" || !strings.Contains(t[n:], "`")) {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

func closesFence(line, fence string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || !strings.HasPrefix(t, fence) {
		return false
	}
	return strings.Trim(t, fence[:1]) == ""
}

// find returns the index of the section with id written by agent, or -1.
func (d *document) find(id, agent string) int {
	if id == "" {
		return -1
	}
	for i, s := range d.sections {
		if s.id == id && s.agent == agent {
			return i
		}
	}
	return -1
}

// findAgent returns the index of agent's first section, or -1.
func (d *document) findAgent(agent string) int {
	for i, s := range d.sections {
		if s.agent == agent {
			return i
		}
	}
	return -1
}

// body is the text between a section's begin and end lines.
func (d *document) body(i int) string {
	s := d.sections[i]
	return strings.Join(d.lines[s.start+1:s.end], "")
}

// render writes the lines of a section holding body.
func (d *document) render(agent, id, body string) []string {
	out := []string{begin(agent, id) + d.eol}
	for l := range strings.SplitSeq(strings.TrimRight(strings.ReplaceAll(body, "\r\n", "\n"), "\n"), "\n") {
		// A line of the body that reads as a marker would cut the
		// section short when the file is read again.
		t := strings.TrimRight(l, " \t")
		if t == endLine || beginLine().MatchString(t) {
			l = "&lt;" + l[1:]
		}
		out = append(out, l+d.eol)
	}
	return append(out, endLine+d.eol)
}

// set replaces section i (or, with i < 0, appends a new section after a
// blank line) and returns the new file content.
func (d *document) set(i int, agent, id, body string) []byte {
	sec := d.render(agent, id, body)
	var lines []string
	if i >= 0 {
		s := d.sections[i]
		lines = append(append(append(lines, d.lines[:s.start]...), sec...), d.lines[s.end+1:]...)
	} else {
		lines = append(lines, d.lines...)
		if n := len(lines); n > 0 {
			if !strings.HasSuffix(lines[n-1], "\n") {
				lines[n-1] += d.eol
			}
			if strings.TrimSpace(lines[n-1]) != "" {
				lines = append(lines, d.eol)
			}
		}
		lines = append(lines, sec...)
	}
	return []byte(strings.Join(lines, ""))
}
