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

// HasMarker says whether the last non-blank line of body is agent's marker.
// The comparison is exact (surrounding spaces aside, which an edit on
// github.com may add), so "main" never matches a comment of "main-2".
func HasMarker(body, agent string) bool {
	body = strings.TrimRightFunc(body, unicode.IsSpace)
	last := body[strings.LastIndexByte(body, '\n')+1:]
	return strings.TrimSpace(last) == Marker(agent)
}
