package jira

import (
	"bytes"
	"strconv"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Node is one node of an Atlassian Document Format document, the body
// format of Jira Cloud's REST API v3 (comments included). Only what the
// converter writes is modelled; Jira may add attributes (localId) when it
// stores a document, which decoding keeps in Attrs.
type Node struct {
	Type    string         `json:"type"`
	Attrs   map[string]any `json:"attrs,omitempty"`
	Content []Node         `json:"content,omitempty"`
	Text    string         `json:"text,omitempty"`
	Marks   []Mark         `json:"marks,omitempty"`
}

// Mark is a text mark: strong, em, strike, code, link (Attrs href).
type Mark struct {
	Type  string         `json:"type"`
	Attrs map[string]any `json:"attrs,omitempty"`
}

// Doc is a whole ADF document: {"version": 1, "type": "doc", ...}.
type Doc struct {
	Version int    `json:"version"`
	Type    string `json:"type"`
	Content []Node `json:"content"`
}

// commonMark parses what ccc's status and a ccc post body hold. It is
// goldmark's CommonMark parser without its GFM extensions: importing
// goldmark/extension costs every ccc process about 2,000 allocations at
// start-up (TestInitAllocations), for tables and strikethrough that a
// status never holds; task items ("- [ ] ", "- [x] ") are read here.
// Built on first use: only the Jira sink converts.
var commonMark = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
})

// ToADF converts Markdown to an ADF document that Jira accepts: headings,
// paragraphs (a line break is kept as a hard break, as GitHub and Linear
// show one), emphasis, strong, inline code, links, bullet and ordered
// lists, task lists (as Jira's own task list), code blocks with their
// language, block quotes and rules. What ADF cannot hold where it stands,
// or CommonMark does not know, is kept as text: raw HTML as its source, a
// table as its rows, a heading inside a list or quote as strong text, a
// task list inside a quote as "[x]" items, an image as a link to it. No
// text is ever dropped.
func ToADF(markdown string) Doc {
	src := []byte(markdown)
	root := commonMark().Parse(text.NewReader(src))
	c := converter{src: src}
	return Doc{Version: 1, Type: "doc", Content: nonNil(c.blocks(root, inDoc))}
}

// where says which container a block is converted for: ADF allows
// different children in each.
type where int

const (
	inDoc where = iota
	inListItem
	inQuote
	inCell
)

type converter struct {
	src []byte
	// tasks numbers task items: ADF wants a localId on each.
	tasks int
}

func nonNil(n []Node) []Node {
	if n == nil {
		return []Node{}
	}
	return n
}

func (c *converter) blocks(parent ast.Node, w where) []Node {
	var out []Node
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		out = append(out, c.block(n, w)...)
	}
	return out
}

func (c *converter) block(n ast.Node, w where) []Node {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return []Node{paragraph(c.inlines(n))}
	case *ast.Heading:
		if w != inDoc {
			return []Node{paragraph(withMark(c.inlines(n), Mark{Type: "strong"}))}
		}
		return []Node{{Type: "heading", Attrs: map[string]any{"level": n.Level}, Content: c.inlines(n)}}
	case *ast.ThematicBreak:
		if w != inDoc {
			return []Node{paragraph([]Node{textNode("———")})}
		}
		return []Node{{Type: "rule"}}
	case *ast.FencedCodeBlock:
		lang := ""
		if n.Info != nil {
			lang, _, _ = strings.Cut(string(n.Info.Segment.Value(c.src)), " ")
		}
		return []Node{codeBlock(c.lines(n), lang)}
	case *ast.CodeBlock:
		return []Node{codeBlock(c.lines(n), "")}
	case *ast.HTMLBlock:
		src := c.lines(n)
		if n.HasClosure() {
			src += string(n.ClosureLine.Value(c.src))
		}
		return []Node{paragraph(breakLines(strings.TrimRight(src, "\n")))}
	case *ast.Blockquote:
		inner := c.blocks(n, inQuote)
		if w == inQuote || w == inCell || len(inner) == 0 {
			return inner
		}
		if w == inListItem {
			// A list item holds no quote: its blocks stand in the item.
			return inner
		}
		return []Node{{Type: "blockquote", Content: inner}}
	case *ast.List:
		return []Node{c.list(n, w)}
	}
	// Anything else (a link reference definition leaves no node) is kept as
	// its text.
	if t := strings.TrimSpace(c.lines(n)); t != "" {
		return []Node{paragraph(breakLines(t))}
	}
	return nil
}

// lines is the source of a block's lines, each with its line ending.
func (c *converter) lines(n ast.Node) string {
	var b strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		b.Write(seg.Value(c.src))
	}
	return b.String()
}

