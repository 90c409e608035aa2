package progress

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConflicts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // Problem.String() values
	}{
		{"a git conflict: every marker line", "# P\n\n## Current Task\n<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> feature\n",
			[]string{
				`p.md:4: start of a merge conflict "<<<<<<< HEAD"`,
				`p.md:6: merge conflict separator "======="`,
				`p.md:8: end of a merge conflict ">>>>>>> feature"`,
			}},
		{"diff3 base and CRLF", "<<<<<<< ours\r\nx\r\n||||||| base\r\ny\r\n=======\r\nz\r\n>>>>>>> theirs\r\n",
			[]string{
				`p.md:1: start of a merge conflict "<<<<<<< ours"`,
				`p.md:3: merge conflict base marker "||||||| base"`,
				`p.md:5: merge conflict separator "======="`,
				`p.md:7: end of a merge conflict ">>>>>>> theirs"`,
			}},
		{"bare markers, two conflicts", "<<<<<<<\na\n=======\nb\n>>>>>>>\ntext\n<<<<<<< HEAD\n>>>>>>> x\n",
			[]string{
				`p.md:1: start of a merge conflict "<<<<<<<"`,
				`p.md:3: merge conflict separator "======="`,
				`p.md:5: end of a merge conflict ">>>>>>>"`,
				`p.md:7: start of a merge conflict "<<<<<<< HEAD"`,
				`p.md:8: end of a merge conflict ">>>>>>> x"`,
			}},
		{"a setext heading underline is Markdown", "# P\n\nA heading\n=======\n\n## Current Task\n- a\n", nil},
		{"a start without an end is text", "## Current Task\n<<<<<<< HEAD\n- a\n=======\n", nil},
		{"an end before any start is text", ">>>>>>> x\n<<<<<<< HEAD\n", nil},
		{"eight characters or an indent are not markers", "<<<<<<<< x\n- a\n >>>>>>> y\n>>>>>>>> z\n", nil},
		{"a marker glued to its label is not one", "<<<<<<<HEAD\n>>>>>>>x\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range Conflicts("p.md", []byte(tc.in)) {
				got = append(got, p.String())
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int    // 0: not broken
		want string // part of the problem
	}{
		{"canonical", base, 0, ""},
		{"empty file: nothing to lose, ccc fills it", "", 0, ""},
		{"blank file", "\n \n", 0, ""},
		{"one known section is enough (the rest is repairable)", "Notes\n\n## Current Task\n- a\n", 0, ""},
		{"legacy Linear Issue section alone", "## Linear Issue\nCIA-1\n", 0, ""},
		{"not text is Parse's to report", "## Current Task\n\x00", 0, ""},
		{"conflict at its first marker", "# P\n\n## Current Task\n<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> f\n", 4, "unresolved merge conflict (3 marker lines"},
		{"conflict around the whole file", "<<<<<<< HEAD\n" + base + "=======\n" + base + ">>>>>>> f\n", 1, "merge conflict"},
		{"no known section", "My notes\n\n- a\n- b\n", 1, "none of the sections ccc knows"},
		{"title and fields only", "# Progress\n\n**Issue:** CIA-1\n", 1, "none of the sections ccc knows"},
		{"unknown sections only", "## Todo\n- a\n\n## Done\n- b\n", 1, "none of the sections ccc knows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check("p.md", []byte(tc.in))
			if tc.line == 0 {
				assert.NoError(t, err)
				return
			}
			var be *BrokenError
			require.ErrorAs(t, err, &be)
			assert.True(t, errors.Is(err, ErrBroken))
			assert.Equal(t, "p.md", be.Path)
			assert.Equal(t, tc.line, be.Line)
			assert.Contains(t, be.Problem, tc.want)
			assert.Contains(t, err.Error(), "ccc validate")
			assert.Contains(t, err.Error(), "ccc restore --file progress")
		})
	}
}

