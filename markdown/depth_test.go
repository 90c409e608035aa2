package markdown

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

func TestLimit(t *testing.T) {
	deep := func(token string, n int) string { return strings.Repeat(token, n) + "x\n" }
	tests := []struct {
		name string
		in   string
		line int    // 0: within the limits
		want string // part of the message
	}{
		{"100 list levels", "# P\n\n" + deep("- ", 100), 0, ""},
		{"101 list levels", "# P\n\n" + deep("- ", 101), 3, "nested 101 levels deep; ccc reads at most 100"},
		{"101 block quotes", deep("> ", 101), 1, "nested 101 levels deep"},
		{"101 block quotes without spaces", deep(">", 101), 1, "nested 101 levels deep"},
		{"101 ordered levels", deep("1. ", 101), 1, "nested 101 levels deep"},
		{"mixed containers", deep("- > 1) ", 34), 1, "nested 102 levels deep"},
		{"10,000 levels", "## Current Task\n" + deep("- ", 10000), 2, "nested 10000 levels deep"},
		{"indentation continues items", "- a\n" + strings.Repeat(" ", 202) + "b\n", 2, "nested 101 levels deep"},
		{"a tab is four columns", strings.Repeat("\t", 51) + "b\n", 1, "nested 102 levels deep"},
		{"a long rule is no nesting", deep("", 0) + strings.Repeat("- ", 300) + "\n", 0, ""},
		{"a rule after block quotes counts the quotes", strings.Repeat("> ", 101) + "- - -\n", 1, "nested 101 levels deep"},
		{"a long number is text", strings.Repeat("1", 500) + ". x\n" + strings.Repeat("12345", 100) + "\n", 0, ""},
		{"dashes without spaces are text", strings.Repeat("-", 500) + "x\n", 0, ""},
		{"a flat list of 49,999 items", strings.Repeat("- x\n", 49999), 0, ""},
		{"a flat list of 150,000 items (issue 26: tasks are not nesting)", strings.Repeat("- x\n", 150_000), 0, ""},
		{"a block quote of 150,000 lines", strings.Repeat("> x\n", 150_000), 0, ""},
		{"a flat list of 150,001 items", strings.Repeat("- x\n", 150_001), 150_001, "more than 150000 lines"},
		{"150,001 lines of text", strings.Repeat("x\n", 150_001), 150_001, "shorten the file"},
		{"16,667 tasks with a subtask each", strings.Repeat("- t\n  - s\n", 16_667), 0, ""},
		{"16,668 tasks with a subtask each", strings.Repeat("- t\n  - s\n", 16_668), 33_335, "pass 100000 here"},
		{"deep nesting kept open by blank lines", deep("- ", 100) + strings.Repeat("\n", 3000), 991, "flatten its lists"},
		{"deep nesting kept open by lazy lines", deep("- ", 100) + strings.Repeat("y\n", 3000), 991, "shorten the file"},
		{"a blank line and text close what the text does not continue", deep("- ", 100) + "\nz\n" + strings.Repeat("y\n", 90000), 0, ""},
		{"a BOM is not text", "\uFEFF" + deep("- ", 100), 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Limit([]byte(tc.in))
			if tc.line == 0 {
				assert.Nil(t, err)
				return
			}
			require.NotNil(t, err)
			assert.Equal(t, tc.line, err.Line)
			assert.Contains(t, err.Msg, tc.want)
		})
	}
}

// Limit never counts fewer levels than goldmark opens: for random stacks of containers, when goldmark
// nests N levels somewhere, a depth limit of N-1 refuses the source.
func TestLimitNeverUnderestimates(t *testing.T) {
	tokens := []string{"- ", "> ", ">", "1. ", "2) ", "* ", "+ ", "  ", "   ", "\t", " ", "-", "x", "", "\n", "- - -", "10. ", "> - "}
	r := rand.New(rand.NewSource(12))
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for l := r.Intn(8) + 1; l > 0; l-- {
			for n := r.Intn(12); n > 0; n-- {
				b.WriteString(tokens[r.Intn(len(tokens))])
			}
			b.WriteString("x\n")
		}
		src := []byte(b.String())
		got := goldmarkDepth(src)
		if got == 0 {
			continue
		}
		assert.NotNil(t, limit(src, got-1, MaxWork), "goldmark nests %d levels in %q", got, src)
	}
}

// goldmarkDepth is the deepest nesting of block quotes and list items goldmark finds in src.
func goldmarkDepth(src []byte) int {
	root := blockParser().Parse(text.NewReader(src))
	deepest := 0
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if _, ok := n.(*ast.ListItem); !ok {
			if _, ok := n.(*ast.Blockquote); !ok {
				return ast.WalkContinue, nil
			}
		}
		d := 0
		for p := n; p != nil; p = p.Parent() {
			switch p.(type) {
			case *ast.ListItem, *ast.Blockquote:
				d++
			}
		}
		deepest = max(deepest, d)
		return ast.WalkContinue, nil
	})
	return deepest
}

// FuzzLimit checks the property of TestLimitNeverUnderestimates on any input.
func FuzzLimit(f *testing.F) {
	for _, s := range []string{"- - x\n", "> > - x\n", "- a\n    - b\n      c\n", "1. - > x\n\n   y\n", "-\n\n  - x\n", "* - - -\n", "\t- x\n\t\t- y\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 4<<10 {
			return
		}
		if got := goldmarkDepth(src); got > 0 && limit(src, got-1, MaxWork) == nil {
			t.Fatalf("goldmark nests %d levels in %q; Limit counts fewer", got, src)
		}
	})
}
