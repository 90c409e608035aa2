package comment

import (
	"strings"
	"unicode/utf8"
)

// WithMarker is what a tracker sink sends for a status: the status cut to
// maxBody characters (runes), less the marker, with a note naming fullText
// (where the full text is; "" names progressPath), then the marker as the
// last line, so that the marker always survives. A code block or HTML block
// the status leaves open (a --body-file that ends inside a fence, a log cut
// inside one) is closed first, within the limit, so that the note and the
// marker render as blocks of their own and the marker stays hidden.
func WithMarker(status, marker, fullText string, maxBody int, progressPath string) string {
	// One line, whatever the name holds: the note must not push lines of
	// its own into the comment.
	fullText = strings.Join(strings.Fields(fullText), " ")
	if fullText == "" {
		fullText = progressPath
	}
	limit := maxBody - utf8.RuneCountInString(marker) - 2
	body := Truncate(strings.TrimRight(status, " \t\r\n"), limit, TruncateNote(fullText))
	return body + "\n\n" + marker
}
