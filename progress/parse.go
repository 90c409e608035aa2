package progress

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"

	"github.com/ccc-checkpoint/ccc/markdown"
)

// kind identifies a section ccc understands. The order is the canonical order of the sections, used to
// place a section the document does not have yet.
type kind int

const (
	kindUnknown kind = iota
	kindGoal
	kindIssue
	kindCompleted
	kindCurrent
	kindRemaining
	kindDecisions
	kindLearnings
	kindBlockers
	kindPrompt
	numKinds
)

// headings maps normalised heading text to its section.
var headings = map[string]kind{
	"goal":                kindGoal,
	"linear issue":        kindIssue,
	"completed tasks":     kindCompleted,
	"current task":        kindCurrent,
	"remaining tasks":     kindRemaining,
	"decisions made":      kindDecisions,
	"learnings":           kindLearnings,
	"blockers":            kindBlockers,
	"blocked/flagged":     kindBlockers,
	"continuation prompt": kindPrompt,
}

// titles are the headings ccc writes for a section it adds.
var titles = [numKinds]string{
	kindGoal:      "Goal",
	kindIssue:     "Linear Issue",
	kindCompleted: "Completed Tasks",
	kindCurrent:   "Current Task",
	kindRemaining: "Remaining Tasks",
	kindDecisions: "Decisions Made",
	kindLearnings: "Learnings",
	kindBlockers:  "Blockers",
	kindPrompt:    "Continuation Prompt",
}

// canonical marks the sections of ccc's own template.
var canonical = [numKinds]bool{
	kindCompleted: true, kindCurrent: true, kindRemaining: true,
	kindDecisions: true, kindBlockers: true, kindPrompt: true,
}

// fieldKind identifies a header field.
type fieldKind int

const (
	fieldIssue fieldKind = iota
	fieldSession
	fieldMode
	fieldNext
	fieldUnknown
)

var fieldNames = map[string]fieldKind{
	"issue":          fieldIssue,
	"session":        fieldSession,
	"execution mode": fieldMode,
	"next action":    fieldNext,
}

var fieldLabels = [...]string{fieldIssue: "Issue", fieldSession: "Session", fieldMode: "Execution Mode", fieldNext: "Next Action"}

// source is what Render needs to reproduce the parsed file: its raw parts and the model as parsed.
type source struct {
	nl       string
	bom      bool
	template bool // a New document: write every canonical section, even empty ones
	pre      preamble
	secs     []section
	present  [numKinds]bool
	flagged  bool // the blockers are under the legacy "Blocked / Flagged" heading
	snap     Document
	// orig is the source as given, for the line numbers of CheckRender.
	orig []byte
	// openEnd records that the source ends with a code block or HTML block, which may be unclosed and
	// then swallow sections appended after it.
	openEnd bool
}

// preamble is the text before the first level-2 heading, kept as lines with their line endings.
type preamble struct {
	lines   []string
	h1      int // index of the title heading's first line, -1 when there is none
	h1End   int
	h1Line  int // 1-based line of the title heading
	fields  map[int]fieldRef
	unknown int                // number of unknown field lines
	has     [fieldUnknown]bool // which known fields have a line
	lineOf  [fieldUnknown]int  // 1-based line of each known field
}

type fieldRef struct {
	kind    fieldKind
	unknown int // index into Document.Fields for fieldUnknown
}

// section is one level-2 section as parsed. For a known section, raw[rs:re] is the part ccc rewrites
// when the model changes (the item list, the task paragraph, the free text); everything else in raw is
// copied unchanged. rs == re marks where the part goes when the section has none yet.
type section struct {
	kind   kind
	dup    bool // a later copy of a known section, kept as unknown text
	title  string
	line   int
	raw    string
	body   int
	rs, re int
	list   bool // the rewritten part is a list
	// extra holds lines worth a Validate warning: a second list in a list section, a second item in
	// Current Task.
	extra []int
}

