package progress

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/ccc-checkpoint/ccc/markdown"
)

// separator goes between a rewritten list and indented text after it that would otherwise become part
// of the list's last item.
const separator = "<!-- -->"

// Render writes the document. Sections and header lines whose model did not change since Parse are
// copied byte for byte; changed ones are rewritten in ccc's format with the file's line ending; sections
// the document lacks are added at their canonical place.
func (d *Document) Render() []byte {
	s := d.src
	if s == nil {
		s = &source{nl: "\n", pre: preamble{h1: -1}}
	}
	var b strings.Builder
	// The rendering is about as long as the source: grown once, not doubled
	// from nothing.
	size := 64
	for _, l := range s.pre.lines {
		size += len(l)
	}
	for i := range s.secs {
		size += len(s.secs[i].raw)
	}
	b.Grow(size + size/8)
	if s.bom {
		b.WriteString(markdown.BOM)
	}
	w := &writer{b: &b, nl: s.nl}

	// plan lists the sections in output order: indexes into s.secs, or -(kind) for a section to add.
	plan := make([]int, 0, len(s.secs)+int(numKinds))
	for i := range s.secs {
		plan = append(plan, i)
	}
	kindAt := func(p int) kind {
		if p < 0 {
			return kind(-p)
		}
		return s.secs[p].kind
	}
	// An edited document with a Continuation Prompt (which every checkpoint writes) gets the canonical
	// sections it lacks, so that what ccc writes passes Validate; an unchanged one keeps its bytes.
	hasPrompt := s.present[kindPrompt] || d.ContinuationPrompt != "" || d.PromptMark != ""
	fill := s.template || hasPrompt && !d.same(&s.snap)
	for k := kindGoal; k < numKinds; k++ {
		if s.present[k] || !d.wants(k, fill) {
			continue
		}
		plan = slices.Insert(plan, insertAt(plan, k, kindAt), -int(k))
	}

	d.renderPreamble(w, s, len(plan) > 0)

	lastOriginal := len(s.secs) - 1
	closed := false
	// following is the first line after plan[i], which a list ending there must not absorb.
	following := func(i int) string {
		switch {
		case i+1 >= len(plan):
			return ""
		case plan[i+1] >= 0:
			first, _, _ := strings.Cut(s.secs[plan[i+1]].raw, "\n")
			return first
		}
		return "## " + titles[-plan[i+1]]
	}
	for i, p := range plan {
		if p >= 0 {
			d.renderSection(w, &s.secs[p], s, i == len(plan)-1, following(i))
			continue
		}
		if !closed && (lastOriginal < 0 || i > 0 && plan[i-1] == lastOriginal) {
			// Appending after the last original byte: close a code block or HTML block left open there.
			closed = true
			if d.mayBeOpen(s) {
				if c := markdown.Closer([]byte(b.String())); c != "" {
					w.line(c)
				}
			}
		}
		w.blankBefore()
		w.line("## " + titles[-p])
		lines, _ := d.listLines(kind(-p), "", false)
		for _, l := range lines {
			w.line(l)
		}
		if isListKind(kind(-p)) && markdown.Indent([]byte(following(i))) >= 2 {
			w.blank()
			w.line(separator)
		}
		if i < len(plan)-1 {
			w.blank()
		}
	}
	// The builder is dropped here, so its bytes can be returned without a copy.
	out := b.String()
	return unsafe.Slice(unsafe.StringData(out), len(out))
}

// same reports whether the model is the one snap holds, as Render compares them: empty and nil lists
// are the same.
func (d *Document) same(snap *Document) bool {
	if d.Title != snap.Title || d.Session != snap.Session || d.Mode != snap.Mode || d.NextAction != snap.NextAction ||
		!slices.Equal(d.Fields, snap.Fields) {
		return false
	}
	for k := kindGoal; k < numKinds; k++ {
		if d.changed(k, snap) {
			return false
		}
	}
	return true
}

// mayBeOpen reports whether the output may end inside a code or HTML block: the source did, or its last
// section was rewritten with free text that may.
func (d *Document) mayBeOpen(s *source) bool {
	if s.openEnd {
		return true
	}
	if n := len(s.secs); n > 0 {
		k := s.secs[n-1].kind
		return (k == kindGoal || k == kindPrompt) && d.changed(k, &s.snap)
	}
	return false
}

