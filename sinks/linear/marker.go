package linear

import (
	"html"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/ccc-checkpoint/ccc/sinks"
)

// markerPrefix starts the marker's plain text.
const markerPrefix = "ccc checkpoint · agent: "

// Marker is the last line of every comment the sink writes:
// "ccc checkpoint · agent: `main`". It is visible text rather than an HTML
// comment because Linear stores comments as ProseMirror documents and
// rewrites their Markdown; the agent name is a code span so that Linear has
// no reason to escape characters in it.
//
// The name is percent-encoded outside letters, digits, "-", "." and "_", so
// that what Linear may do to the line (drop the code marks, escape, wrap it
// in HTML) cannot make two names read the same: "main 2" is `main%202`,
// "a  b" is `a%20%20b`, and the line's plain text names one agent only.
func Marker(agent string) string {
	return markerPrefix + "`" + encodeAgent(agent) + "`"
}

func encodeAgent(agent string) string { return sinks.PercentEncode(agent, "-._") }

var (
	htmlTag  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]*>`) })
	mdEscape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])") })
)

// emphasis marks that may wrap the whole line. The marker never starts with
// one, so stripping a pair cannot make two markers meet.
var emphasis = []string{"**", "__", "*", "_"}

// plain reduces a line of Markdown to the text a reader sees: no tags, no
// entities, no escapes, no code marks, no emphasis around the whole line,
// single spaces. It leaves an encoded agent name as it is (the encoding has
// none of the characters it removes), so it keeps markers apart.
func plain(s string) string {
	s = htmlTag().ReplaceAllString(s, "")
	s = html.UnescapeString(s)
	s = mdEscape().ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, "`", "")
	s = strings.Join(strings.Fields(s), " ")
	for _, e := range emphasis {
		if len(s) > 2*len(e) && strings.HasPrefix(s, e) && strings.HasSuffix(s, e) {
			return strings.TrimSpace(s[len(e) : len(s)-len(e)])
		}
	}
	return s
}

// HasMarker says whether the last non-blank line of body is agent's marker,
// tagged or not. The line is compared as plain text, so that Linear's
// rewriting of the Markdown does not matter, and in full: "main" matches
// neither "main-2" nor "main 2" nor a line that only quotes the marker.
func HasMarker(body, agent string) bool {
	_, ok := markerTag(body, agent)
	return ok
}

// tagSep separates the marker from its tag: "ccc checkpoint · agent:
// `main` · `0123456789abcdef`".
const tagSep = " · "

// tagLen is the length of a marker's tag in hex digits (64 bits).
const tagLen = 16

// TaggedMarker is Marker(agent) followed by tag, which binds the marker to
// one comment (see commentTag).
func TaggedMarker(agent, tag string) string {
	if tag == "" {
		return Marker(agent)
	}
	return Marker(agent) + tagSep + "`" + tag + "`"
}

// markerTag reads agent's marker on the last non-blank line of body: ok
// when there is one, tag "" when it carries none.
func markerTag(body, agent string) (tag string, ok bool) {
	body = strings.TrimRightFunc(body, unicode.IsSpace)
	last := plain(body[strings.LastIndexByte(body, '\n')+1:])
	want := plain(Marker(agent))
	if last == want {
		return "", true
	}
	rest, found := strings.CutPrefix(last, want+tagSep)
	if !found || len(rest) != tagLen || strings.Trim(rest, "0123456789abcdef") != "" {
		return "", false
	}
	return rest, true
}
