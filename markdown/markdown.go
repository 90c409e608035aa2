// Package markdown splits Markdown sources at their level-2 headings and locates the blocks and list
// items inside each part with exact byte ranges, so that a caller can rewrite one part of a document
// and copy every other byte unchanged; it also closes the blocks a source leaves open and bounds how
// deep a source may nest before it is parsed. It reads Markdown with goldmark (CommonMark), except
// long runs of plain one-line list items, which it reads line by line where that gives goldmark's
// result (plainlist.go), and never renders it: the Markdown ccc writes is assembled by the packages that own each format (the
// progress file by progress, the status comment by internal/comment).
package markdown

import (
	"bytes"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// BOM is the UTF-8 byte order mark some editors put at the start of a file.
const BOM = "\uFEFF"

// blockParser builds only the block structure: ccc needs positions, not inline markup, and skipping the
// inline parsers makes a parse several times cheaper. The paragraph transformers stay, because link
// reference definitions change which lines form a setext heading.
// Built on first use, not at package init: every ccc process links this package, few parse.
var blockParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
})

// plainParser is blockParser without the paragraph transformers, for a source that cannot hold a link
// reference definition (one needs "]:"): the transformer reads every paragraph again to find none.
var plainParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...))
})

// ParseBlocks parses src's block structure only, as every parse in this package does; offsets in the
// tree refer to src as given (a byte order mark is not removed).
func ParseBlocks(src []byte) ast.Node {
	if !bytes.Contains(src, []byte("]:")) {
		return plainParser().Parse(text.NewReader(src))
	}
	return blockParser().Parse(text.NewReader(src))
}

// Doc is a Markdown source split into the preamble (everything before the first level-2 heading) and
// one Section per level-2 heading. Parts are contiguous: concatenating Src[s.Start:s.End] over the
// preamble and the sections gives Src back.
type Doc struct {
	*Lines
	// Src is the source with any byte order mark removed; every offset refers to it.
	Src []byte
	// BOM reports whether the original source began with a UTF-8 byte order mark.
	BOM bool
	// Newline is the line ending to use for new lines: the first one the source uses, "\n" if none.
	Newline  string
	Root     ast.Node
	Preamble Section
	Sections []Section
	// plain maps each top-level list whose items are a plain run to its
	// lines (plainlist.go).
	plain map[*ast.List]plainRun
	str   string // Src as a string, for the plain items' text
}

// Section is one part of a Doc.
type Section struct {
	// Heading is the level-2 heading that starts the section; nil for the preamble.
	Heading *ast.Heading
	// Title is the heading's text as written, trimmed; empty for the preamble.
	Title string
	// Line is the 1-based line of the heading (1 for the preamble).
	Line int
	// Start, BodyStart and End are byte offsets: the heading occupies [Start, BodyStart), the body
	// [BodyStart, End). All three sit at line starts (or at the end of the source).
	Start, BodyStart, End int
	// Blocks are the top-level blocks of the body, in source order.
	Blocks []ast.Node
}

// Parse splits src at its top-level level-2 headings (ATX or setext). Headings inside lists,
// block quotes or code blocks do not split.
func Parse(src []byte) *Doc { return parse(src, true) }

// parse is Parse; with scan false it gives every list to goldmark, as
// FuzzPlainRuns compares.
func parse(src []byte, scan bool) *Doc {
	body, bom := TrimBOM(src)
	d := &Doc{Lines: NewLines(body), Src: body, BOM: bom, Newline: LineEnding(body)}
	var runs []plainRun
	if scan {
		runs = d.plainRuns()
	}
	if len(runs) > 0 {
		d.Root = ParseBlocks(d.blanked(runs))
		lists, ok := d.plainLists(d.Root, runs)
		if ok {
			d.plain = lists
		} else {
			d.Root = ParseBlocks(body)
		}
	} else {
		d.Root = ParseBlocks(body)
	}

	cur := &d.Preamble
	cur.Line = 1
	for n := d.Root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Level == 2 {
			start := d.Start(d.Of(h.Pos()))
			cur.End = start
			d.Sections = append(d.Sections, Section{
				Heading:   h,
				Title:     HeadingText(body, h),
				Line:      d.Of(start),
				Start:     start,
				BodyStart: d.HeadingEnd(h),
			})
			cur = &d.Sections[len(d.Sections)-1]
			continue
		}
		cur.Blocks = append(cur.Blocks, n)
	}
	cur.End = len(body)
	return d
}