// wants reports whether a section the source lacks must be added: when the model has something for it,
// or, with fill, when it is one of the canonical sections.
func (d *Document) wants(k kind, fill bool) bool {
	switch k {
	case kindIssue:
		return false // a new issue goes into the header
	case kindGoal:
		return d.Goal != ""
	case kindLearnings:
		return len(d.Learnings) > 0
	}
	return fill && canonical[k] || !d.emptyKind(k)
}

// emptyKind reports whether the model holds nothing for a section (an empty Blockers still renders
// "- None", which is no reason to add the section).
func (d *Document) emptyKind(k kind) bool {
	switch k {
	case kindCompleted:
		return len(d.Completed) == 0
	case kindCurrent:
		return d.Current == nil
	case kindRemaining:
		return len(d.Remaining) == 0
	case kindDecisions:
		return len(d.Decisions) == 0
	case kindBlockers:
		return len(d.Blockers) == 0
	case kindPrompt:
		return d.ContinuationPrompt == "" && d.PromptMark == ""
	}
	return true
}

// insertAt places a new section after the present section of the nearest lower rank, else before the
// one of the nearest higher rank, else at the end.
func insertAt(plan []int, k kind, kindAt func(int) kind) int {
	after, before := -1, -1
	var afterKind, beforeKind kind
	for i, p := range plan {
		pk := kindAt(p)
		if pk == kindUnknown {
			continue
		}
		if pk < k && (after < 0 || pk > afterKind) {
			after, afterKind = i, pk
		}
		if pk > k && (before < 0 || pk < beforeKind) {
			before, beforeKind = i, pk
		}
	}
	switch {
	case after >= 0:
		return after + 1
	case before >= 0:
		return before
	}
	return len(plan)
}

// changed reports whether the model of a section differs from what was parsed.
func (d *Document) changed(k kind, snap *Document) bool {
	switch k {
	case kindGoal:
		return d.Goal != snap.Goal
	case kindIssue:
		return d.Issue != snap.Issue
	case kindCompleted:
		return !slices.Equal(d.Completed, snap.Completed)
	case kindCurrent:
		return (d.Current == nil) != (snap.Current == nil) || d.Current != nil && *d.Current != *snap.Current
	case kindRemaining:
		return !slices.Equal(d.Remaining, snap.Remaining)
	case kindDecisions:
		return !slices.Equal(d.Decisions, snap.Decisions)
	case kindLearnings:
		return !slices.Equal(d.Learnings, snap.Learnings)
	case kindBlockers:
		return !slices.Equal(d.Blockers, snap.Blockers)
	case kindPrompt:
		return d.ContinuationPrompt != snap.ContinuationPrompt || d.PromptMark != snap.PromptMark
	}
	return false
}

// renderSection writes a section's text: the original bytes when its model is unchanged, otherwise
// the original with the rewritten part spliced in. last tells that nothing follows the section,
// following is the first line that does.
func (d *Document) renderSection(w *writer, sec *section, s *source, last bool, following string) {
	if sec.kind == kindUnknown || !d.changed(sec.kind, &s.snap) {
		w.raw(sec.raw)
		return
	}
	nl := s.nl
	head, rest := sec.raw[:sec.rs], sec.raw[sec.re:]
	if !strings.HasSuffix(head, "\n") {
		head += nl
	}
	next := ""
	if sec.list && sec.kind != kindCurrent { // Current's later items may join its list
		next = firstNonBlank(rest)
	}
	// Only the first list holds the items: an emptied one must stay, as "None", or the next list
	// would take its place.
	lines, apart := d.listLines(sec.kind, next, sec.list && len(sec.extra) > 0)
	b := w.b
	b.WriteString(head)
	afterHeading := sec.rs <= sec.body
	switch {
	case len(lines) > 0:
		if !afterHeading && !endsBlank(head) {
			b.WriteString(nl)
		}
		for _, l := range lines {
			b.WriteString(l)
			b.WriteString(nl)
		}
		after := firstNonBlank(rest)
		if after == "" {
			after = following // an indented heading of the next section would join the list too
		}
		if sec.list && (!apart || markdown.Indent([]byte(after)) >= 2) {
			b.WriteString(nl + separator + nl)
		}
		// A blank line keeps what follows, even the next section's setext heading, out of a
		// paragraph or list item that ends here.
		if startsNonBlank(rest) || rest == "" && !last {
			b.WriteString(nl)
		}
	case !afterHeading && endsBlank(head):
		rest = dropBlankLines(rest) // no double blank line where the list was
	case !afterHeading && startsNonBlank(rest):
		b.WriteString(nl)
	}
	b.WriteString(rest)
}