func (c *converter) list(l *ast.List, w where) Node {
	if !l.IsOrdered() && c.isTaskList(l) && (w == inDoc || w == inListItem) && simpleItems(l) {
		list := Node{Type: "taskList", Attrs: map[string]any{"localId": c.nextID()}}
		for it := l.FirstChild(); it != nil; it = it.NextSibling() {
			state := "TODO"
			if checked, _ := c.taskBox(it); checked {
				state = "DONE"
			}
			list.Content = append(list.Content, Node{Type: "taskItem",
				Attrs: map[string]any{"localId": c.nextID(), "state": state}, Content: cutPrefix(c.inlines(it.FirstChild()), len("[ ] "))})
		}
		return list
	}
	list := Node{Type: "bulletList"}
	if l.IsOrdered() {
		list = Node{Type: "orderedList", Attrs: map[string]any{"order": l.Start}}
	}
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		content := c.blocks(it, inListItem)
		if len(content) == 0 {
			content = []Node{{Type: "paragraph"}}
		}
		list.Content = append(list.Content, Node{Type: "listItem", Content: content})
	}
	return list
}

func (c *converter) nextID() string {
	c.tasks++
	return "ccc-" + strconv.Itoa(c.tasks)
}

// isTaskList says every item of l starts with a task box.
func (c *converter) isTaskList(l *ast.List) bool {
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		if _, ok := c.taskBox(it); !ok {
			return false
		}
	}
	return l.FirstChild() != nil
}

// simpleItems says each item is one line of text: an ADF task item holds
// inline content only.
func simpleItems(l *ast.List) bool {
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		if it.ChildCount() != 1 {
			return false
		}
	}
	return true
}

// taskBox reads a task item's box, GitHub's way: its first line starts
// "[ ] ", "[x] " or "[X] " (ok false when it does not).
func (c *converter) taskBox(item ast.Node) (checked, ok bool) {
	p := item.FirstChild()
	if p == nil || (p.Kind() != ast.KindParagraph && p.Kind() != ast.KindTextBlock) || p.Lines().Len() == 0 {
		return false, false
	}
	seg := p.Lines().At(0)
	line := seg.Value(c.src)
	if len(line) < 4 || line[0] != '[' || line[2] != ']' || (line[3] != ' ' && line[3] != '\t') {
		return false, false
	}
	switch line[1] {
	case ' ':
		return false, true
	case 'x', 'X':
		return true, true
	}
	return false, false
}

// cutPrefix drops the first n characters of the text at the start of
// nodes (a task box, which may span several text nodes).
func cutPrefix(nodes []Node, n int) []Node {
	for n > 0 && len(nodes) > 0 && nodes[0].Type == "text" {
		if len(nodes[0].Text) > n {
			nodes[0].Text = nodes[0].Text[n:]
			break
		}
		n -= len(nodes[0].Text)
		nodes = nodes[1:]
	}
	return trimLeadingSpace(nodes)
}

// inlines converts the inline children of n.
func (c *converter) inlines(n ast.Node) []Node {
	var out []Node
	for k := n.FirstChild(); k != nil; k = k.NextSibling() {
		out = c.inline(out, k, nil)
	}
	return merge(out)
}

func (c *converter) inline(out []Node, n ast.Node, marks []Mark) []Node {
	switch n := n.(type) {
	case *ast.Text:
		out = appendText(out, string(n.Segment.Value(c.src)), marks)
		if n.SoftLineBreak() || n.HardLineBreak() {
			out = append(out, Node{Type: "hardBreak"})
		}
		return out
	case *ast.String:
		return appendText(out, string(n.Value), marks)
	case *ast.CodeSpan:
		var b bytes.Buffer
		for k := n.FirstChild(); k != nil; k = k.NextSibling() {
			if t, ok := k.(*ast.Text); ok {
				b.Write(t.Segment.Value(c.src))
			} else if s, ok := k.(*ast.String); ok {
				b.Write(s.Value)
			}
		}
		// Code combines with a link only.
		code := []Mark{{Type: "code"}}
		for _, m := range marks {
			if m.Type == "link" {
				code = append(code, m)
			}
		}
		return appendText(out, b.String(), code)
	case *ast.Emphasis:
		kind := "em"
		if n.Level == 2 {
			kind = "strong"
		}
		return c.children(out, n, addMark(marks, Mark{Type: kind}))
	case *ast.Link:
		return c.children(out, n, linkMark(marks, string(n.Destination)))
	case *ast.AutoLink:
		url := string(n.URL(c.src))
		label := string(n.Label(c.src))
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
			url = "mailto:" + url
		}
		return appendText(out, label, linkMark(marks, url))
	case *ast.Image:
		before := len(out)
		out = c.children(out, n, linkMark(marks, string(n.Destination)))
		if len(out) == before {
			out = appendText(out, string(n.Destination), linkMark(marks, string(n.Destination)))
		}
		return out
	case *ast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			out = appendText(out, string(seg.Value(c.src)), marks)
		}
		return out
	}
	return c.children(out, n, marks)
}

