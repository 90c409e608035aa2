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
// take no width.
func Table(rows [][]string) string {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], VisibleLen(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			line.WriteString(c)
			if i < len(r)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-VisibleLen(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
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