// isListKind reports whether ccc writes a section's model as a list (the others are text).
func isListKind(k kind) bool { return k != kindGoal && k != kindPrompt && k != kindIssue }

// bullets are the list markers a rewritten list may use, in order of preference.
var bullets = []string{"-", "*", "+"}

// listLines renders a section's model with the first bullet that makes no item read as a thematic
// break ("- --") and differs from the list that starts next (lists with the same bullet merge). apart
// is false when only a bullet that merges was possible; the caller must separate the lists. An empty
// list becomes the placeholder item "None" when placeholder is set.
func (d *Document) listLines(k kind, next string, placeholder bool) (lines []string, apart bool) {
	if !isListKind(k) {
		return d.renderKind(k, ""), true
	}
	var fallback []string
	for _, m := range bullets {
		lines := d.renderKind(k, m)
		if len(lines) == 0 && placeholder {
			lines = []string{m + " None"}
		}
		if slices.ContainsFunc(lines, isBreak) {
			continue
		}
		if !startsList(next, m) {
			return lines, true
		}
		if fallback == nil {
			fallback = lines
		}
	}
	return fallback, false
}

// isBreak reports whether a line reads as a thematic break ("- --", "* * *").
func isBreak(line string) bool {
	if strings.Trim(line, " \t-*_") != "" {
		return false // most lines: decided without a copy
	}
	s := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, line)
	return len(s) >= 3 && strings.Trim(s, s[:1]) == "" && strings.ContainsAny(s[:1], "-*_") &&
		markdown.Indent([]byte(line)) < 4
}

// startsList reports whether a line starts a list item with the given bullet.
func startsList(line, bullet string) bool {
	rest := strings.TrimLeft(line, " ")
	if len(line)-len(rest) > 3 || !strings.HasPrefix(rest, bullet) {
		return false
	}
	rest = rest[len(bullet):]
	return rest == "" || rest[0] == ' ' || rest[0] == '\t'
}

// renderKind returns the lines ccc writes for a section's model, without line endings.
func (d *Document) renderKind(k kind, marker string) []string {
	var list listBuf
	item := func(text string, box, checked bool) {
		list.item(marker, text, box, checked)
	}
	switch k {
	case kindGoal:
		return textLines(d.Goal)
	case kindPrompt:
		if d.PromptMark == "" {
			return textLines(d.ContinuationPrompt)
		}
		return append(textLines(d.ContinuationPrompt), markLine(d.PromptMark))
	case kindIssue:
		if d.Issue == (Issue{}) {
			return []string{"None"} // removing the paragraph would promote the next one
		}
		return []string{d.Issue.String()}
	case kindCompleted:
		list.grow(d.Completed, marker)
		for _, t := range d.Completed {
			if t.Mark == "" && !t.Checkbox && list.doneLine(marker, t.Text) {
				continue
			}
			text := t.Text
			first, more, multi := strings.Cut(text, "\n")
			_, endsFirst := cutDoneMark(first)
			_, endsLast := cutDoneMark(text)
			// Parse removes one ✓; a checkbox item needs none, unless its text ends with one.
			if !t.Checkbox || endsFirst || endsLast {
				text = strings.TrimLeft(first+" ✓", " ")
				if multi {
					text += "\n" + more
				}
			}
			item(withTaskMark(text, t.Mark), t.Checkbox, t.Done)
		}
	case kindCurrent:
		if d.Current == nil {
			return []string{marker + " None"}
		}
		text := d.Current.Text
		if d.Current.Status != "" {
			text += " — " + d.Current.Status
		}
		item(withTaskMark(text, d.Current.Mark), d.Current.Checkbox, d.Current.Done)
	case kindRemaining:
		list.grow(d.Remaining, marker)
		for _, t := range d.Remaining {
			item(withTaskMark(t.Text, t.Mark), t.Checkbox, t.Done)
		}
	case kindDecisions:
		for _, x := range d.Decisions {
			text := x.What
			if x.Why != "" {
				text += ": " + x.Why
			}
			item(text, x.Checkbox, x.Checked)
		}
	case kindLearnings:
		for _, x := range d.Learnings {
			text := x.Text
			if x.Time != "" {
				text = strings.TrimRight("["+x.Time+"] "+text, " ")
			}
			item(text, x.Checkbox, x.Checked)
		}
	case kindBlockers:
		if len(d.Blockers) == 0 {
			return []string{marker + " None"}
		}
		for _, x := range d.Blockers {
			text := x.Description
			if x.UnblockedBy != "" {
				text = strings.TrimLeft(text+" (unblocked by: "+x.UnblockedBy+")", " ")
			}
			item(text, x.Checkbox, x.Checked)
		}
	}
	return list.lines()
}