func (c *converter) children(out []Node, n ast.Node, marks []Mark) []Node {
	for k := n.FirstChild(); k != nil; k = k.NextSibling() {
		out = c.inline(out, k, marks)
	}
	return out
}

// linkMark adds a link to marks when href is a web or mail address; any
// other scheme (javascript:, data:) stays text.
func linkMark(marks []Mark, href string) []Mark {
	lower := strings.ToLower(strings.TrimSpace(href))
	if !strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "mailto:") {
		return marks
	}
	out := make([]Mark, 0, len(marks)+1)
	for _, m := range marks {
		if m.Type != "link" {
			out = append(out, m)
		}
	}
	return append(out, Mark{Type: "link", Attrs: map[string]any{"href": strings.TrimSpace(href)}})
}

func addMark(marks []Mark, m Mark) []Mark {
	for _, have := range marks {
		if have.Type == m.Type {
			return marks
		}
	}
	out := make([]Mark, 0, len(marks)+1)
	out = append(out, marks...)
	return append(out, m)
}

func withMark(nodes []Node, m Mark) []Node {
	for i := range nodes {
		if nodes[i].Type == "text" && !hasMark(nodes[i].Marks, "code") {
			nodes[i].Marks = addMark(nodes[i].Marks, m)
		}
	}
	return nodes
}

func hasMark(marks []Mark, kind string) bool {
	for _, m := range marks {
		if m.Type == kind {
			return true
		}
	}
	return false
}

func appendText(out []Node, s string, marks []Mark) []Node {
	if s == "" {
		return out
	}
	n := textNode(s)
	if len(marks) > 0 {
		n.Marks = append([]Mark(nil), marks...)
	}
	return append(out, n)
}

func textNode(s string) Node { return Node{Type: "text", Text: s} }

func paragraph(content []Node) Node { return Node{Type: "paragraph", Content: content} }

func codeBlock(src, lang string) Node {
	n := Node{Type: "codeBlock"}
	if lang != "" {
		n.Attrs = map[string]any{"language": lang}
	}
	if s := strings.TrimSuffix(src, "\n"); s != "" {
		n.Content = []Node{textNode(s)}
	}
	return n
}

// breakLines is text whose line ends are hard breaks.
func breakLines(s string) []Node {
	var out []Node
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			out = append(out, Node{Type: "hardBreak"})
		}
		out = appendText(out, line, nil)
	}
	return out
}

func trimLeadingSpace(nodes []Node) []Node {
	if len(nodes) > 0 && nodes[0].Type == "text" {
		nodes[0].Text = strings.TrimLeft(nodes[0].Text, " ")
		if nodes[0].Text == "" {
			return nodes[1:]
		}
	}
	return nodes
}

// merge joins neighbouring text nodes with the same marks.
func merge(nodes []Node) []Node {
	var out []Node
	for _, n := range nodes {
		if k := len(out) - 1; k >= 0 && n.Type == "text" && out[k].Type == "text" && sameMarks(out[k].Marks, n.Marks) {
			out[k].Text += n.Text
			continue
		}
		out = append(out, n)
	}
	return out
}

func sameMarks(a, b []Mark) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type || (a[i].Type == "link" && a[i].Attrs["href"] != b[i].Attrs["href"]) {
			return false
		}
	}
	return true
}

// PlainText is the text of nodes as a person reads it: blocks on lines of
// their own, hard breaks as line ends. The marker's tag covers it, since
// Jira may rewrite a stored document's structure (ids, attributes) but
// keeps its text.
func PlainText(nodes []Node) string {
	var b strings.Builder
	var walk func(ns []Node)
	walk = func(ns []Node) {
		for _, n := range ns {
			switch n.Type {
			case "text":
				b.WriteString(n.Text)
			case "hardBreak":
				b.WriteByte('\n')
			default:
				walk(n.Content)
				if len(n.Content) > 0 && n.Type != "listItem" && n.Type != "tableRow" && n.Type != "tableCell" && n.Type != "tableHeader" {
					b.WriteByte('\n')
				}
			}
		}
	}
	walk(nodes)
	return strings.Join(strings.Fields(b.String()), " ")
}
