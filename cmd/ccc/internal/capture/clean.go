package capture

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean is captured text as ccc keeps it: valid UTF-8 on one line, without
// control characters. An agent's log is written by the agent from whatever
// it read (a file of the repository, a tool's coloured output), so a task
// can carry a NUL byte, which makes a progress file ccc itself refuses, or
// an ANSI escape or a bidirectional override, which makes a tracker comment
// or a terminal show something else than the file holds. Escape sequences
// go whole (ESC [ … final byte, ESC ] … BEL or ESC \), other control
// characters (C0, DEL, C1, the bidi embeddings, overrides and isolates) go,
// and line breaks and tabs become spaces; runs of blanks become one.
func Clean(s string) string {
	if plain(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			i += escapeLen(s[i:])
			continue
		case r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0x2028 || r == 0x2029:
			b.WriteByte(' ')
		case unicode.IsControl(r) || bidi(r):
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// plain reports whether s is printable ASCII already on one line with
// single spaces: the common case, returned without a copy.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c >= 0x7f || c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			return false
		}
	}
	return true
}

// bidi are the explicit directional formatting characters (U+202A..U+202E,
// U+2066..U+2069): invisible, they reorder what a reader sees.
func bidi(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }

// escapeLen is the length of the escape sequence at the start of s (which
// starts with ESC): a CSI sequence to its final byte, an OSC or other string
// sequence to its BEL or ST, else ESC and the byte after it.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if c := s[i]; c >= 0x40 && c <= 0x7e {
				return i + 1
			} else if c < 0x20 || c > 0x7e {
				return i
			}
		}
		return len(s)
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(s); i++ {
			switch {
			case s[i] == 0x07:
				return i + 1
			case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
				return i + 2
			}
		}
		return len(s)
	}
	if s[1] < 0x20 || s[1] >= 0x7f {
		return 1
	}
	return 2
}