// listBuf collects a list's lines in one buffer, cut into lines at the end:
// one allocation for the list rather than two or three per item (issue 26:
// a file of 10,000 tasks rendered 25,000 small strings).
type listBuf struct {
	b    strings.Builder
	ends []int
}

// grow makes room for tasks, each about its text and a marker long.
func (l *listBuf) grow(tasks []Task, marker string) {
	n := 0
	for _, t := range tasks {
		n += len(marker) + 1 + len(t.Text) + len(" ✓")
	}
	l.b.Grow(n)
	l.ends = slices.Grow(l.ends, len(tasks))
}

func (l *listBuf) end() { l.ends = append(l.ends, l.b.Len()) }

// item adds the lines of itemLines(marker, text, box, checked), a plain
// one-line item without copying it first.
func (l *listBuf) item(marker, text string, box, checked bool) {
	if !box && text != "" && !strings.Contains(text, "\n") {
		l.b.WriteString(marker)
		l.b.WriteByte(' ')
		l.b.WriteString(text)
		l.end()
		return
	}
	for _, line := range itemLines(marker, text, box, checked) {
		l.b.WriteString(line)
		l.end()
	}
}

// doneLine adds a completed task of one line, without a checkbox or a task
// mark, as renderKind's general case writes it (its text and " ✓", leading
// spaces trimmed); false, having added nothing, for any other text.
func (l *listBuf) doneLine(marker, text string) bool {
	if strings.Contains(text, "\n") {
		return false
	}
	text = strings.TrimLeft(text, " ")
	l.b.WriteString(marker)
	l.b.WriteByte(' ')
	if text == "" {
		l.b.WriteString("✓")
	} else {
		l.b.WriteString(text)
		l.b.WriteString(" ✓")
	}
	l.end()
	return true
}

func (l *listBuf) lines() []string {
	if len(l.ends) == 0 {
		return nil
	}
	all := l.b.String()
	out := make([]string, len(l.ends))
	start := 0
	for i, e := range l.ends {
		out[i] = all[start:e]
		start = e
	}
	return out
}

// itemLines writes one list item: continuation lines are indented by two spaces, blank lines stay empty.
func itemLines(marker, text string, box, checked bool) []string {
	if box {
		mark := "[ ]"
		if checked {
			mark = "[x]"
		}
		text = strings.TrimRight(mark+" "+text, " ")
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		switch {
		case i == 0 && l == "":
			lines[i] = marker + " " // goldmark does not see a bare "-\r\n" as an item
		case i == 0:
			lines[i] = marker + " " + l
		case strings.TrimSpace(l) == "":
			lines[i] = ""
		default:
			lines[i] = "  " + l
		}
	}
	return lines
}

func textLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// renderPreamble writes the text before the first section. Lines are copied unless they hold the title
// or a header field whose value changed; a field the header lacks is added next to its neighbours in
// canonical order, or as a new block after the title.
func (d *Document) renderPreamble(w *writer, s *source, sectionsFollow bool) {
	p, nl := &s.pre, s.nl
	out, anchor := d.preambleLines(s)
	missing := d.missingFields(s)
	var block []hline
	if d.Title != s.snap.Title && p.h1 < 0 {
		block = append(block, hline{text: "# " + d.Title + nl})
	}
	if slices.ContainsFunc(out, func(l hline) bool { return l.field }) {
		for _, m := range missing {
			out = insertField(out, m, nl)
		}
	} else if len(missing) > 0 {
		if len(block) > 0 {
			block = append(block, hline{text: nl})
		}
		block = append(block, missing...)
	}
	out = insertHeaderBlock(out, block, anchor, nl, sectionsFollow)
	for _, l := range out {
		w.raw(l.text)
	}
}

