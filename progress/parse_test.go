package progress

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parseFile(t *testing.T, name string) *Document {
	t.Helper()
	src, err := os.ReadFile("testdata/corpus/" + name)
	require.NoError(t, err)
	d, err := Parse(src)
	require.NoError(t, err)
	return d
}

func TestParseCanonical(t *testing.T) {
	d := parseFile(t, "01-canonical.md")
	assert.Equal(t, Document{
		Title:   "Session Progress",
		Issue:   Issue{Key: "CIA-123", Title: "Add a progress parser"},
		Session: "2026-11-21T13:45:00Z",
		Mode:    "exec:quick",
		Completed: []Task{
			{Text: "write parser", Done: true},
			{Text: "sketch the model", Done: true},
		},
		Current:   &Task{Text: "write tests", Status: "in progress"},
		Remaining: []Task{{Text: "run the corpus"}, {Text: "ship it"}},
		Decisions: []Decision{
			{What: "use goldmark", Why: "AST gives source positions"},
			{What: "keep raw bytes per section", Why: "unchanged files must round-trip exactly"},
		},
		ContinuationPrompt: "Resume CIA-123. Current task: task 3 of 5 — write tests. Key files: progress/parse.go. Next action: run the corpus.",
	}, model(d))
	assert.Equal(t, Canonical, d.Layout())
}

func TestParseLegacy(t *testing.T) {
	d := parseFile(t, "03-legacy.md")
	assert.Equal(t, Document{
		Title: "Execution Progress",
		Issue: Issue{Key: "CIA-482", Title: "Port checkpoint hook to Go"},
		Goal:  "Replace the shell checkpoint hook with a Go binary that survives context compaction.",
		Completed: []Task{
			{Text: "Task 1: scaffold the module -- 1a2b3c4 (12m)", Checkbox: true, Done: true},
			{Text: "Task 2: add the state file reader -- 9f8e7d6 (25m)", Checkbox: true, Done: true},
			{Text: "Task 3: add parser -- 5c4b3a2 (41m)", Checkbox: true, Done: true},
		},
		Learnings: []Learning{
			{Time: "2026-11-02 14:05", Text: "goldmark keeps block positions; inline parsing is not needed"},
			{Time: "2026-11-02 15:30", Text: "the stop hook must always exit 0"},
		},
		Current:  &Task{Text: "Task 4: render the progress file back without losing agent notes"},
		Blockers: []Blocker{{Description: "CI runner lacks git 2.40", UnblockedBy: "infra upgrade"}},
	}, model(d))
	assert.Equal(t, Legacy, d.Layout())

	link := parseFile(t, "04-legacy-link.md")
	assert.Equal(t, Issue{Key: "CIA-77"}, link.Issue)
	assert.Equal(t, "Ship the Linear sink.\nKeep retries inside the hook's time budget.", link.Goal)
	assert.Equal(t, []Task{
		{Text: "Task 1: GraphQL client -- deadbee (30m)", Checkbox: true, Done: true},
		{Text: "Task 2: comment upsert -- reverted, see learnings", Checkbox: true},
	}, link.Completed)
	assert.Equal(t, &Task{Text: "Task 3: retry with backoff", Status: "reading the API docs"}, link.Current)
	assert.Empty(t, link.Blockers, "a None. paragraph is the empty marker")
}

