package markdown

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark/ast"
)

// parts returns the raw text of the preamble and each section.
func parts(d *Doc) []string {
	out := []string{string(d.Src[d.Preamble.Start:d.Preamble.End])}
	for _, s := range d.Sections {
		out = append(out, string(d.Src[s.Start:s.End]))
	}
	return out
}

func TestParseSplitsAtLevelTwoHeadings(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		parts  []string
		titles []string
		lines  []int
	}{
		{"no sections", "# T\ntext\n", []string{"# T\ntext\n"}, nil, nil},
		{"empty", "", []string{""}, nil, nil},
		{"ATX and setext", "pre\n## A\na\n\nB\n---\nb\n", []string{"pre\n", "## A\na\n\n", "B\n---\nb\n"}, []string{"A", "B"}, []int{2, 5}},
		{"a setext heading takes the paragraph above it", "## A\na\nB\n---\n", []string{"", "## A\n", "a\nB\n---\n"}, []string{"A", "a B"}, []int{1, 2}},
		{"closed ATX, indented, trailing spaces", "  ## A ##  \nx", []string{"", "  ## A ##  \nx"}, []string{"A"}, []int{1}},
		{"H1 and H3 do not split", "# T\n### c\n## A\n### d\n", []string{"# T\n### c\n", "## A\n### d\n"}, []string{"A"}, []int{3}},
		{"headings in code, lists and quotes do not split",
			"```\n## no\n```\n- ## no\n> ## no\n    ## no\n## yes\n",
			[]string{"```\n## no\n```\n- ## no\n> ## no\n    ## no\n", "## yes\n"}, []string{"yes"}, []int{7}},
		{"CRLF", "## A\r\na\r\n## B\r\n", []string{"", "## A\r\na\r\n", "## B\r\n"}, []string{"A", "B"}, []int{1, 3}},
		{"heading without newline at the end", "x\n\n## A", []string{"x\n\n", "## A"}, []string{"A"}, []int{3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Parse([]byte(tc.src))
			assert.Equal(t, tc.parts, parts(d))
			assert.Equal(t, tc.src, strings.Join(parts(d), ""), "parts cover the source")
			var titles []string
			var lines []int
			for _, s := range d.Sections {
				titles = append(titles, s.Title)
				lines = append(lines, s.Line)
				assert.True(t, s.Start <= s.BodyStart && s.BodyStart <= s.End)
			}
			assert.Equal(t, tc.titles, titles)
			assert.Equal(t, tc.lines, lines)
		})
	}
}

func TestSectionBodyAndBlocks(t *testing.T) {
	d := Parse([]byte("Title\n========\n\n## A\npara one\nline two\n\n- a\n- b\n\n> q\n"))
	require.Len(t, d.Sections, 1)
	s := d.Sections[0]
	assert.Equal(t, "## A\n", string(d.Src[s.Start:s.BodyStart]))
	require.Len(t, s.Blocks, 3)
	start, end := d.BlockRange(s.Blocks[0], s.End)
	assert.Equal(t, "para one\nline two\n", string(d.Src[start:end]))
	start, end = d.BlockRange(s.Blocks[1], s.End)
	assert.Equal(t, "- a\n- b\n", string(d.Src[start:end]))
	start, end = d.BlockRange(s.Blocks[2], s.End)
	assert.Equal(t, "> q\n", string(d.Src[start:end]))

	setext := Parse([]byte("intro\n\nSection\n-------\nbody\n"))
	require.Len(t, setext.Sections, 1)
	s = setext.Sections[0]
	assert.Equal(t, "Section\n-------\n", string(setext.Src[s.Start:s.BodyStart]), "the underline belongs to the heading")
}

func TestItems(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		texts []string
		lines []int
		raw   []string
	}{
		{"simple", "- a\n- b\n", []string{"a", "b"}, []int{1, 2}, []string{"- a\n", "- b\n"}},
		{"continuation and nested", "- a\n  more\n  - child\n\n    child text\n- b\n",
			[]string{"a\nmore\n- child\n\n  child text", "b"}, []int{1, 6}, []string{"- a\n  more\n  - child\n\n    child text\n", "- b\n"}},
		{"lazy continuation", "- a\nlazy\n", []string{"a\nlazy"}, []int{1}, []string{"- a\nlazy\n"}},
		{"ordered with wide marker", "10. a\n    b\n", []string{"a\nb"}, []int{1}, []string{"10. a\n    b\n"}},
		{"trailing spaces and blank lines trimmed", "- a  \n\n\n", []string{"a"}, []int{1}, []string{"- a  \n"}},
		{"content on the next line", "-\n  a\n", []string{"a"}, []int{1}, []string{"-\n  a\n"}},
		{"tab after the marker and tab indent", "-\ta\n\tb\n", []string{"a\nb"}, []int{1}, []string{"-\ta\n\tb\n"}},
		{"tab indent deeper than the content", "- a\n\tb\n", []string{"a\n  b"}, []int{1}, []string{"- a\n\tb\n"}},
		{"text after the list is not an item's", "- a\n\nafter\n", []string{"a"}, []int{1}, []string{"- a\n"}},
		{"link reference after the list is not an item's", "- a\n\n[r]: http://x\n", []string{"a"}, []int{1}, []string{"- a\n"}},
		{"CRLF", "- a\r\n  b\r\n- c\r\n", []string{"a\nb", "c"}, []int{1, 3}, []string{"- a\r\n  b\r\n", "- c\r\n"}},
		{"unicode", "- 日本語 ✓\n- émoji 🎉\n", []string{"日本語 ✓", "émoji 🎉"}, []int{1, 2}, []string{"- 日本語 ✓\n", "- émoji 🎉\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Parse([]byte(tc.src))
			l, ok := d.Preamble.Blocks[0].(*ast.List)
			require.True(t, ok)
			var texts, raw []string
			var lines []int
			for _, it := range d.Items(l, len(d.Src)) {
				texts = append(texts, it.Text)
				lines = append(lines, it.Line)
				raw = append(raw, string(d.Src[it.Start:it.End]))
			}
			assert.Equal(t, tc.texts, texts)
			assert.Equal(t, tc.lines, lines)
			assert.Equal(t, tc.raw, raw)
		})
	}
}

