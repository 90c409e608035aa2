package markdown

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark/ast"
)

// view is everything a reader of a Doc takes from it: the parts, each
// top-level block's kind and range, every list's items, and the last block
// (progress asks whether it may be left open).
func view(d *Doc) string {
	var b strings.Builder
	for _, s := range append([]Section{d.Preamble}, d.Sections...) {
		fmt.Fprintf(&b, "section %q line %d [%d %d %d)\n", s.Title, s.Line, s.Start, s.BodyStart, s.End)
		for _, n := range s.Blocks {
			start, end := d.BlockRange(n, s.End)
			fmt.Fprintf(&b, "  %s line %d [%d %d)\n", n.Kind(), d.Of(blockPos(n)), start, end)
			if l, ok := n.(*ast.List); ok {
				for _, it := range d.Items(l, s.End) {
					fmt.Fprintf(&b, "    item line %d [%d %d) %q\n", it.Line, it.Start, it.End, it.Text)
				}
			}
		}
	}
	if last := d.Root.LastChild(); last != nil {
		fmt.Fprintf(&b, "last %s", last.Kind())
		if h, ok := last.(*ast.HTMLBlock); ok {
			fmt.Fprintf(&b, " type %d", h.HTMLBlockType)
		}
	}
	return b.String()
}

// plainSeeds are sources where a line scanner could go wrong: what closes,
// continues or nests a list, and what looks like a plain item but is not.
var plainSeeds = []string{
	"# P\n\n## Completed Tasks\n- a ✓\n- b ✓\n\n## Current Task\n- c — doing\n\n## Remaining Tasks\n- [ ] d\n- [x] e\n",
	"## R\n- a\n- b\n",
	"## R\n- a\n- b",
	"## R\r\n- a\r\n- b\r\n\r\n## S\r\n",
	"## R\n- a\n- b\nlazy\n\n## S\n",
	"## R\n- a\n- b\n  more\n## S\n",
	"## R\n- a\n- b\n\n- c\n- d\n\n## S\n",
	"## R\n- a\n- b\n\ntext\n",
	"## R\n- a\n- b\n---\n",
	"## R\n- a\n- b\n===\n",
	"## R\n* x\n- a\n- b\n## S\n",
	"## R\n- [x]: /u\n- a\n- b\n## S\n",
	"## R\n- a\n- b\n[x]: /u\n## S\n",
	"```\n- a\n- b\n## S\n",
	"~~~\n- a\n- b\n\n# T\n~~~\n",
	"<div>\n- a\n- b\n\n## S\n",
	"<!--\n- a\n- b\n## S\n-->\n",
	"> q\n- a\n- b\n## S\n",
	"- x\n\n  - a\n  - b\n## S\n",
	"1. x\n- a\n- b\n## S\n",
	"para\n- a\n- b\n# T\n",
	"    code\n- a\n- b\n\n\n## S\n",
	"- a\n- b\n#notheading\n## S\n",
	"- a\n- b\n####### seven\n",
	"- a\n- b\n  \n## S\n",
	"- a\t\n- b\n## S\n",
	"- a  \n- b  \n## S ##\n",
	"\uFEFF## R\n- a\n- b\n",
	"- a\n- b\n- c\n\n## S\n- d\n- e\n",
	"## R\n- a\n-\n- b\n- c\n## S\n",
	"## R\n- a\n- - b\n- c\n## S\n",
	"Title\n- a\n- b\n---\n",
}

func checkPlainRuns(t *testing.T, src []byte) {
	want := view(parse(src, false))
	got := view(parse(src, true))
	require.Equal(t, want, got, "source %q", src)
}

// TestPlainRunsAgree: the line scanner reads every seed as goldmark does.
func TestPlainRunsAgree(t *testing.T) {
	t.Parallel()
	for _, src := range plainSeeds {
		checkPlainRuns(t, []byte(src))
	}
}

// TestPlainRunsRead: the scanner does read a long plain list, and a source
// where goldmark reads the first line otherwise (inside a fence) is parsed
// whole.
func TestPlainRunsRead(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# P\n\n## Remaining Tasks\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "- [ ] task %d\n", i)
	}
	b.WriteString("\n## Notes\n")
	d := Parse([]byte(b.String()))
	require.Len(t, d.plain, 1)
	l := d.Sections[0].Blocks[0].(*ast.List)
	items := d.Items(l, d.Sections[0].End)
	require.Len(t, items, 1000)
	assert.Equal(t, "[ ] task 999", items[999].Text)
	assert.Equal(t, 1, l.ChildCount(), "goldmark read one item, not 1,000")

	assert.Empty(t, Parse([]byte("```\n- a\n- b\n## S\n")).plain, "the run's first line is code: parsed whole")
}

// FuzzPlainRuns: for any source, Parse with the line scanner and Parse
// with goldmark alone give every reader the same sections, blocks and items.
func FuzzPlainRuns(f *testing.F) {
	for _, s := range plainSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 64<<10 || Limit(src) != nil {
			return
		}
		checkPlainRuns(t, src)
	})
}
