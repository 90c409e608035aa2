package markdown

import (
	"bytes"
	"regexp"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

var htmlType1Tag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)<(script|pre|style|textarea)`) })

// Closer returns the line that has to be appended to src before a new top-level block can follow it:
// the closing fence of a fenced code block, or the end marker of an HTML block (a comment, <script>,
// <?...?>, <!X ...>, <![CDATA[...]]>) that src leaves open, which would otherwise swallow everything
// appended after it. It returns "" when src ends outside such a block.
func Closer(src []byte) string {
	src, _ = TrimBOM(src)
	probe := make([]byte, 0, len(src)+16)
	probe = append(append(probe, src...), "\n\n## probe\n"...)
	root := blockParser().Parse(text.NewReader(probe))
	last := root.LastChild()
	if h, ok := last.(*ast.Heading); ok && h.Level == 2 {
		return ""
	}
	switch n := last.(type) {
	case *ast.FencedCodeBlock:
		l := NewLines(probe)
		open := bytes.TrimLeft(l.Text(l.Of(n.Pos())), " \t")
		i := 0
		for i < len(open) && open[i] == open[0] {
			i++
		}
		return string(open[:i])
	case *ast.HTMLBlock:
		switch n.HTMLBlockType {
		case ast.HTMLBlockType1:
			seg := n.Lines().At(0)
			if m := htmlType1Tag().FindSubmatch(seg.Value(probe)); m != nil {
				return "</" + string(bytes.ToLower(m[1])) + ">"
			}
		case ast.HTMLBlockType2:
			return "-->"
		case ast.HTMLBlockType3:
			return "?>"
		case ast.HTMLBlockType4:
			return ">"
		case ast.HTMLBlockType5:
			return "]]>"
		}
	}
	return ""
}

// CloseOpen returns src with the closing line of every block it leaves open appended (see Closer), so
// that what a caller appends after a blank line (a note, a hidden marker) is a block of its own and not
// part of a code block or an HTML comment.
func CloseOpen(src string) string {
	// Closing a block can leave another one open only if the first sat inside it, which Closer's probe
	// rules out; the bound only keeps a surprise from looping.
	for range 4 {
		c := Closer([]byte(src))
		if c == "" {
			break
		}
		if !strings.HasSuffix(src, "\n") {
			src += "\n"
		}
		src += c
	}
	return src
}