func TestParseCorpusDetails(t *testing.T) {
	crlf := parseFile(t, "02-canonical-crlf.md")
	assert.Equal(t, "WIN-31", crlf.Issue.Key)
	assert.Equal(t, &Task{Text: "render edited sections with CRLF", Status: "testing"}, crlf.Current)
	assert.NotContains(t, crlf.ContinuationPrompt, "\r")

	uni := parseFile(t, "05-unicode-bom.md")
	assert.Equal(t, "Sitzungsfortschritt 🚀", uni.Title)
	assert.Equal(t, Issue{Key: "I18N-7", Title: "Übersetzungen für 日本語 und العربية"}, uni.Issue)
	assert.Equal(t, &Task{Text: "العربية: اتجاه النص من اليمين", Status: "in Arbeit"}, uni.Current)
	assert.Equal(t, []Blocker{{Description: "Glossar fehlt", UnblockedBy: "Ü-Team liefert Glossar"}}, uni.Blockers)

	empty := parseFile(t, "06-empty-sections.md")
	assert.Nil(t, empty.Current)
	assert.Empty(t, empty.Blockers)
	assert.Empty(t, empty.ContinuationPrompt)

	long := parseFile(t, "07-long-lists.md")
	assert.Len(t, long.Completed, 250)
	assert.Len(t, long.Remaining, 149)
	assert.Len(t, long.Decisions, 30)

	prose := parseFile(t, "09-prose-in-known.md")
	assert.Equal(t, []Task{{Text: "export the old events", Done: true}, {Text: "write the transform", Done: true}}, prose.Completed)
	assert.Equal(t, []Task{{Text: "verify row counts"}, {Text: "drop the temp table"}}, prose.Remaining)
	assert.True(t, strings.HasPrefix(prose.ContinuationPrompt, "Continue the production load"))
	assert.True(t, strings.HasSuffix(prose.ContinuationPrompt, "before dropping anything."))

	nested := parseFile(t, "10-nested-items.md")
	assert.Equal(t, "split the root command\n- moved `--json` to a persistent flag\n- kept `-v` as an alias", nested.Completed[0].Text)
	assert.Equal(t, &Task{Text: "port `ccc post` to the new options struct", Status: "halfway\nremaining: the lazy HTTP client"}, nested.Current)
	assert.Equal(t, []Task{
		{Text: "port `ccc status`\n1. table output\n2. `--json`"},
		{Text: "port `ccc sync`\n\nneeds the outbox first"},
		{Text: "remove the old flag helpers"},
	}, nested.Remaining)

	dup := parseFile(t, "11-duplicated.md")
	assert.Equal(t, []Task{{Text: "first pass at the lock", Done: true}}, dup.Completed, "the first copy is the known one")

	noHeader := parseFile(t, "12-no-header.md")
	assert.Equal(t, "", noHeader.Title)
	assert.Equal(t, Issue{}, noHeader.Issue)

	comments := parseFile(t, "13-html-comments.md")
	assert.Equal(t, []Field{{Name: "Owner", Value: "platform team"}}, comments.Fields)
	assert.Equal(t, "exec:careful", comments.Mode)

	boxes := parseFile(t, "14-checkboxes.md")
	assert.Equal(t, []Task{{Text: "cache the API responses", Checkbox: true, Done: true}, {Text: "service worker registration (reopened: breaks on Safari)", Checkbox: true}}, boxes.Completed)
	assert.Equal(t, &Task{Text: "sync queue", Status: "writing the retry loop", Checkbox: true}, boxes.Current)
	assert.True(t, boxes.Remaining[0].Done)
	assert.Equal(t, []Blocker{
		{Description: "Safari tech preview crash", UnblockedBy: "18.2", Checkbox: true, Checked: true},
		{Description: "None of the fixes work on iOS 16", UnblockedBy: "dropping iOS 16"},
	}, boxes.Blockers)

	variants := parseFile(t, "15-variants.md")
	assert.Equal(t, "Session Progress", variants.Title)
	assert.Equal(t, Issue{Key: "CIA-9", Title: "Heading variants"}, variants.Issue)
	assert.Len(t, variants.Completed, 2, "setext heading with a trailing colon")
	assert.Equal(t, &Task{Text: "third", Status: "started"}, variants.Current, "closed ATX heading, ordered list")
	assert.Len(t, variants.Remaining, 2)
	assert.Len(t, variants.Decisions, 2)
	assert.Empty(t, variants.Blockers)

	para := parseFile(t, "16-current-paragraph.md")
	assert.Equal(t, &Task{Text: "Write the alert rule", Status: "drafting the threshold"}, para.Current)
	assert.Empty(t, para.Blockers)

	fields := parseFile(t, "18-header-fields.md")
	assert.Equal(t, Issue{Key: "GH-12", Title: "GitHub sink (comments on PRs too)"}, fields.Issue)
	assert.Equal(t, "make the conformance suite pass for GitHub", fields.NextAction)
	assert.Equal(t, []Field{{Name: "Branch", Value: "feat/sinks-github"}, {Name: "Agent", Value: "claude-2"}}, fields.Fields)

	fence := parseFile(t, "19-unclosed-fence.md")
	assert.Equal(t, "the crash needs a NUL byte in the input", fence.Learnings[0].Text)

	tabs := parseFile(t, "20-tabs.md")
	assert.Equal(t, "CIA-20", tabs.Issue.Key)
	assert.Equal(t, "tab after the marker", tabs.Completed[0].Text)
	assert.Equal(t, "item with a tab-indented continuation\n  second line of it", tabs.Completed[1].Text)
	assert.Equal(t, "nested:\n  - tab-indented child\n  - another child", tabs.Remaining[0].Text)
}