// HeadingText returns a heading's text as written (markup kept), its lines joined with spaces.
func HeadingText(src []byte, h *ast.Heading) string {
	var b strings.Builder
	for i := 0; i < h.Lines().Len(); i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		seg := h.Lines().At(i)
		b.Write(bytes.TrimSpace(seg.Value(src)))
	}
	return strings.TrimSpace(b.String())
}

// HeadingEnd returns the offset just past a heading's last line: its own line for an ATX heading,
// the underline for a setext heading.
func (d *Doc) HeadingEnd(h *ast.Heading) int {
	first := d.Of(h.Pos())
	last := first
	if n := h.Lines().Len(); n > 0 {
		last = d.Of(h.Lines().At(n - 1).Start)
	}
	if !isATX(d.Text(first)) {
		last++ // the underline
	}
	return d.End(last)
}

// isATX reports whether a heading's first line is an ATX heading ("## Title"); the other kind, setext,
// is underlined on the next line.
func isATX(line []byte) bool {
	rest := bytes.TrimLeft(line, " ")
	n := len(rest) - len(bytes.TrimLeft(rest, "#"))
	return n >= 1 && n <= 6 && (n == len(rest) || rest[n] == ' ' || rest[n] == '\t' || rest[n] == '\r')
}

// BlockRange returns the line-aligned byte range [start, end) of a top-level block that ends no later
// than limit, without the blank lines that follow it. A paragraph ends at its last line, so link
// reference definitions after it are not counted as its text.
func (d *Doc) BlockRange(n ast.Node, limit int) (start, end int) {
	first := d.Of(blockPos(n))
	start = d.Start(first)
	switch n := n.(type) {
	case *ast.Paragraph:
		return start, d.End(d.Of(n.Lines().At(n.Lines().Len() - 1).Start))
	case *ast.Heading:
		return start, d.HeadingEnd(n)
	case *ast.List:
		items := d.Items(n, limit)
		if len(items) > 0 {
			return start, items[len(items)-1].End
		}
	}
	if next := n.NextSibling(); next != nil && blockPos(next) < limit {
		limit = d.Start(d.Of(blockPos(next)))
	}
	return start, d.trimBlank(start, limit)
}

// trimBlank moves end back over whole blank lines, never before start.
func (d *Doc) trimBlank(start, end int) int {
	if end <= start {
		return start
	}
	for line := d.Of(end - 1); end > start && util.IsBlank(d.Text(line)); line-- {
		end = d.Start(line)
	}
	return end
}

// blockPos is the offset where a block begins; goldmark records it for every block it opens.
func blockPos(n ast.Node) int {
	if p := n.Pos(); p >= 0 {
		return p
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if p := blockPos(c); p >= 0 {
			return p
		}
	}
	return -1
}

// Item is one item of a list.
type Item struct {
	// Node is the item's node; nil for an item of a plain run, which
	// goldmark did not read (plainlist.go).
	Node *ast.ListItem
	// Line is the 1-based line of the item's marker.
	Line int
	// Start and End are the line-aligned byte range of the item, without trailing blank lines.
	Start, End int
	// Text is the item's source with the marker and the continuation indent removed, lines joined
	// with "\n", trailing spaces of each line, surrounding blank lines and leading spaces removed.
	Text string
}

