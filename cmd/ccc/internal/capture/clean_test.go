package capture

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"Write the lexer":                       "Write the lexer",
		"  Write\tthe\r\nlexer  ":               "Write the lexer",
		"nul\x00byte":                           "nulbyte",
		"\x1b[31mred\x1b[0m and \x1b[1;4mbold":  "red and bold",
		"title \x1b]0;owned\x07 here":           "title here",
		"osc st \x1b]8;;http://x\x1b\\link":     "osc st link",
		"bell\x07 del\x7f c1\u0085x\u009b":      "bell del c1 x",
		"bidi \u202eevil\u202c \u2066iso\u2069": "bidi evil iso",
		"bad \xff utf-8":                        "bad \uFFFD utf-8",
		"émoji ✓ kept":                          "émoji ✓ kept",
		"lone esc \x1b":                         "lone esc",
	} {
		assert.Equal(t, want, Clean(in), "%q", in)
	}
}
