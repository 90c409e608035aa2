package markdown

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// A progress file is mostly long lists of one-line items ("- task"), and goldmark
// builds a list item, a text block and a segment for every one of them: about
// 20× the document in memory before ccc reads it. A plain run of such items is
// read here line by line instead. Parse hands goldmark a copy of the source in
// which the lines of a run after its first become a blank line and a line of
// code in the first item (blanked), so every offset stays as it was and
// goldmark opens the list at the run's first line as before; Items then
// lists the run's lines. Where
// goldmark's reading of the copy is not what the run promised (the first line
// is not the only item of a top-level list of its own), Parse parses the
// source itself. FuzzPlainRuns holds the two parses equal.

// plainRun is a run of plain items, lines first..last.
type plainRun struct{ first, last int }

// plainItem reports whether a line is an item that goldmark reads, whatever
// came before it in the list, as one more "-" item at the top level holding
// one paragraph line: "- " and text that does not start a block of its own
// (no nested list, quote, heading, rule, code, HTML, setext underline or
// ordered item), holds no control character or tab (indentation) and no link
// reference definition ("]:", which the paragraph transformers look for).
func plainItem(line []byte) bool {
	if len(line) < 3 || line[0] != '-' || line[1] != ' ' {
		return false
	}
	switch c := line[2]; {
	case c >= '0' && c <= '9':
		return false
	case bytes.IndexByte([]byte(" #>-*+_=`~<|"), c) >= 0:
		return false
	}
	for _, c := range line {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return !bytes.Contains(line, []byte("]:"))
}

// atxHeading reports whether a line is an ATX heading at the left margin:
// one to six "#" and a space.
func atxHeading(line []byte) bool {
	n := 0
	for n < len(line) && n < 7 && line[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && n < len(line) && line[n] == ' '
}

// plainRuns finds the runs of two or more plain items (long enough to
// blank) after which, past
// any blank lines, the source ends or an ATX heading starts: that heading
// closes the list whether it follows the last item or blank lines, so the
// blanked copy and the source end the list at the same line.
func (d *Doc) plainRuns() []plainRun {
	var runs []plainRun
	n := d.Count()
	for i := 1; i <= n; i++ {
		if !plainItem(d.Text(i)) {
			continue
		}
		j := i
		for j < n && plainItem(d.Text(j+1)) {
			j++
		}
		k := j + 1
		for k <= n && IsBlank(d.Text(k)) {
			k++
		}
		r := plainRun{i, j}
		if j > i && (k > n || atxHeading(d.Text(k))) {
			if from, to := d.blankRange(r); to-from > 1+codeIndent {
				runs = append(runs, r)
			}
		}
		i = j
	}
	return runs
}

// blanked copies the source with the lines of each run after its first
// turned into a blank line and one line of code in the first item: "\n",
// six spaces (the item's indent and a code block's) and "x" up to the last
// line's "\n". Goldmark reads a line at a time, looks at the start of a
// code line only and reads no inline content in code, so that line costs it
// one search for its end; not a pass through its block parsers per item,
// nor a scan of every byte by each parser that asks whether a long blank
// line is blank, nor the inline pass over a long paragraph line.
func (d *Doc) blanked(runs []plainRun) []byte {
	out := bytes.Clone(d.Src)
	for _, r := range runs {
		from, to := d.blankRange(r)
		out[from] = '\n'
		for i := from + 1; i < from+1+codeIndent; i++ {
			out[i] = ' '
		}
		for i := from + 1 + codeIndent; i < to; i++ {
			out[i] = 'x'
		}
	}
	return out
}

// codeIndent puts a line of an item at offset 2 into a code block.
const codeIndent = 2 + 4

// blankRange is what blanked rewrites of a run: from the second item's
// line to the last one's line ending (or the source's end).
func (d *Doc) blankRange(r plainRun) (from, to int) {
	from, to = d.Start(r.first+1), d.End(r.last)
	if d.Src[to-1] == '\n' {
		to--
	}
	return from, to
}

// plainLists matches each run to the top-level list goldmark opened at its
// first line in the blanked copy; ok is false when a run's first line is not
// the single "-" item, at offset 2, of a top-level list.
func (d *Doc) plainLists(root ast.Node, runs []plainRun) (map[*ast.List]plainRun, bool) {
	at := make(map[int]*ast.List, len(runs))
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if l, ok := n.(*ast.List); ok {
			at[d.Of(blockPos(l))] = l
		}
	}
	lists := make(map[*ast.List]plainRun, len(runs))
	for _, r := range runs {
		l := at[r.first]
		if l == nil || l.Marker != '-' || l.ChildCount() != 1 {
			return nil, false
		}
		li, ok := l.FirstChild().(*ast.ListItem)
		if !ok || li.Offset != 2 || d.Of(li.Pos()) != r.first {
			return nil, false
		}
		lists[l] = r
	}
	return lists, true
}

// runItems lists a run's items: one line each, its text what itemText
// makes of it (a plain item has no tab or control character to trim),
// cut from one string of the source rather than copied item by item.
func (d *Doc) runItems(r plainRun) []Item {
	if d.str == "" {
		d.str = string(d.Src)
	}
	items := make([]Item, 0, r.last-r.first+1)
	for n := r.first; n <= r.last; n++ {
		start := d.Start(n)
		text := strings.TrimRight(d.str[start+2:start+len(d.Text(n))], " ")
		items = append(items, Item{Line: n, Start: start, End: d.End(n), Text: text})
	}
	return items
}