// Items returns the items of a top-level list that ends no later than limit. An item runs to the next
// item; the last one runs over the lines that are blank, indented to its content or a lazy
// continuation of one of its paragraphs.
func (d *Doc) Items(l *ast.List, limit int) []Item {
	if r, ok := d.plain[l]; ok {
		return d.runItems(r)
	}
	items := make([]Item, 0, l.ChildCount())
	for c := l.FirstChild(); c != nil; c = c.NextSibling() {
		li, ok := c.(*ast.ListItem)
		if !ok {
			continue
		}
		items = append(items, Item{Node: li, Line: d.Of(li.Pos()), Start: d.Start(d.Of(li.Pos()))})
	}
	for i := range items {
		var end int
		if i+1 < len(items) {
			end = items[i+1].Start
		} else {
			end = d.lastItemEnd(items[i].Node, items[i].Line, limit)
		}
		items[i].End = d.trimBlank(items[i].Start, end)
		items[i].Text = d.itemText(items[i])
	}
	return items
}

func (d *Doc) lastItemEnd(li *ast.ListItem, first, limit int) int {
	if next := li.Parent().NextSibling(); next != nil && blockPos(next) < limit {
		limit = d.Start(d.Of(blockPos(next)))
	}
	lazy := map[int]bool{}
	_ = ast.Walk(li, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *ast.Paragraph, *ast.TextBlock: // tight lists hold TextBlocks
			for i := 0; i < n.Lines().Len(); i++ {
				lazy[d.Of(n.Lines().At(i).Start)] = true
			}
		}
		return ast.WalkContinue, nil
	})
	line := first + 1
	for ; line <= d.Count() && d.Start(line) < limit; line++ {
		t := d.Text(line)
		if !util.IsBlank(t) && Indent(t) < li.Offset && !lazy[line] {
			break
		}
	}
	return min(d.Start(line), limit)
}

func (d *Doc) itemText(it Item) string {
	var lines []string
	for n := it.Line; n <= d.Count() && d.Start(n) < it.End; n++ {
		t := d.Text(n)
		if n == it.Line {
			t = bytes.TrimLeft(skipMarker(t), " \t")
		} else {
			t = Dedent(t, it.Node.Offset)
		}
		lines = append(lines, strings.TrimRight(string(t), " \t\r\v\f"))
	}
	// An item may start on the line after its marker; its first line is then indented like the rest.
	return strings.TrimLeft(strings.Trim(strings.Join(lines, "\n"), "\n"), " \t")
}

// skipMarker removes the indentation and the list marker ("-", "*", "+", "1." or "1)") from the first
// line of an item.
func skipMarker(line []byte) []byte {
	line = bytes.TrimLeft(line, " \t")
	if len(line) > 0 && (line[0] == '-' || line[0] == '*' || line[0] == '+') {
		return line[1:]
	}
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')') {
		return line[i+1:]
	}
	return line
}

// Indent returns the width of a line's leading whitespace in columns, tabs stopping every 4 columns.
func Indent(line []byte) int {
	w, _ := util.IndentWidth(line, 0)
	return w
}

// Dedent removes up to width columns of leading whitespace; a tab that reaches past width leaves
// the columns it covered beyond width as spaces, as CommonMark does.
func Dedent(line []byte, width int) []byte {
	w := 0
	for i, c := range line {
		if w >= width {
			return line[i:]
		}
		switch c {
		case ' ':
			w++
		case '\t':
			w += util.TabWidth(w)
			if w > width {
				return append([]byte(strings.Repeat(" ", w-width)), line[i+1:]...)
			}
		default:
			return line[i:]
		}
	}
	return nil
}

// IsBlank reports whether a line holds only whitespace, the way CommonMark decides blank lines.
func IsBlank(line []byte) bool { return util.IsBlank(line) }

// TrimBOM removes a leading UTF-8 byte order mark and reports whether there was one.
func TrimBOM(src []byte) ([]byte, bool) {
	if rest, ok := bytes.CutPrefix(src, []byte(BOM)); ok {
		return rest, true
	}
	return src, false
}

// LineEnding returns the line ending of the first line of src: "\r\n" or "\n" ("\n" when src has no
// line ending at all).
func LineEnding(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}
