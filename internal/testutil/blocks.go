package testutil

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Blocks lists the top-level blocks a CommonMark renderer (goldmark) finds
// in md, each as its kind and its source lines: "Paragraph: text",
// "HTMLBlock: <!-- x -->", "FencedCodeBlock: the code".
func Blocks(md string) []string {
	src := []byte(md)
	root := goldmark.DefaultParser().Parse(text.NewReader(src))
	var out []string
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		var lines []string
		segs := n.Lines()
		for i := range segs.Len() {
			seg := segs.At(i)
			lines = append(lines, strings.TrimRight(string(seg.Value(src)), "\r\n"))
		}
		if h, ok := n.(*ast.HTMLBlock); ok && h.HasClosure() {
			cl := h.ClosureLine
			lines = append(lines, strings.TrimRight(string(cl.Value(src)), "\r\n"))
		}
		out = append(out, n.Kind().String()+": "+strings.Join(lines, "\n"))
	}
	return out
}