// preambleLines are the preamble's lines as they stay: the title and the
// header fields rewritten where they changed, dropped where emptied. anchor
// is where a new header block goes: after the title.
func (d *Document) preambleLines(s *source) (out []hline, anchor int) {
	p, snap, nl := &s.pre, &s.snap, s.nl
	titleChanged := d.Title != snap.Title
	var gaps []int // where dropped field lines were
	for i, raw := range p.lines {
		if p.h1 >= 0 && i >= p.h1 && i < p.h1End {
			if !titleChanged {
				out = append(out, hline{text: raw})
			} else if i == p.h1 {
				out = append(out, hline{text: "# " + d.Title + nl})
			}
			anchor = len(out)
			continue
		}
		f, ok := p.fields[i]
		if !ok {
			out = append(out, hline{text: raw})
			continue
		}
		if l, keep := d.fieldLineFor(f, raw, snap, nl); keep {
			out = append(out, l)
		} else {
			gaps = append(gaps, len(out))
		}
	}
	// A header emptied of its fields would leave the blank lines around it doubled.
	for _, g := range slices.Backward(gaps) {
		if g > 0 && g < len(out) && markdown.IsBlank([]byte(out[g-1].text)) && markdown.IsBlank([]byte(out[g].text)) {
			out = slices.Delete(out, g, g+1)
		}
	}
	return out, anchor
}

// fieldLineFor is the header field line raw as it is rendered now; keep is
// false when the field was emptied and its line goes.
func (d *Document) fieldLineFor(f fieldRef, raw string, snap *Document, nl string) (hline, bool) {
	if f.kind == fieldUnknown {
		if f.unknown >= len(d.Fields) {
			return hline{}, false
		}
		text := raw
		if f.unknown >= len(snap.Fields) || d.Fields[f.unknown] != snap.Fields[f.unknown] {
			text = fieldLine(d.Fields[f.unknown].Name, d.Fields[f.unknown].Value) + nl
		}
		return hline{text: text, field: true, rank: fieldUnknown}, true
	}
	cur, old := d.fieldValue(f.kind), snap.fieldValue(f.kind)
	switch {
	case cur == old:
		return hline{text: raw, field: true, rank: f.kind}, true
	case cur != "" || d.hasDuplicateField(f.kind):
		// An emptied field whose name a later line repeats stays as an empty line: dropped, the
		// repeat would become the field when the file is read again.
		return hline{text: fieldLine(fieldLabels[f.kind], cur) + nl, field: true, rank: f.kind}, true
	}
	return hline{}, false
}

// missingFields are the header fields the document has and the preamble
// lacks, in canonical order.
func (d *Document) missingFields(s *source) []hline {
	p, nl := &s.pre, s.nl
	var missing []hline
	for k := fieldIssue; k < fieldUnknown; k++ {
		if p.has[k] || k == fieldIssue && s.present[kindIssue] {
			continue
		}
		if v := d.fieldValue(k); v != "" {
			missing = append(missing, hline{text: fieldLine(fieldLabels[k], v) + nl, field: true, rank: k})
		}
	}
	if n := p.unknown; len(d.Fields) > n {
		for _, f := range d.Fields[n:] {
			missing = append(missing, hline{text: fieldLine(f.Name, f.Value) + nl, field: true, rank: fieldUnknown})
		}
	}
	return missing
}

// insertHeaderBlock puts a new header block (a title, fields) at anchor,
// with the blank lines that keep it a block of its own.
func insertHeaderBlock(out, block []hline, anchor int, nl string, sectionsFollow bool) []hline {
	if len(block) == 0 {
		return out
	}
	blank := func(i int) bool { return markdown.IsBlank([]byte(out[i].text)) }
	if anchor > 0 {
		out[anchor-1].text = withNL(out[anchor-1].text, nl)
		if !blank(anchor - 1) {
			block = append([]hline{{text: nl}}, block...)
		}
	}
	if anchor < len(out) && !blank(anchor) || anchor == len(out) && sectionsFollow {
		block = append(block, hline{text: nl})
	}
	return slices.Insert(out, anchor, block...)
}