// TestParseSections covers the item syntax of each section, one small document at a time.
func TestParseSections(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Document
	}{
		{"done mark stripped once", "## Completed Tasks\n- a ✓\n- b✓\n- c ✓ ✓\n- [x] d ✓\n- e ✓\n  more\n",
			Document{Completed: []Task{
				{Text: "a", Done: true}, {Text: "b", Done: true}, {Text: "c ✓", Done: true},
				{Text: "d", Checkbox: true, Done: true}, {Text: "e\nmore", Done: true},
			}}},
		{"unchecked completed item is not done", "## Completed Tasks\n- [ ] a\n- [X] b\n",
			Document{Completed: []Task{{Text: "a", Checkbox: true}, {Text: "b", Checkbox: true, Done: true}}}},
		{"checked remaining item is done", "## Remaining Tasks\n- [x] a\n- [ ] b\n- c\n",
			Document{Remaining: []Task{{Text: "a", Checkbox: true, Done: true}, {Text: "b", Checkbox: true}, {Text: "c"}}}},
		{"a box needs a space after it", "## Remaining Tasks\n- [x]a\n",
			Document{Remaining: []Task{{Text: "[x]a"}}}},
		{"current status splits at the first em dash", "## Current Task\n- a — b — c\n",
			Document{Current: &Task{Text: "a", Status: "b — c"}}},
		{"a captured current task splits at its last em dash", "## Current Task\n- a — b — c <!-- ccc:task claude:1 -->\n",
			Document{Current: &Task{Text: "a — b", Status: "c", Mark: "claude:1"}}},
		{"current without status", "## Current Task\n- a - b\n", Document{Current: &Task{Text: "a - b"}}},
		{"current as a paragraph", "## Current Task\n\nwrite it\nline two\n", Document{Current: &Task{Text: "write it\nline two"}}},
		{"only the first current item counts", "## Current Task\n- a\n- b\n", Document{Current: &Task{Text: "a"}}},
		{"current None", "## Current Task\n- None.\n", Document{}},
		{"decision without a why", "## Decisions Made\n- a\n- b: c: d\n- e:f\n",
			Document{Decisions: []Decision{{What: "a"}, {What: "b", Why: "c: d"}, {What: "e:f"}}}},
		{"blockers with and without a condition", "## Blockers\n- a (unblocked by: b)\n- c\n- d (Unblocked By:  e (f) )\n",
			Document{Blockers: []Blocker{{Description: "a", UnblockedBy: "b"}, {Description: "c"}, {Description: "d", UnblockedBy: "e (f)"}}}},
		{"none variants", "## Blockers\n- none\n\n## Remaining Tasks\n* NONE.\n\n## Decisions Made\nNone\n", Document{}},
		{"None among other items is an item", "## Remaining Tasks\n- None\n- a\n", Document{Remaining: []Task{{Text: "None"}, {Text: "a"}}}},
		{"learning without a time", "## Learnings\n- plain\n- [t]\n", Document{Learnings: []Learning{{Text: "plain"}, {Time: "t"}}}},
		{"only the first list is read", "## Remaining Tasks\n- a\n\n### Later\n\n- b\n", Document{Remaining: []Task{{Text: "a"}}}},
		{"ordered and other bullets", "## Remaining Tasks\n1) a\n2) b\n", Document{Remaining: []Task{{Text: "a"}, {Text: "b"}}}},
		{"lazy continuation belongs to the item", "## Remaining Tasks\n- a\nb\n", Document{Remaining: []Task{{Text: "a\nb"}}}},
		{"headings match loosely", "##   completed   tasks :  \n- a\n\n## BLOCKED/FLAGGED\n- b\n",
			Document{Completed: []Task{{Text: "a", Done: true}}, Blockers: []Blocker{{Description: "b"}}}},
		{"headings inside lists do not split", "## Remaining Tasks\n- a\n\n  ## not a section\n", Document{Remaining: []Task{{Text: "a\n\n## not a section"}}}},
		{"H1 after the first section is text", "## Goal\ng\n# Title?\n", Document{Goal: "g\n# Title?"}},
		{"prompt kept exactly", "## Continuation Prompt\n\n  indented **bold**  \n\n```\ncode\n```\n\n", Document{ContinuationPrompt: "  indented **bold**  \n\n```\ncode\n```"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, model(d))
			assert.Equal(t, tc.in, string(d.Render()))
		})
	}
}

