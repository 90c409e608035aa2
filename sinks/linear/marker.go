package linear

import (
	"html"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// markerPrefix starts the marker's plain text.
const markerPrefix = "ccc checkpoint · agent: "

// Marker is the last line of every comment the sink writes:
// "ccc checkpoint · agent: `main`". It is visible text rather than an HTML
// comment because Linear stores comments as ProseMirror documents and
// rewrites their Markdown; the agent name is a code span so that Linear has
// no reason to escape characters in it.
func Marker(agent string) string {
	return markerPrefix + "`" + cleanAgent(agent) + "`"
}

func cleanAgent(agent string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(agent, "`", "")), " ")
}

var (
	htmlTag       = regexp.MustCompile(`<[^>]*>`)
	mdEscape      = regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])")
	markdownNoise = strings.NewReplacer("`", "", "*", "", "_", "")
)

// plain reduces a line of Markdown to the text a reader sees: no tags, no
// escapes, no emphasis or code marks, single spaces.
func plain(s string) string {
	s = htmlTag.ReplaceAllString(s, "")
	s = html.UnescapeString(s)
	s = mdEscape.ReplaceAllString(s, "$1")
	s = markdownNoise.Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// HasMarker says whether the last non-blank line of body carries agent's
// marker, compared as plain text so that Linear's rewriting of the
// Markdown does not matter. The agent name must end where the marker's
// text ends: "main" does not match a comment of "main-2".
func HasMarker(body, agent string) bool {
	body = strings.TrimRightFunc(body, unicode.IsSpace)
	last := body[strings.LastIndexByte(body, '\n')+1:]
	line := plain(last)
	needle := plain(markerPrefix + cleanAgent(agent))
	for i := 0; ; {
		j := strings.Index(line[i:], needle)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(needle)
		if boundary(utf8.DecodeLastRuneInString(line[:start])) && boundary(utf8.DecodeRuneInString(line[end:])) {
			return true
		}
		i = start + 1
	}
}

// boundary says whether the rune beside a match (size 0: none) does not
// continue a word or an agent name.
func boundary(r rune, size int) bool {
	return size == 0 || !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_.", r))
}
