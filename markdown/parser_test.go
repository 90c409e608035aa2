package markdown

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// shape lists a tree's blocks with their kinds and lines, as a parse of the
// block structure sees them.
func shape(src []byte, root ast.Node) string {
	var b strings.Builder
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && n.Type() == ast.TypeBlock {
			fmt.Fprintf(&b, "%s[", n.Kind())
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				fmt.Fprintf(&b, "%q ", seg.Value(src))
			}
			b.WriteString("]\n")
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// A source without "]:" holds no link reference definition, so parsing it
// without the paragraph transformers gives the same blocks; one with a
// definition still gets them (the definition is no paragraph line, and the
// line under it is no setext underline of it).
func TestParseBlocksWithoutDefinitions(t *testing.T) {
	for _, src := range []string{
		"# P\n\n## Current Task\n- a\n\n## Remaining Tasks\n- [ ] b\n- [x] c ✓\n",
		"Title\n---\n\ntext [a] b\n\n- x\n  y\n\n> q\n",
		"[foo]: /url\n===\n\n## Notes\n[bar]: <x>\n---\n",
		"- [ ] task\n[not a def] : x\n---\n",
	} {
		want := shape([]byte(src), blockParser().Parse(text.NewReader([]byte(src))))
		assert.Equal(t, want, shape([]byte(src), ParseBlocks([]byte(src))), src)
	}
}