// hline is a preamble line being rendered.
type hline struct {
	text  string
	field bool
	rank  fieldKind // field order: issue, session, mode, next action; unknown fields last
}

// insertField adds a header field after the last field that precedes it in canonical order, else
// before the first field (unknown fields go after the last field).
func insertField(out []hline, m hline, nl string) []hline {
	at := -1
	for i, l := range out {
		if l.field && (l.rank < m.rank || m.rank == fieldUnknown) {
			at = i + 1
		}
	}
	if at < 0 {
		at = slices.IndexFunc(out, func(l hline) bool { return l.field })
	}
	if at > 0 {
		out[at-1].text = withNL(out[at-1].text, nl)
	}
	return slices.Insert(out, at, m)
}

func withNL(s, nl string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + nl
}

func fieldLine(name, value string) string {
	if value == "" {
		return "**" + name + ":**"
	}
	return "**" + name + ":** " + value
}

// hasDuplicateField reports whether an unknown field repeats the name of known field k.
func (d *Document) hasDuplicateField(k fieldKind) bool {
	return slices.ContainsFunc(d.Fields, func(f Field) bool {
		kind, ok := fieldNames[normalise(f.Name)]
		return ok && kind == k
	})
}

func (d *Document) fieldValue(k fieldKind) string {
	switch k {
	case fieldIssue:
		return d.Issue.String()
	case fieldSession:
		return d.Session
	case fieldMode:
		return d.Mode
	case fieldNext:
		return d.NextAction
	}
	return ""
}

// writer appends lines to the output, tracking the line ending.
type writer struct {
	b  *strings.Builder
	nl string
}

func (w *writer) raw(s string) { w.b.WriteString(s) }

func (w *writer) line(s string) {
	w.eol()
	w.b.WriteString(s)
	w.b.WriteString(w.nl)
}

// eol ends an unterminated last line.
func (w *writer) eol() {
	s := w.b.String()
	if s == "" || s == markdown.BOM || strings.HasSuffix(s, "\n") {
		return
	}
	// goldmark does not read a bare list marker before "\r\n" as an empty item, so a file that ends
	// in one keeps meaning the same only with "\n".
	if w.nl == "\r\n" && bareMarkerRe().MatchString(s[strings.LastIndexByte(s, '\n')+1:]) {
		w.b.WriteString("\n")
		return
	}
	w.b.WriteString(w.nl)
}

var bareMarkerRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[ \t>])(?:[-*+]|\d{1,9}[.)])$`) })

// blankBefore makes sure the next line follows a blank line (or starts the document).
func (w *writer) blankBefore() {
	w.eol()
	s := strings.TrimPrefix(w.b.String(), markdown.BOM)
	if s != "" && !endsBlank(s) {
		w.b.WriteString(w.nl)
	}
}

func (w *writer) blank() { w.b.WriteString(w.nl) }

// endsBlank reports whether s ends with a blank line (a line ending after a blank line, or nothing).
func endsBlank(s string) bool {
	s = strings.TrimSuffix(s, "\n")
	i := strings.LastIndexByte(s, '\n')
	return markdown.IsBlank([]byte(s[i+1:])) && (i >= 0 || strings.TrimSpace(s) == "")
}

// startsNonBlank reports whether s begins with a non-blank line.
func startsNonBlank(s string) bool {
	first, _, _ := strings.Cut(s, "\n")
	return s != "" && !markdown.IsBlank([]byte(first))
}

func firstNonBlank(s string) string {
	for s != "" {
		var l string
		l, s, _ = strings.Cut(s, "\n")
		if !markdown.IsBlank([]byte(l)) {
			return l
		}
	}
	return ""
}

func dropBlankLines(s string) string {
	for s != "" {
		l, rest, ok := strings.Cut(s, "\n")
		if !ok || !markdown.IsBlank([]byte(l)) {
			return s
		}
		s = rest
	}
	return s
}
