package github

import (
	"strings"
	"unicode"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// markerPrefix starts every marker; GitHub renders an HTML comment as
// nothing, so the marker is invisible on the issue.
const markerPrefix = "<!-- ccc:checkpoint agent="

// Marker is the last line of every comment the sink writes:
// "<!-- ccc:checkpoint agent=main -->". The agent name is percent-encoded
// where it could end the comment or blur where the name stops (spaces,
// "<", ">", "!", "%"), so the whole line can be compared exactly. Every
// space is encoded, none dropped or merged, so that "a  b" and "a b" (two
// agents) never share a marker.
func Marker(agent string) string {
	return markerPrefix + encodeAgent(agent) + " -->"
}

func encodeAgent(agent string) string { return sinks.PercentEncode(agent, "-._~@+:/[]()#=,") }

// HasMarker says whether the last non-blank line of body is agent's marker,
// tagged or not. The comparison is exact (surrounding spaces aside, which
// an edit on github.com may add), so "main" never matches a comment of
// "main-2".
func HasMarker(body, agent string) bool {
	_, _, ok := markerTag(body, agent)
	return ok
}

// tagLen is the length of a marker's tag in hex digits (64 bits).
const tagLen = 16

// TaggedMarker is agent's marker carrying tag, which binds it to the text
// above it: "<!-- ccc:checkpoint agent=main sig=0123456789abcdef -->".
func TaggedMarker(agent, tag string) string {
	if tag == "" {
		return Marker(agent)
	}
	return markerPrefix + encodeAgent(agent) + " sig=" + tag + " -->"
}

// MarkerTag is markerTag for the other sinks whose bodies are
// GitHub-flavoured Markdown (GitLab's notes), which share this marker.
func MarkerTag(body, agent string) (tag, content string, ok bool) { return markerTag(body, agent) }

// TagLen is the length of a marker's tag in hex digits.
const TagLen = tagLen

// markerTag reads agent's marker on the last non-blank line of body: ok
// when there is one, tag "" when it carries none, and content, the text
// above it, as the tag covers it.
func markerTag(body, agent string) (tag, content string, ok bool) {
	body = strings.TrimRightFunc(body, unicode.IsSpace)
	i := strings.LastIndexByte(body, '\n')
	last := strings.TrimSpace(body[i+1:])
	content = tagContent(body[:max(i, 0)])
	if last == Marker(agent) {
		return "", content, true
	}
	rest, found := strings.CutPrefix(last, markerPrefix+encodeAgent(agent)+" sig=")
	rest, found2 := strings.CutSuffix(rest, " -->")
	if !found || !found2 || len(rest) != tagLen || strings.Trim(rest, "0123456789abcdef") != "" {
		return "", "", false
	}
	return rest, content, true
}

// tagContent is the text a tag covers: line endings as LF, no trailing
// blanks (GitHub keeps a body as sent; an edit in the browser may not).
func tagContent(s string) string {
	return strings.TrimRightFunc(strings.ReplaceAll(s, "\r\n", "\n"), unicode.IsSpace)
}
