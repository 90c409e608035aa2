package markdown

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// blocks lists the top-level blocks a CommonMark renderer sees in md, each
// as its kind and its source lines: "Paragraph: text", "HTMLBlock: <!-- x -->".
func blocks(md string) []string {
	src := []byte(md)
	root := goldmark.DefaultParser().Parse(text.NewReader(src))
	var out []string
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		var lines []string
		segs := n.Lines()
		for i := range segs.Len() {
			seg := segs.At(i)
			lines = append(lines, strings.TrimRight(string(seg.Value(src)), "\n"))
		}
		if h, ok := n.(*ast.HTMLBlock); ok && h.HasClosure() {
			cl := h.ClosureLine
			lines = append(lines, strings.TrimRight(string(cl.Value(src)), "\n"))
		}
		out = append(out, n.Kind().String()+": "+strings.Join(lines, "\n"))
	}
	return out
}

func TestCloseOpen(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"closed", "text\n\n```\ncode\n```", "text\n\n```\ncode\n```"},
		{"open fence", "```sh\nmake", "```sh\nmake\n```"},
		{"open fence, final newline", "~~~~\nlog\n", "~~~~\nlog\n~~~~"},
		{"open comment", "note <!-- x\n\n<!-- draft\nmore", "note <!-- x\n\n<!-- draft\nmore\n-->"},
		{"fence holding a comment opener", "```\n<!--", "```\n<!--\n```"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CloseOpen(tt.src)
			assert.Equal(t, tt.want, got)
			marked := blocks(got + "\n\n<!-- marker -->")
			assert.Equal(t, "HTMLBlock: <!-- marker -->", marked[len(marked)-1], "what follows is a block of its own")
		})
	}
}
