package progress

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
)

// goldenCases apply a scripted edit to a corpus document; testdata/golden/<name>.md holds the expected
// render.
var goldenCases = []struct {
	name  string
	input string
	edits Edits
	// files non-nil: the prompt is refreshed after the edits as a checkpoint does it, when it was empty
	// or was what ccc generates for the document before the edits with these files.
	files []string
}{
	{"canonical-checkpoint", "01-canonical.md", Edits{
		Done: []string{""}, AddTasks: []string{"write the docs"}, Decisions: []string{"golden files: reviewable diffs"},
		Next: "run the corpus", Session: "2026-11-21T15:00:00Z",
	}, []string{"progress/parse.go", "progress/render.go"}},
	{"crlf-checkpoint", "02-canonical-crlf.md", Edits{
		Done: []string{""}, AddTasks: []string{"write a CRLF fuzz seed"}, Session: "2026-11-21T15:00:00Z", Mode: "tdd",
	}, []string{"progress/render.go"}},
	{"legacy-checkpoint", "03-legacy.md", Edits{
		Done: []string{""}, AddTasks: []string{"Task 5: document the hook"}, Session: "2026-11-21T15:00:00Z",
	}, []string{"progress/render.go"}},
	{"legacy-issue", "04-legacy-link.md", Edits{Issue: "CIA-78"}, nil},
	{"unicode-bom", "05-unicode-bom.md", Edits{
		Current: "Überprüfung durch Muttersprachler — geplant", Unblock: []string{"glossar"},
	}, nil},
	{"empty-sections", "06-empty-sections.md", Edits{
		AddTasks: []string{"first task", "second task"}, Blockers: []string{"no access to prod (unblocked by: on-call grants it)"},
	}, []string{}},
	{"prose-in-known", "09-prose-in-known.md", Edits{
		Done: []string{"load into production"}, AddTasks: []string{"announce in #data"},
	}, nil},
	{"nested", "10-nested-items.md", Edits{Done: []string{"port `ccc status`"}}, nil},
	{"duplicated", "11-duplicated.md", Edits{Done: []string{""}}, nil},
	{"no-header", "12-no-header.md", Edits{Issue: "DOC-1", Session: "2026-11-21T15:00:00Z"}, nil},
	{"html-comments", "13-html-comments.md", Edits{
		Blockers: []string{"key vault read-only"}, Unblock: []string{"maintenance"},
	}, nil},
	{"checkboxes", "14-checkboxes.md", Edits{Done: []string{""}, AddTasks: []string{"document offline mode"}}, nil},
	{"variants", "15-variants.md", Edits{Done: []string{""}, Decisions: []string{"setext stays setext: only edited parts change"}}, nil},
	{"current-paragraph", "16-current-paragraph.md", Edits{Current: "tune the threshold — starting"}, nil},
	{"no-trailing-newline", "17-no-trailing-newline.md", Edits{AddTasks: []string{"four"}}, nil},
	{"header-fields", "18-header-fields.md", Edits{Next: "page through PR comments", Mode: "plan"}, nil},
	{"unclosed-fence", "19-unclosed-fence.md", Edits{AddTasks: []string{"Task 3: add a fuzz test"}}, []string{"progress/parse.go"}},
	{"agent-prompt", "21-agent-prompt.md", Edits{Done: []string{""}}, []string{"hook/stop.go"}},
	{"marked-prompt", "22-marked-prompt.md", Edits{Done: []string{""}}, []string{"parse.go"}},
	{"marked-prompt-edited", "23-marked-prompt-edited.md", Edits{Done: []string{""}}, []string{"parse.go"}},
}

// cccWrotePrompt names the cases whose corpus prompt ccc wrote before it marked its prompts, in words
// it no longer generates: their prompt follows the edits, as one ccc marked would.
var cccWrotePrompt = map[string]bool{"canonical-checkpoint": true, "crlf-checkpoint": true}

func TestRenderGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata/corpus", tc.input))
			require.NoError(t, err)
			d, err := Parse(src)
			require.NoError(t, err)
			own := cccWrotePrompt[tc.name] || d.PromptByCCC(tc.files)
			require.NoError(t, d.Apply(tc.edits))
			if tc.files != nil {
				d.RefreshPrompt(tc.files, own)
			}
			got := d.Render()
			path := filepath.Join("testdata/golden", tc.name+".md")
			testutil.Golden(t, path, got)
			if t.Failed() {
				t.FailNow()
			}

			back, err := Parse(got)
			require.NoError(t, err)
			assert.Equal(t, model(d), model(back))
		})
	}
}