// The boundary of "a rewrite that would drop more than it keeps": dropping
// as many tasks as are kept passes, one more is refused.
func TestCheckRewrite(t *testing.T) {
	const orig = "# P\n\n## Completed Tasks\n- a ✓\n- b ✓\n\n## Current Task\n- c\n\n## Remaining Tasks\n- d\n"
	tests := []struct {
		name string
		out  string
		line int // 0: allowed
		want string
	}{
		{"unchanged", orig, 0, ""},
		{"tasks moved between sections and re-marked are kept",
			"# P\n\n## Completed Tasks\n- [x] A\n- b ✓\n- c ✓\n\n## Current Task\n- d — testing\n\n## Remaining Tasks\n- e\n", 0, ""},
		{"two of four dropped, two kept: allowed", "# P\n\n## Completed Tasks\n- a ✓\n- b ✓\n", 0, ""},
		{"three of four dropped, one kept: refused", "# P\n\n## Completed Tasks\n- a ✓\n", 5, "drop 3 of the file's 4 tasks (this one first) and keep 1"},
		{"every task dropped: refused", "# P\n\n## Current Task\n- None\n", 4, "drop 4 of the file's 4 tasks"},
		{"a task kept twice counts once", "## Completed Tasks\n- a ✓\n- a ✓\n- a ✓\n", 5, "keep 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckRewrite("p.md", []byte(orig), []byte(tc.out))
			if tc.line == 0 {
				assert.NoError(t, err)
				return
			}
			var be *BrokenError
			require.ErrorAs(t, err, &be)
			assert.Equal(t, tc.line, be.Line)
			assert.Contains(t, be.Problem, tc.want)
		})
	}
	t.Run("a file without tasks may lose none", func(t *testing.T) {
		assert.NoError(t, CheckRewrite("p.md", []byte("## Current Task\n- None\n"), []byte("## Notes\n")))
	})
}

func TestValidateBrokenFirst(t *testing.T) {
	in := "# P\n\n**Issue:** CIA-1\n\n## Completed Tasks\n<<<<<<< HEAD\n- a ✓\n=======\n- b ✓\n>>>>>>> f\n\n## Current Task\n- c\n\n## Current Task\n- d\n"
	var got []string
	for _, p := range Validate("p.md", []byte(in)) {
		got = append(got, p.String())
	}
	require.GreaterOrEqual(t, len(got), 4)
	assert.Equal(t, []string{
		`p.md:6: start of a merge conflict "<<<<<<< HEAD"`,
		`p.md:8: merge conflict separator "======="`,
		`p.md:10: end of a merge conflict ">>>>>>> f"`,
		`p.md:1: missing section "## Remaining Tasks"`,
	}, got[:4])
	assert.Contains(t, got, `p.md:15: duplicate section "## Current Task" (first at line 12); ccc reads only the first`)

	got = nil
	for _, p := range Validate("p.md", []byte("Notes\n\n## Todo\n- a\n")) {
		got = append(got, p.String())
	}
	require.NotEmpty(t, got)
	assert.Contains(t, got[0], "p.md:1: none of the sections ccc knows")
}

// Markdown a parse cannot read in bounded time is broken: refused by Check at its line, by Parse as a
// ParseError, listed once by Validate; a rewrite that would reach it, or pass MaxSize, is refused.
func TestLimitsMakeAFileBroken(t *testing.T) {
	nested := func(n int) string {
		return "# P\n\n## Current Task\n- a\n\n## Completed Tasks\n" + strings.Repeat("- ", n) + "x ✓\n"
	}
	require.NoError(t, Check("p.md", []byte(nested(100))), "100 levels are read")
	_, err := Parse([]byte(nested(100)))
	require.NoError(t, err)

	err = Check("p.md", []byte(nested(101)))
	var be *BrokenError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, 7, be.Line)
	assert.Equal(t, "lists or block quotes nested 101 levels deep; ccc reads at most 100", be.Problem)
	_, err = Parse([]byte(nested(101)))
	var pe *ParseError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 7, pe.Line)
	assert.Equal(t, []Problem{{Path: "p.md", Line: 7, Message: be.Problem}}, Validate("p.md", []byte(nested(101))))

	big := []byte("## Current Task\n- " + strings.Repeat("a", MaxSize) + "\n")
	require.ErrorAs(t, Check("p.md", big), &be)
	assert.Contains(t, be.Problem, "over the 10 MB limit for a progress document")
	_, err = Parse(big)
	require.ErrorAs(t, err, &pe)

	orig := []byte(nested(1))
	require.ErrorAs(t, CheckRewrite("p.md", orig, big), &be)
	assert.Contains(t, be.Problem, "ccc's rewrite of the file would be ")
	require.ErrorAs(t, CheckRewrite("p.md", orig, []byte(nested(101))), &be)
	assert.Contains(t, be.Problem, "would not be readable (its line 7: lists or block quotes nested 101 levels deep")
	require.ErrorAs(t, CheckRewrite("p.md", nil, big), &be, "a new file too")
}

