package progress

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // Problem.String() values
	}{
		{"canonical template is valid", base, nil},
		{"missing sections and issue are reported at the title",
			"<!-- x -->\n# T\n\n## Completed Tasks\n\n## Current Task\n",
			[]string{
				`p.md:2: missing section "## Remaining Tasks"`,
				`p.md:2: missing section "## Decisions Made"`,
				`p.md:2: missing section "## Blockers"`,
				`p.md:2: missing section "## Continuation Prompt"`,
				`p.md:2: missing **Issue:** header field`,
			}},
		{"bad issue key at its line", "# T\n\n**Session:** s\n**Issue:** cia_12 — underscore\n\n## Completed Tasks\n## Current Task\n## Remaining Tasks\n## Decisions Made\n## Blockers\n## Continuation Prompt\n",
			[]string{`p.md:4: issue "cia_12" is not a key like CIA-123`}},
		{"a lower-case issue key is a key", "# T\n\n**Session:** s\n**Issue:** cia-12 — lower case\n\n## Completed Tasks\n## Current Task\n## Remaining Tasks\n## Decisions Made\n## Blockers\n## Continuation Prompt\n", nil},
		{"empty issue", "**Issue:**\n## Completed Tasks\n## Current Task\n## Remaining Tasks\n## Decisions Made\n## Blockers\n## Continuation Prompt\n",
			[]string{`p.md:1: issue has no key (want a key like CIA-123)`}},
		{"legacy layout needs less", "## Goal\ng\n\n## Linear Issue\nCIA-4\n\n## Completed Tasks\n- [x] a\n\n## Current Task\nb\n", nil},
		{"legacy layout without an issue or current task", "# E\n\n## Goal\ng\n\n## Completed Tasks\n- [x] a\n",
			[]string{
				`p.md:1: missing section "## Current Task"`,
				`p.md:1: missing issue: add a **Issue:** header field or a "## Linear Issue" section`,
			}},
		{"duplicates, extra lists and extra current items",
			"**Issue:** A-1\n## Completed Tasks\n- a ✓\n\n### more\n- b ✓\n## Current Task\n- c\n- d\n## Remaining Tasks\n## Decisions Made\n## Blockers\n## Continuation Prompt\n## completed tasks:\n- e\n",
			[]string{
				`p.md:6: "## Completed Tasks" has more than one list; only the first is read`,
				`p.md:9: "## Current Task" has more than one item; only the first is the current task`,
				`p.md:14: duplicate section "## completed tasks:" (first at line 2); ccc reads only the first`,
			}},
		{"not text", "# T\n\n\x00", []string{"p.md:3: NUL byte: not a text file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range Validate("p.md", []byte(tc.in)) {
				got = append(got, p.String())
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestValidateCorpus(t *testing.T) {
	want := map[string][]string{
		"06-empty-sections.md": nil,
		"11-duplicated.md":     {`c.md:15: duplicate section "## Completed Tasks" (first at line 6); ccc reads only the first`},
		"12-no-header.md":      {"c.md:1: missing **Issue:** header field"},
		"09-prose-in-known.md": nil,
		"19-unclosed-fence.md": nil,
		"03-legacy.md":         nil,
		"15-variants.md":       nil,
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile("testdata/corpus/" + name)
			require.NoError(t, err)
			var got []string
			for _, p := range Validate("c.md", src) {
				got = append(got, p.String())
			}
			assert.Equal(t, w, got)
		})
	}
}

func TestProblemJSON(t *testing.T) {
	b, err := json.Marshal(Problem{Path: "p.md", Line: 3, Message: "m"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"path":"p.md","line":3,"message":"m"}`, string(b))
}

// TestValidateAfterCheckpoint checks that what a checkpoint writes has every section the protocol
// requires, whatever the agent left out.
func TestValidateAfterCheckpoint(t *testing.T) {
	for name, src := range corpus(t) {
		t.Run(name, func(t *testing.T) {
			d, err := Parse(src)
			require.NoError(t, err)
			_ = d.Apply(Edits{Session: "2026-12-01T00:00:00Z", Issue: "CHK-1"})
			d.RefreshPrompt(nil, false)
			for _, p := range Validate("p.md", d.Render()) {
				assert.NotContains(t, p.Message, "missing", p.String())
			}
		})
	}
}
