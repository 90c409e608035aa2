package ui

import (
	"strings"
	"unicode/utf8"
)

// Colour wraps s in the SGR colour code (e.g. "31" for red). Callers decide
// whether colour is wanted (a terminal, NO_COLOR unset).
func Colour(code, s string) string {
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Table aligns rows of cells in columns two spaces apart; colour codes
// take no width. Each line ends without trailing spaces. It writes into one
// buffer of the table's size: a line builder, a padding string per cell and
// a trimmed copy per line were ten times the table in garbage (issue 26:
// ccc status over 1,000 agents).
func Table(rows [][]string) string {
	var widths []int
	hidden := 0 // bytes that take no width: colour codes, the rest of multi-byte runes
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			n := VisibleLen(c)
			widths[i] = max(widths[i], n)
			hidden += len(c) - n
		}
	}
	line := 1 // the newline
	for _, w := range widths {
		line += w + 2
	}
	buf := make([]byte, 0, len(rows)*line+hidden)
	for _, r := range rows {
		start := len(buf)
		for i, c := range r {
			buf = append(buf, c...)
			if i < len(r)-1 {
				for range widths[i] - VisibleLen(c) + 2 {
					buf = append(buf, ' ')
				}
			}
		}
		end := len(buf)
		for end > start && buf[end-1] == ' ' {
			end--
		}
		buf = append(buf[:end], '\n')
	}
	return string(buf)
}

// VisibleLen is a cell's width on screen: runes, without colour codes.
func VisibleLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			if j := strings.IndexByte(s[i:], 'm'); j >= 0 {
				i += j + 1
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}
