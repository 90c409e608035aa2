package jira

import (
	"strings"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// markerPrefix starts every marker. ADF has no hidden text (no HTML
// comment), so the marker is the comment's last paragraph, visible and
// short, as on Linear: "ccc checkpoint · agent: `main` · `0123456789abcdef`".
const markerPrefix = "ccc checkpoint · agent: "

// tagSep separates the agent from the tag.
const tagSep = " · "

// PropertyKey is the comment property ccc sets on each comment it writes
// (Jira's entity properties): {"agent": "main"}, for other tools that look
// for ccc's comments. Jira's comment list does not return properties (its
// expand takes renderedBody only), so ccc finds its comment by the marker
// paragraph: one listing instead of one request per comment.
const PropertyKey = "ccc.checkpoint"

// Marker is the last line of every comment the sink writes, untagged, as
// Markdown. The agent name is a code span, percent-encoded where it could
// end one, so "a b" and "a  b" never share a marker.
func Marker(agent string) string { return markerPrefix + "`" + encodeAgent(agent) + "`" }

func encodeAgent(agent string) string { return sinks.PercentEncode(agent, "-._") }

// tagLen is the length of a marker's tag in hex digits (64 bits).
const tagLen = 16

// TaggedMarker is agent's marker carrying tag, which binds it to the text
// above it, as Markdown.
func TaggedMarker(agent, tag string) string {
	if tag == "" {
		return Marker(agent)
	}
	return Marker(agent) + tagSep + "`" + tag + "`"
}

// markerNode is the marker paragraph: text with the agent and the tag as
// code.
func markerNode(agent, tag string) Node {
	content := []Node{textNode(markerPrefix), {Type: "text", Text: encodeAgent(agent), Marks: []Mark{{Type: "code"}}}}
	if tag != "" {
		content = append(content, textNode(tagSep), Node{Type: "text", Text: tag, Marks: []Mark{{Type: "code"}}})
	}
	return paragraph(content)
}

// markerTag reads agent's marker in the last paragraph of a stored
// comment: ok when there is one, tag "" when it carries none, and content,
// the text above it as the tag covers it (PlainText).
func markerTag(body []Node, agent string) (tag, content string, ok bool) {
	if len(body) == 0 || body[len(body)-1].Type != "paragraph" {
		return "", "", false
	}
	last := PlainText(body[len(body)-1:])
	content = PlainText(body[:len(body)-1])
	plain := markerPrefix + encodeAgent(agent)
	if last == plain {
		return "", content, true
	}
	rest, found := strings.CutPrefix(last, plain+tagSep)
	if !found || len(rest) != tagLen || strings.Trim(rest, "0123456789abcdef") != "" {
		return "", "", false
	}
	return rest, content, true
}

// HasMarker says whether a stored comment ends with agent's marker, tagged
// or not.
func HasMarker(body []Node, agent string) bool {
	_, _, ok := markerTag(body, agent)
	return ok
}