// CheckRender judges an edited document without parsing its rendering
// again, and judges as CheckRewrite does on the original and the rendering.
func TestCheckRenderAgrees(t *testing.T) {
	const orig = "# P\n\n## Completed Tasks\n- a ✓\n- b ✓\n\n## Current Task\n- c\n\n## Remaining Tasks\n- d\n"
	for _, edit := range []string{
		orig,
		"# P\n\n## Completed Tasks\n- [x] A\n- b ✓\n- c ✓\n\n## Current Task\n- d — testing\n\n## Remaining Tasks\n- e\n",
		"# P\n\n## Completed Tasks\n- a ✓\n- b ✓\n",
		"# P\n\n## Completed Tasks\n- a ✓\n",
		"# P\n\n## Current Task\n- None\n",
		"## Completed Tasks\n- a ✓\n- a ✓\n- a ✓\n",
	} {
		d, err := Parse([]byte(orig))
		require.NoError(t, err)
		e, err := Parse([]byte(edit))
		require.NoError(t, err)
		d.Completed, d.Current, d.Remaining = e.Completed, e.Current, e.Remaining
		out := d.Render()
		assert.Equal(t, CheckRewrite("p.md", []byte(orig), out), d.CheckRender("p.md", out), edit)
	}
	t.Run("a new document loses nothing", func(t *testing.T) {
		d := New("CIA-1", time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC))
		assert.NoError(t, d.CheckRender("p.md", d.Render()))
	})
	t.Run("a rendering past the limits is refused", func(t *testing.T) {
		d, err := Parse([]byte(orig))
		require.NoError(t, err)
		d.Remaining = append(d.Remaining, Task{Text: strings.Repeat("- ", 101) + "x"})
		out := d.Render()
		var be *BrokenError
		require.ErrorAs(t, d.CheckRender("p.md", out), &be)
		assert.Equal(t, CheckRewrite("p.md", []byte(orig), out), be)
		require.ErrorAs(t, d.CheckRender("p.md", append(out, 0)), &be)
		assert.Contains(t, be.Problem, "would not be readable")
	})
}

// CheckParse reads a file once and says what Check and Parse say.
func TestCheckParse(t *testing.T) {
	for _, src := range []string{
		"", "  \n", "# P\n\n## Current Task\n- a\n", "Notes\n\n## Todo\n- a\n",
		"## Current Task\n<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> f\n", "## Current Task\n- a\x00\n",
	} {
		d, err := CheckParse("p.md", []byte(src))
		checkErr := Check("p.md", []byte(src))
		var be *BrokenError
		if checkErr != nil {
			assert.Equal(t, checkErr, err, src)
			assert.Nil(t, d)
			continue
		}
		want, perr := Parse([]byte(src))
		assert.False(t, errors.As(err, &be), src)
		assert.Equal(t, perr, err, src)
		if perr == nil {
			assert.Equal(t, want.Render(), d.Render(), src)
		}
	}
}

func TestTaskKey(t *testing.T) {
	for _, s := range []string{"", " ", "a", "a b", "a  b", " a", "a ", "A b", "a\tb", "a\nb", "é b", "É", "task 1: do /x", "a\u00a0b", "x\u2003y"} {
		assert.Equal(t, strings.ToLower(strings.Join(strings.Fields(s), " ")), taskKey(s), "%q", s)
	}
}

// Issue 26: the parse limit bounds nesting and bytes, not the number of tasks. A plain list of 100,000
// tasks is read (Check and Parse), while a deep nesting, deep nesting kept open over many lines, or a
// file over MaxSize is still refused.
func TestManyTasksAreNotBroken(t *testing.T) {
	var b strings.Builder
	b.WriteString("# P\n\n## Current Task\n- a\n\n## Remaining Tasks\n")
	for i := range 100_000 {
		fmt.Fprintf(&b, "- task %d\n", i)
	}
	src := []byte(b.String())
	require.NoError(t, Check("p.md", src))
	d, err := CheckParse("p.md", src)
	require.NoError(t, err)
	assert.Len(t, d.Remaining, 100_000)
	assert.Equal(t, "task 99999", d.Remaining[99_999].Text)

	deep := "# P\n\n## Current Task\n- a\n\n## Remaining Tasks\n" + strings.Repeat("- ", 100) + "x\n"
	var be *BrokenError
	require.ErrorAs(t, Check("p.md", []byte(deep+strings.Repeat("y\n", 3000))), &be, "deep nesting kept open by lazy lines")
	require.ErrorAs(t, Check("p.md", []byte(strings.Replace(deep, "- x", "- - x", 1))), &be, "101 levels")
	require.ErrorAs(t, Check("p.md", append(src, strings.Repeat("- task\n", MaxSize/7)...)), &be, "over MaxSize")
}