func TestParseHeader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Document
	}{
		{"both field forms", "# T\n**Issue:** AB-1\n**Session**: s\n**execution mode:** exec:x\n",
			Document{Title: "T", Issue: Issue{Key: "AB-1"}, Session: "s", Mode: "exec:x"}},
		{"issue separators", "**Issue:** AB-1 – en dash title\n", Document{Issue: Issue{Key: "AB-1", Title: "en dash title"}}},
		{"issue hyphen separator", "**Issue:** AB-1 - a - b\n", Document{Issue: Issue{Key: "AB-1", Title: "a - b"}}},
		{"issue link", "**Issue:** [AB-12](https://linear.app/t/issue/AB-12/x) — t\n", Document{Issue: Issue{Key: "AB-12", Title: "t"}}},
		{"issue key in a link address", "**Issue:** [the bug](https://linear.app/t/issue/AB-13/the-bug)\n", Document{Issue: Issue{Key: "AB-13"}}},
		{"issue that is no key is kept", "**Issue:** CIA-XXX — [Title]\n", Document{Issue: Issue{Key: "CIA-XXX", Title: "[Title]"}}},
		{"unknown and repeated fields keep their order", "# T\n**B:** 1\n**Session:** s\n**Session:** again\n**A:**\n",
			Document{Title: "T", Session: "s", Fields: []Field{{Name: "B", Value: "1"}, {Name: "Session", Value: "again"}, {Name: "A"}}}},
		{"fields before the title are text", "**Session:** early\n# T\n**Session:** s\n", Document{Title: "T", Session: "s"}},
		{"fields among other lines", "# T\n\nSome text\n**Next Action:** n\nmore text\n", Document{Title: "T", NextAction: "n"}},
		{"fields inside a code block are text", "# T\n```\n**Session:** s\n```\n", Document{Title: "T"}},
		{"setext title", "My title\n===\n**Session:** s\n", Document{Title: "My title", Session: "s"}},
		{"legacy section issue", "## Linear Issue\n\nSee [CIA-9](https://linear.app/x/issue/CIA-9/y) for details\n", Document{Issue: Issue{Key: "CIA-9"}}},
		{"header issue wins", "**Issue:** AB-1\n\n## Linear Issue\nCIA-9\n", Document{Issue: Issue{Key: "AB-1"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, model(d))
			assert.Equal(t, tc.in, string(d.Render()))
		})
	}
}

func TestParseNotText(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
	}{
		{"NUL byte", "# T\n\n## Current Task\n- a\x00b\n", 4},
		{"invalid UTF-8", "# T\n\xff\n", 2},
		{"truncated UTF-8 at the end", "ok\n\xe2\x9c", 2},
		{"UTF-16 file", "\xff\xfe#\x00 \x00T\x00", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.line, pe.Line)
			assert.Contains(t, err.Error(), "not a text file")
		})
	}
}

func TestDerivedValues(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		n, m, pct int
		status    Status
	}{
		{"template example", "## Completed Tasks\n- a ✓\n## Current Task\n- b\n## Remaining Tasks\n- c\n", 2, 3, 33, InProgress},
		{"no current task", "## Completed Tasks\n- a ✓\n## Remaining Tasks\n- c\n", 1, 2, 50, InProgress},
		{"checked remaining counts as done", "## Remaining Tasks\n- [x] a\n- [ ] b\n", 1, 2, 50, InProgress},
		{"unchecked completed is not done", "## Completed Tasks\n- [ ] a\n- [x] b\n", 1, 2, 50, InProgress},
		{"all done", "## Completed Tasks\n- a ✓\n## Current Task\n- None\n", 1, 1, 100, Complete},
		{"nothing at all is not started", "# T\n", 0, 0, 0, NotStarted},
		{"a blocker without tasks is blocked", "# T\n## Blockers\n- x\n", 0, 0, 0, Blocked},
		{"blocked wins", "## Completed Tasks\n- a ✓\n## Blockers\n- x\n", 1, 1, 100, Blocked},
		{"resolved blocker does not block", "## Current Task\n- a\n## Blockers\n- [x] x\n", 1, 1, 0, InProgress},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.n, d.TaskN(), "N")
			assert.Equal(t, tc.m, d.TaskM(), "M")
			assert.Equal(t, tc.pct, d.Percent(), "percent")
			assert.Equal(t, tc.status, d.Status())
		})
	}
	assert.Equal(t, "In Progress", InProgress.String())
	assert.Equal(t, "Blocked", Blocked.String())
	assert.Equal(t, "Complete", Complete.String())
	assert.Equal(t, "legacy", Legacy.String())
}