func TestNewTemplate(t *testing.T) {
	d := New("CIA-123", time.Date(2026, 11, 21, 14, 45, 0, 0, time.FixedZone("CET", 3600)))
	want := `# Session Progress

**Issue:** CIA-123
**Session:** 2026-11-21T13:45:00Z
**Execution Mode:** exec:quick

## Completed Tasks

## Current Task
- None

## Remaining Tasks

## Decisions Made

## Blockers
- None

## Continuation Prompt
`
	require.Equal(t, want, string(d.Render()))
	back, err := Parse(d.Render())
	require.NoError(t, err)
	assert.Equal(t, model(d), model(back))
	assert.Equal(t, Canonical, back.Layout())
	assert.Empty(t, Validate("p.md", d.Render()))

	d.RefreshPrompt(nil, false)
	assert.Equal(t, "Resume CIA-123. Current task: none (0 of 0 tasks done). Key files: none. Next action: "+PlanAction+".", d.ContinuationPrompt)
}

func TestRenderZeroDocument(t *testing.T) {
	var d Document
	assert.Empty(t, string(d.Render()))

	d.Remaining = []Task{{Text: "only task"}}
	got := string(d.Render())
	assert.Contains(t, got, "## Remaining Tasks\n- only task\n")
	back, err := Parse([]byte(got))
	require.NoError(t, err)
	assert.Equal(t, model(&d), model(back))
}