var (
	fieldRe      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\*\*([^*]+?)\s*:\s*\*\*\s*(.*)$`) })
	fieldAfterRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\*\*([^*]+?)\*\*\s*:\s*(.*)$`) })
	keyRe        = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9]*-[0-9]+$`) })
	keyFindRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[A-Z][A-Z0-9]*-[0-9]+\b`) })
	checkboxRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[([ xX])\](?:[ \t]+|\n|$)`) })
	unblockRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)^(.*?)\s*\(unblocked by:\s*(.*?)\s*\)$`) })
	learningRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)^\[([^\]\n]+)\][ \t]*(.*)$`) })
)

// Parse reads a progress file. It fails only for input over MaxSize, input that is not text (invalid
// UTF-8 or NUL bytes) and Markdown past markdown.Limit (lists or block quotes nested too deep, too
// many lines inside nested ones, or too many lines), which no parse reads in bounded time and memory;
// any other text parses, with what ccc does not understand kept for Render.
func Parse(src []byte) (*Document, error) {
	if msg := tooBig(src); msg != "" {
		return nil, &ParseError{Line: 1, Msg: msg}
	}
	if err := checkText(src); err != nil {
		return nil, err
	}
	if e := markdown.Limit(src); e != nil {
		return nil, &ParseError{Line: e.Line, Msg: e.Msg}
	}
	md := markdown.Parse(src)
	s := &source{nl: md.Newline, bom: md.BOM, orig: src}
	d := &Document{src: s}
	parsePreamble(d, md)
	for i := range md.Sections {
		parseSection(d, md, &md.Sections[i])
	}
	switch n := md.Root.LastChild().(type) {
	case *ast.FencedCodeBlock:
		s.openEnd = true
	case *ast.HTMLBlock:
		s.openEnd = n.HTMLBlockType <= ast.HTMLBlockType5
	}
	s.snap = d.clone()
	return d, nil
}

// tooBig says why a source over MaxSize is not read; "" for one within it.
func tooBig(src []byte) string {
	if len(src) <= MaxSize {
		return ""
	}
	return fmt.Sprintf("%d bytes, over the %d MB limit for a progress document", len(src), MaxSize>>20)
}

func checkText(src []byte) error {
	if bytes.IndexByte(src, 0) < 0 && utf8.Valid(src) { // the usual answer, word by word
		return nil
	}
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == 0:
			return &ParseError{Line: line, Msg: "NUL byte: not a text file"}
		case c == '\n':
			line++
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n <= 1 {
				return &ParseError{Line: line, Msg: "invalid UTF-8: not a text file"}
			}
			i += n
			continue
		}
		i++
	}
	return nil
}

func parsePreamble(d *Document, md *markdown.Doc) {
	p := &d.src.pre
	p.h1 = -1
	p.fields = map[int]fieldRef{}
	raw := string(md.Src[md.Preamble.Start:md.Preamble.End])
	p.lines = strings.SplitAfter(raw, "\n")
	if p.lines[len(p.lines)-1] == "" {
		p.lines = p.lines[:len(p.lines)-1]
	}
	for _, b := range md.Preamble.Blocks {
		if h, ok := b.(*ast.Heading); ok && h.Level == 1 && p.h1 < 0 {
			d.Title = markdown.HeadingText(md.Src, h)
			p.h1Line = md.Of(h.Pos())
			p.h1 = p.h1Line - 1
			p.h1End = md.Of(md.HeadingEnd(h)) - 1
			// Fields are the lines between the title and the first section; without a title, the
			// whole preamble is the header.
			for k := range p.fields {
				delete(p.fields, k)
			}
			d.Fields, p.has, p.unknown = nil, [fieldUnknown]bool{}, 0
			d.Issue, d.Session, d.Mode, d.NextAction = Issue{}, "", "", ""
			continue
		}
		para, ok := b.(*ast.Paragraph)
		if !ok {
			continue
		}
		for i := 0; i < para.Lines().Len(); i++ {
			n := md.Of(para.Lines().At(i).Start)
			name, value, ok := parseField(string(md.Text(n)))
			if !ok {
				continue
			}
			k, known := fieldNames[normalise(name)]
			if !known || p.has[k] {
				p.fields[n-1] = fieldRef{kind: fieldUnknown, unknown: len(d.Fields)}
				p.unknown++
				d.Fields = append(d.Fields, Field{Name: name, Value: value})
				continue
			}
			p.fields[n-1] = fieldRef{kind: k}
			p.has[k] = true
			p.lineOf[k] = n
			switch k {
			case fieldIssue:
				d.Issue = parseIssue(value)
			case fieldSession:
				d.Session = value
			case fieldMode:
				d.Mode = value
			case fieldNext:
				d.NextAction = value
			}
		}
	}
}

// parseField splits a header line "**Name:** value" (or "**Name**: value").
func parseField(line string) (name, value string, ok bool) {
	line = strings.TrimSpace(line)
	m := fieldRe().FindStringSubmatch(line)
	if m == nil {
		m = fieldAfterRe().FindStringSubmatch(line)
	}
	if m == nil || strings.TrimSpace(m[1]) == "" {
		return "", "", false
	}
	return strings.TrimSpace(m[1]), strings.TrimSpace(m[2]), true
}

// normalise folds a heading or field name for matching: case, surrounding and repeated whitespace, a
// trailing colon, and the spacing around "/" do not matter.
func normalise(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	s = strings.TrimSpace(strings.TrimSuffix(s, ":"))
	return strings.ReplaceAll(strings.ReplaceAll(s, " /", "/"), "/ ", "/")
}

// splitIssue cuts "KEY — title" at its first separator (an em dash, an en dash or a hyphen, each with
// spaces around it).
func splitIssue(v string) (key, title string) {
	cut := -1
	sepLen := 0
	for _, sep := range []string{" — ", " – ", " - "} {
		if i := strings.Index(v, sep); i >= 0 && (cut < 0 || i < cut) {
			cut, sepLen = i, len(sep)
		}
	}
	if cut < 0 {
		return strings.TrimSpace(v), ""
	}
	return strings.TrimSpace(v[:cut]), strings.TrimSpace(v[cut+sepLen:])
}

// parseIssue reads "CIA-123", "CIA-123 — title" or a Markdown link whose text or address holds the key.
// When no key can be found, the text before the separator is kept as the key, so Validate can show it.
func parseIssue(v string) Issue {
	key, title := splitIssue(strings.TrimSpace(v))
	if k, ok := NormalIssue(key); ok {
		key = k
	}
	if !keyRe().MatchString(key) {
		if k := keyFindRe().FindString(key); k != "" {
			key = k
		}
	}
	return Issue{Key: key, Title: title}
}

func parseSection(d *Document, md *markdown.Doc, ms *markdown.Section) {
	s := d.src
	sec := section{
		title: ms.Title,
		line:  ms.Line,
		raw:   string(md.Src[ms.Start:ms.End]),
		body:  ms.BodyStart - ms.Start,
	}
	k := headings[normalise(ms.Title)]
	if k != kindUnknown && s.present[k] {
		sec.dup = true
		k = kindUnknown
	}
	sec.kind = k
	if k != kindUnknown {
		s.present[k] = true
		var rs, re int
		switch k {
		case kindGoal, kindPrompt:
			rs, re = freeText(md, ms)
			text := freeTextOf(md, rs, re)
			if k == kindGoal {
				d.Goal = text
			} else {
				d.ContinuationPrompt, d.PromptMark = splitMark(text)
			}
		case kindIssue:
			// The header's Issue field wins; the section is still rewritten when the issue changes.
			if s.pre.has[fieldIssue] {
				rs, re = issueRange(md, ms)
			} else {
				rs, re = parseIssueSection(d, md, ms)
			}
		case kindCurrent:
			sec.list = true
			rs, re = parseCurrent(d, md, ms, &sec)
		default:
			sec.list = true
			if k == kindBlockers && normalise(ms.Title) == "blocked/flagged" {
				s.flagged = true
			}
			rs, re = parseList(d, md, ms, k, &sec)
		}
		sec.rs, sec.re = rs-ms.Start, re-ms.Start
	}
	s.secs = append(s.secs, sec)
}

// freeText returns the body without its surrounding blank lines.
func freeText(md *markdown.Doc, ms *markdown.Section) (int, int) {
	first, last := md.Of(ms.BodyStart), md.Of(ms.End-1)
	if ms.End <= ms.BodyStart {
		return ms.BodyStart, ms.BodyStart
	}
	for first <= last && markdown.IsBlank(md.Text(first)) {
		first++
	}
	for last >= first && markdown.IsBlank(md.Text(last)) {
		last--
	}
	if first > last {
		return ms.BodyStart, ms.BodyStart
	}
	return md.Start(first), md.End(last)
}

func freeTextOf(md *markdown.Doc, start, end int) string {
	if start >= end {
		return ""
	}
	var lines []string
	for n := md.Of(start); n <= md.Count() && md.Start(n) < end; n++ {
		lines = append(lines, strings.TrimRight(string(md.Text(n)), "\r"))
	}
	return strings.Join(lines, "\n")
}

// issueRange is the part of a "Linear Issue" section that holds the issue: its first paragraph.
func issueRange(md *markdown.Doc, ms *markdown.Section) (int, int) {
	if len(ms.Blocks) > 0 {
		if p, ok := ms.Blocks[0].(*ast.Paragraph); ok {
			return md.BlockRange(p, ms.End)
		}
	}
	return ms.BodyStart, ms.BodyStart
}

// parseIssueSection reads the issue from the section's first block when it is a paragraph ("None"
// means no issue); the paragraph is what an edit rewrites.
func parseIssueSection(d *Document, md *markdown.Doc, ms *markdown.Section) (int, int) {
	rs, re := issueRange(md, ms)
	if text := strings.Join(strings.Fields(string(md.Src[rs:re])), " "); !isNone(text) {
		d.Issue = parseIssue(text)
	}
	return rs, re
}

// firstList returns the section's first top-level list; later lists are kept as text.
func firstList(ms *markdown.Section, sec *section, md *markdown.Doc) *ast.List {
	var first *ast.List
	for _, b := range ms.Blocks {
		if l, ok := b.(*ast.List); ok {
			if first == nil {
				first = l
			} else {
				sec.extra = append(sec.extra, md.Of(l.Pos()))
			}
		}
	}
	return first
}

func parseList(d *Document, md *markdown.Doc, ms *markdown.Section, k kind, sec *section) (int, int) {
	l := firstList(ms, sec, md)
	if l == nil {
		// "None" written as a paragraph is the empty marker; it is what an edit replaces.
		for _, b := range ms.Blocks {
			if p, ok := b.(*ast.Paragraph); ok && isNone(paragraphText(md, p, ms.End)) {
				return md.BlockRange(p, ms.End)
			}
		}
		return ms.BodyStart, ms.BodyStart
	}
	items := md.Items(l, ms.End)
	rs, re := items[0].Start, items[len(items)-1].End
	if len(items) == 1 && isNone(items[0].Text) {
		return rs, re
	}
	switch k {
	case kindCompleted:
		d.Completed = slices.Grow(d.Completed, len(items))
	case kindRemaining:
		d.Remaining = slices.Grow(d.Remaining, len(items))
	}
	for _, it := range items {
		switch k {
		case kindCompleted:
			d.Completed = append(d.Completed, parseTask(it.Text, kindCompleted))
		case kindRemaining:
			d.Remaining = append(d.Remaining, parseTask(it.Text, kindRemaining))
		case kindDecisions:
			d.Decisions = append(d.Decisions, parseDecision(it.Text))
		case kindLearnings:
			d.Learnings = append(d.Learnings, parseLearning(it.Text))
		case kindBlockers:
			d.Blockers = append(d.Blockers, parseBlocker(it.Text))
		}
	}
	return rs, re
}

// parseCurrent reads the current task from the first item of the section's first list or, when the
// section has no list, from its first paragraph. Later items are kept as text.
func parseCurrent(d *Document, md *markdown.Doc, ms *markdown.Section, sec *section) (int, int) {
	if l := firstList(ms, sec, md); l != nil {
		items := md.Items(l, ms.End)
		if len(items) > 1 {
			sec.extra = append(sec.extra, items[1].Line)
		}
		if !isNone(items[0].Text) {
			t := parseTask(items[0].Text, kindCurrent)
			d.Current = &t
		}
		return items[0].Start, items[0].End
	}
	for _, b := range ms.Blocks {
		if p, ok := b.(*ast.Paragraph); ok {
			if text := paragraphText(md, p, ms.End); !isNone(text) {
				t := parseTask(text, kindCurrent)
				d.Current = &t
			}
			return md.BlockRange(p, ms.End)
		}
	}
	return ms.BodyStart, ms.BodyStart
}

func paragraphText(md *markdown.Doc, p *ast.Paragraph, limit int) string {
	rs, re := md.BlockRange(p, limit)
	lines := strings.Split(strings.TrimRight(string(md.Src[rs:re]), "\r\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	// A line of white space Go trims but Markdown keeps (a vertical tab) must not leave an empty line.
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// isNone reports whether an item is the empty-section marker "None" (any case, optional period).
func isNone(text string) bool {
	return strings.EqualFold(strings.TrimSuffix(strings.TrimSpace(text), "."), "none")
}

// splitBox removes a leading task-list checkbox.
func splitBox(text string) (rest string, box, checked bool) {
	if !strings.HasPrefix(text, "[") {
		return text, false, false
	}
	m := checkboxRe().FindStringSubmatchIndex(text)
	if m == nil {
		return text, false, false
	}
	return text[m[1]:], true, text[m[2]] != ' '
}

// cutDoneMark removes a trailing ✓ and the space before it.
func cutDoneMark(s string) (string, bool) {
	rest, ok := strings.CutSuffix(s, "✓")
	if !ok {
		return s, false
	}
	return strings.TrimRight(rest, " \t\n\f\r"), true
}

// parseTask reads a task item of the given section. It is also how edits read their text, so what an
// edit adds renders and parses back to the same task.
func parseTask(text string, k kind) Task {
	rest, box, checked := splitBox(text)
	rest, mark := splitTaskMark(rest)
	t := Task{Text: rest, Checkbox: box, Done: checked, Mark: mark}
	switch k {
	case kindCompleted:
		// The ✓ belongs at the end of the first line; an agent may also put it after the last one.
		first, more, multi := strings.Cut(t.Text, "\n")
		if f, ok := cutDoneMark(first); ok {
			t.Text = f
			if multi {
				t.Text += "\n" + more
			}
		} else {
			t.Text, _ = cutDoneMark(t.Text)
		}
		if !box {
			t.Done = true
		}
	case kindCurrent:
		t = withStatus(t)
	}
	return t
}

// withStatus splits a current task's text at its first " — " into description and status, as the
// Current Task section reads it. A captured task (one with a mark) splits at its last: ccc wrote its
// status after the agent's text, which may hold the dash itself.
func withStatus(t Task) Task {
	i := strings.Index(t.Text, " — ")
	if t.Mark != "" {
		i = strings.LastIndex(t.Text, " — ")
	}
	if i >= 0 {
		t.Text, t.Status = strings.TrimSpace(t.Text[:i]), strings.TrimSpace(t.Text[i+len(" — "):])
	}
	return t
}

func parseDecision(text string) Decision {
	rest, box, checked := splitBox(text)
	d := Decision{What: rest, Checkbox: box, Checked: checked}
	if what, why, ok := strings.Cut(rest, ": "); ok {
		d.What, d.Why = strings.TrimSpace(what), strings.TrimSpace(why)
	}
	return d
}

func parseBlocker(text string) Blocker {
	rest, box, checked := splitBox(text)
	b := Blocker{Description: rest, Checkbox: box, Checked: checked}
	if m := unblockRe().FindStringSubmatch(rest); m != nil {
		b.Description, b.UnblockedBy = strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
	}
	return b
}

func parseLearning(text string) Learning {
	rest, box, checked := splitBox(text)
	l := Learning{Text: rest, Checkbox: box, Checked: checked}
	if m := learningRe().FindStringSubmatch(rest); m != nil {
		l.Time, l.Text = strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
	}
	return l
}

// clone copies the model without the source bookkeeping. Empty lists become nil: the file cannot tell
// them apart.
func (d *Document) clone() Document {
	c := *d
	c.src = nil
	c.Fields = cloneList(d.Fields)
	c.Completed = cloneList(d.Completed)
	c.Remaining = cloneList(d.Remaining)
	c.Decisions = cloneList(d.Decisions)
	c.Blockers = cloneList(d.Blockers)
	c.Learnings = cloneList(d.Learnings)
	if d.Current != nil {
		t := *d.Current
		c.Current = &t
	}
	return c
}

func cloneList[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}