func TestLines(t *testing.T) {
	l := NewLines([]byte("a\r\nbc\n\nd"))
	assert.Equal(t, 4, l.Count())
	assert.Equal(t, []string{"a", "bc", "", "d"}, []string{string(l.Text(1)), string(l.Text(2)), string(l.Text(3)), string(l.Text(4))})
	assert.Equal(t, 1, l.Of(0))
	assert.Equal(t, 1, l.Of(2), "the line ending belongs to its line")
	assert.Equal(t, 2, l.Of(3))
	assert.Equal(t, 5, l.Of(8), "the end of the source is past the last line")
	assert.Equal(t, 3, l.Start(2))
	assert.Equal(t, 6, l.End(2))
	assert.Equal(t, 8, l.End(4))
	assert.Nil(t, l.Text(5))

	assert.Equal(t, 1, NewLines([]byte("a\n")).Count(), "a final line ending starts no line")
	assert.Equal(t, 0, NewLines(nil).Count())
}

func TestLineEndingAndBOM(t *testing.T) {
	assert.Equal(t, "\n", LineEnding([]byte("a\nb\r\n")))
	assert.Equal(t, "\r\n", LineEnding([]byte("a\r\nb\n")))
	assert.Equal(t, "\n", LineEnding([]byte("no ending")))

	body, bom := TrimBOM([]byte("\uFEFF# T\n"))
	assert.True(t, bom)
	assert.Equal(t, "# T\n", string(body))
	d := Parse([]byte("\uFEFF## A\n"))
	assert.True(t, d.BOM)
	require.Len(t, d.Sections, 1, "a BOM must not hide the first heading")
	assert.Equal(t, "A", d.Sections[0].Title)
}

func TestIndentAndDedent(t *testing.T) {
	assert.Equal(t, 0, Indent([]byte("x")))
	assert.Equal(t, 3, Indent([]byte("   x")))
	assert.Equal(t, 4, Indent([]byte("\tx")))
	assert.Equal(t, 4, Indent([]byte("  \tx")), "a tab stops at the next multiple of 4")
	assert.Equal(t, "x", string(Dedent([]byte("  x"), 2)))
	assert.Equal(t, " x", string(Dedent([]byte("   x"), 2)))
	assert.Equal(t, "x", string(Dedent([]byte(" x"), 2)), "less indent than width is all removed")
	assert.Equal(t, "  x", string(Dedent([]byte("\tx"), 2)), "a tab past the width leaves spaces")
	assert.Equal(t, " ", string(Dedent([]byte("   "), 2)))
	assert.True(t, IsBlank([]byte(" \t\r")))
	assert.False(t, IsBlank([]byte(" x")))
}

func TestCloser(t *testing.T) {
	tests := []struct{ src, want string }{
		{"text\n", ""},
		{"```go\ncode\n```\n", ""},
		{"```go\ncode", "```"},
		{"~~~~\ncode\n~~~\n", "~~~~"},
		{"  ````\n", "````"},
		{"- ```\n  code\n", ""},
		{"> ```\n> code\n", ""},
		{"<!-- comment\nstill", "-->"},
		{"<!-- closed -->\n", ""},
		{"<script>\nx", "</script>"},
		{"<PRE>\nx", "</pre>"},
		{"<?php\nx", "?>"},
		{"<!DOCTYPE html\n", ">"},
		{"<![CDATA[\nx", "]]>"},
		{"<div>\nx", ""},
		{"", ""},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			got := Closer([]byte(tc.src))
			assert.Equal(t, tc.want, got)
			// Appending the closer makes a following heading a heading again.
			fixed := tc.src
			if got != "" {
				fixed += "\n" + got
			}
			d := Parse([]byte(fixed + "\n\n## next\n"))
			require.NotEmpty(t, d.Sections)
			assert.Equal(t, "next", d.Sections[len(d.Sections)-1].Title)
		})
	}
}