// TestRenderEdits pins down the small rendering rules, one input and edit at a time.
func TestRenderEdits(t *testing.T) {
	tests := []struct {
		name string
		in   string
		edit func(d *Document)
		want string
	}{
		{
			name: "unchanged sections keep their bytes, the edited one is rewritten",
			in:   "# P\n\n## Remaining Tasks\n*   odd   spacing  \n\n## Decisions Made\n*   keep  me\n",
			edit: func(d *Document) { d.Remaining = append(d.Remaining, Task{Text: "new"}) },
			want: "# P\n\n## Remaining Tasks\n- odd   spacing\n- new\n\n## Decisions Made\n*   keep  me\n",
		},
		{
			name: "an emptied field stays as an empty line while a later line repeats its name",
			in:   "**Issue:** X-1\n**Issue:** Y-2\n**Session:** a\n",
			edit: func(d *Document) { d.Issue, d.Session = Issue{}, "" },
			want: "**Issue:**\n**Issue:** Y-2\n",
		},
		{
			name: "CRLF file gets CRLF in rewritten parts",
			in:   "# P\r\n\r\n## Remaining Tasks\r\n- a\r\n",
			edit: func(d *Document) { require.NoError(t, d.Apply(Edits{AddTasks: []string{"b"}, Session: "s"})) },
			want: "# P\r\n\r\n**Session:** s\r\n\r\n## Remaining Tasks\r\n- a\r\n- b\r\n",
		},
		{
			name: "byte order mark is kept",
			in:   "\uFEFF## Blockers\n- None\n",
			edit: func(d *Document) { require.NoError(t, d.Apply(Edits{Blockers: []string{"x"}})) },
			want: "\uFEFF## Blockers\n- x\n",
		},
		{
			name: "emptied blockers and current task read None",
			in:   "## Current Task\n- a — b\n\n## Blockers\n- x\n",
			edit: func(d *Document) { d.Current, d.Blockers = nil, nil },
			want: "## Current Task\n- None\n\n## Blockers\n- None\n",
		},
		{
			name: "emptied list leaves the heading and the prose",
			in:   "## Remaining Tasks\n\n- a\n\nprose stays\n",
			edit: func(d *Document) { d.Remaining = nil },
			want: "## Remaining Tasks\n\nprose stays\n",
		},
		{
			name: "a None paragraph is replaced by the list",
			in:   "## Blockers\n\nNone.\n\n<!-- note -->\n",
			edit: func(d *Document) { d.Blockers = []Blocker{{Description: "b", UnblockedBy: "c"}} },
			want: "## Blockers\n\n- b (unblocked by: c)\n\n<!-- note -->\n",
		},
		{
			name: "items go where the list was, prose before and after stays",
			in:   "## Completed Tasks\nDone so far:\n- a ✓\n- [x] b\n> More text.\n",
			edit: func(d *Document) { require.NoError(t, d.Apply(Edits{Done: []string{"c"}})) },
			want: "## Completed Tasks\nDone so far:\n\n- a ✓\n- [x] b\n- c ✓\n\n> More text.\n",
		},
		{
			name: "a section with no list gets one at the top",
			in:   "## Decisions Made\nWe argued a lot.\n",
			edit: func(d *Document) { require.NoError(t, d.Apply(Edits{Decisions: []string{"x: y"}})) },
			want: "## Decisions Made\n- x: y\n\nWe argued a lot.\n",
		},
		{
			name: "multi-line items indent continuation lines by two spaces",
			in:   "## Remaining Tasks\n",
			edit: func(d *Document) { require.NoError(t, d.Apply(Edits{AddTasks: []string{"a\n\n  - nested\nlast"}})) },
			want: "## Remaining Tasks\n- a\n\n    - nested\n  last\n",
		},
		{
			name: "indented text after the list is kept out of it",
			in:   "## Remaining Tasks\n10.  a\n\n   indented paragraph\n",
			edit: func(d *Document) { d.Remaining = append(d.Remaining, Task{Text: "b"}) },
			want: "## Remaining Tasks\n- a\n- b\n\n<!-- -->\n\n   indented paragraph\n",
		},
		{
			name: "a dash list right after the items switches the marker",
			in:   "## Remaining Tasks\n* a\n- kept as text\n",
			edit: func(d *Document) { d.Remaining = append(d.Remaining, Task{Text: "b"}) },
			want: "## Remaining Tasks\n* a\n* b\n\n- kept as text\n",
		},
		{
			name: "an emptied first list stays as None so the next list does not take its place",
			in:   "## Remaining Tasks\n- a\n\ntext\n\n- b\n",
			edit: func(d *Document) { d.Remaining = nil },
			want: "## Remaining Tasks\n- None\n\ntext\n\n- b\n",
		},
		{
			name: "new sections go to their canonical place",
			in:   "# P\n\n## Notes\nn\n\n## Completed Tasks\n- a ✓\n\n## Current Task\n- b\n\n## Continuation Prompt\nGo.\n",
			edit: func(d *Document) { require.NoError(t, d.Apply(Edits{AddTasks: []string{"c"}})) },
			want: "# P\n\n## Notes\nn\n\n## Completed Tasks\n- a ✓\n\n## Current Task\n- b\n\n## Remaining Tasks\n- c\n\n## Decisions Made\n\n## Blockers\n- None\n\n## Continuation Prompt\nGo.\n",
		},
		{
			name: "sections appended after an unclosed code block close it first",
			in:   "## Goal\ng\n\n## Current Task\n- a\n\n```\nlog",
			edit: func(d *Document) { d.Learnings = []Learning{{Time: "t", Text: "x"}} },
			want: "## Goal\ng\n\n## Current Task\n- a\n\n```\nlog\n```\n\n## Learnings\n- [t] x\n",
		},
		{
			name: "header fields are rewritten in place and missing ones join them",
			in:   "# P\n**Session:** old  \n**Owner:** me\n\n## Current Task\n- a\n",
			edit: func(d *Document) {
				require.NoError(t, d.Apply(Edits{Session: "new", Issue: "AB-1", Mode: "exec:x", Next: "go"}))
			},
			want: "# P\n**Issue:** AB-1\n**Session:** new\n**Execution Mode:** exec:x\n**Next Action:** go\n**Owner:** me\n\n## Current Task\n- a\n",
		},
		{
			name: "an unchanged header line keeps its form",
			in:   "# P\n\n**Issue:** [CIA-5](https://linear.app/x/issue/CIA-5) - Title\n**Session:** a\n\n## Current Task\n- a\n",
			edit: func(d *Document) { d.Session = "b" },
			want: "# P\n\n**Issue:** [CIA-5](https://linear.app/x/issue/CIA-5) - Title\n**Session:** b\n\n## Current Task\n- a\n",
		},
		{
			name: "a header goes after the title",
			in:   "<!-- c -->\n# P\n## Current Task\n- a\n",
			edit: func(d *Document) { d.Session = "s" },
			want: "<!-- c -->\n# P\n\n**Session:** s\n\n## Current Task\n- a\n",
		},
		{
			name: "the issue of a legacy document stays in its section",
			in:   "## Linear Issue\nCIA-1 — old\n\nsee also the spec\n\n## Current Task\n- a\n",
			edit: func(d *Document) { require.NoError(t, d.Apply(Edits{Issue: "CIA-2"})) },
			want: "## Linear Issue\nCIA-2\n\nsee also the spec\n\n## Current Task\n- a\n",
		},
		{
			name: "free text sections are replaced between their surrounding blank lines",
			in:   "## Goal\n\nold\ngoal\n\n\n## Notes\n",
			edit: func(d *Document) { d.Goal = "new" },
			want: "## Goal\n\nnew\n\n\n## Notes\n",
		},
		{
			name: "an edited document with a prompt gets the canonical sections it lacks",
			in:   "## Current Task\n- a\n\n## Continuation Prompt\nold\n",
			edit: func(d *Document) { d.ContinuationPrompt = "new" },
			want: "## Completed Tasks\n\n## Current Task\n- a\n\n## Remaining Tasks\n\n## Decisions Made\n\n## Blockers\n- None\n\n## Continuation Prompt\nnew\n",
		},
		{
			name: "a renamed title is rewritten as an ATX heading",
			in:   "Old\n===\n\n## Current Task\n- a\n",
			edit: func(d *Document) { d.Title = "New" },
			want: "# New\n\n## Current Task\n- a\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(tc.in))
			require.NoError(t, err)
			require.Equal(t, tc.in, string(d.Render()), "unchanged render")
			tc.edit(d)
			got := string(d.Render())
			assert.Equal(t, tc.want, got)
			back, err := Parse([]byte(got))
			require.NoError(t, err)
			assert.Equal(t, model(d), model(back))
		})
	}
}

func TestRenderDoesNotMutate(t *testing.T) {
	src, err := os.ReadFile("testdata/corpus/01-canonical.md")
	require.NoError(t, err)
	d, err := Parse(src)
	require.NoError(t, err)
	require.NoError(t, d.Apply(Edits{Done: []string{""}}))
	first := string(d.Render())
	assert.Equal(t, first, string(d.Render()))
	assert.True(t, strings.HasPrefix(first, "# Session Progress\n"))
}

func TestRenderAvoidsThematicBreaks(t *testing.T) {
	d, err := Parse([]byte("## Current Task\n--\n\n## Continuation Prompt\nold\n"))
	require.NoError(t, err)
	require.NoError(t, d.Apply(Edits{Current: "next"}))
	d.ContinuationPrompt = "***\n---"
	got := string(d.Render())
	assert.Contains(t, got, "## Remaining Tasks\n* --\n", `"- --" would be a thematic break`)
	assert.Contains(t, got, "## Continuation Prompt\n***\n---\n", "free text is not a list")
	back, err := Parse([]byte(got))
	require.NoError(t, err)
	assert.Equal(t, model(d), model(back))

	d.Remaining = []Task{{Text: "--"}, {Text: "**"}}
	got = string(d.Render())
	assert.Contains(t, got, "## Remaining Tasks\n+ --\n+ **\n")
}

// Render after an edit writes the document about once: it grows its buffer
// to the source's size up front, splices sections straight into it and
// returns it without a copy. Bounded in bytes allocated (before: 12.8× the
// source at 10,000 tasks).
func TestRenderAllocatesAboutTheDocument(t *testing.T) {
	src := benchDoc(10000)
	d, err := Parse(src)
	require.NoError(t, err)
	require.NoError(t, d.Apply(Edits{Done: []string{""}, Session: "2026-11-21T14:00:00Z"}))
	var out []byte
	bytes := allocated(func() { out = d.Render() })
	again, err := Parse(out)
	require.NoError(t, err)
	assert.Equal(t, d.TaskM(), again.TaskM())
	assert.LessOrEqual(t, bytes, uint64(5*len(src)), "allocated %d bytes for a %d-byte document", bytes, len(src))
}

// TestParseAllocatesAboutTheDocument: a document of plain task lists is
// read by markdown's line scanner, not into a goldmark node per task: Parse
// of 10,000 tasks allocates at most 8× the document (23× through goldmark,
// issue 26) and about as much per task at 100,000 tasks as at 10,000.
func TestParseAllocatesAboutTheDocument(t *testing.T) {
	for _, n := range []int{10000, 100000} {
		src := benchDoc(n)
		var d *Document
		var err error
		bytes := allocated(func() { d, err = Parse(src) })
		require.NoError(t, err)
		require.Len(t, d.Completed, n/2)
		assert.LessOrEqual(t, bytes, uint64(8*len(src)), "%d tasks: allocated %d bytes for a %d-byte document", n, bytes, len(src))
	}
}
