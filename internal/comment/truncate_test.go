package comment

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
)

// A body cut inside a fenced block, or one that ends inside it, has the
// fence closed before the note, within the limit: the note is a paragraph
// and what a sink appends after it is not code.
func TestTruncateStatusClosesBlocks(t *testing.T) {
	note := TruncateNote("report.md")
	var log strings.Builder
	for i := range 200 {
		log.WriteString("build step " + strings.Repeat("x", i%7) + " ok\n")
	}
	tests := []struct {
		name  string
		body  string
		limit int
		// last are the last top-level blocks of the result, each its kind
		// and the start of its text.
		last []string
	}{
		{"log cut inside its fence", "## Build\n\n````\n" + log.String() + "````\n\ndone", 300,
			[]string{"FencedCodeBlock: build step  ok", "Paragraph: " + note}},
		{"body ending inside a fence, within the limit", "## Build\n\n```\nstep 1", 300,
			[]string{"Heading: Build", "FencedCodeBlock: step 1"}},
		{"status with a log appended, cut", Render(longStatus(10, 10, 10, 10)) + "\n\n```\n" + log.String(), 400,
			[]string{"Paragraph: **Decisions:** ", "FencedCodeBlock: build step  ok\n", "Paragraph: " + note}},
		{"body ending in an open HTML comment", "## Notes\n\n<!-- draft\n" + log.String(), 300,
			[]string{"Heading: Notes", "HTMLBlock: <!-- draft\n", "Paragraph: " + note}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.body, tt.limit, note)
			assert.LessOrEqual(t, utf8.RuneCountInString(got), tt.limit)
			bs := testutil.Blocks(got + "\n\n<!-- marker -->")
			assert.Equal(t, "HTMLBlock: <!-- marker -->", bs[len(bs)-1], got)
			bs = bs[:len(bs)-1]
			for i, want := range tt.last {
				b := bs[len(bs)-len(tt.last)+i]
				assert.True(t, strings.HasPrefix(b, want), "block %q, want it to start %q", b, want)
			}
			if strings.Contains(got, note) {
				assert.Equal(t, "Paragraph: "+note, bs[len(bs)-1], "the note is a paragraph of its own")
			}
		})
	}
}

// The closing line counts toward the limit at every limit: the result fits,
// and once the note fits it is a paragraph of its own, after the closed
// fence.
func TestTruncateStatusClosesAtAnyLimit(t *testing.T) {
	note := TruncateNote("report.md")
	body := "## Build\n\n`````\n" + strings.Repeat("step ok\n", 40)
	for limit := 1; limit < utf8.RuneCountInString(body)+6; limit++ {
		got := Truncate(body, limit, note)
		assert.LessOrEqual(t, utf8.RuneCountInString(got), limit)
		if limit < 60 {
			continue
		}
		bs := testutil.Blocks(got + "\n\n<!-- marker -->")
		assert.Equal(t, "HTMLBlock: <!-- marker -->", bs[len(bs)-1], "limit %d: %q", limit, got)
		if strings.HasSuffix(got, note) {
			assert.Equal(t, "Paragraph: "+note, bs[len(bs)-2], "limit %d: %q", limit, got)
		}
	}
}

func TestStatusFieldList(t *testing.T) {
	body := Render(Status{Updated: statusSampleTime, TaskN: 1, TaskM: 3, Task: "a", Next: "b"})
	got := FieldList(body)
	testutil.Golden(t, filepath.Join("testdata", "field-list"+".md"), got)
	html := renderStatusHTML(t, got)
	assert.Equal(t, 1, strings.Count(html, "<ul>"), "one list: %s", html)
	assert.Equal(t, 7, strings.Count(html, "<li>"), html)
	assert.NotContains(t, html, "<p>", "a tight list, no paragraph joins two fields")

	tests := []struct{ name, in, want string }{
		{"not a status", "# Report\n\nall green\n", "# Report\n\nall green\n"},
		{"a label inside code stays", "```\n**Task:** x\n```\n**Next:** y\n", "```\n**Task:** x\n```\n- **Next:** y\n"},
		{"already a list", "- **Task:** x\n", "- **Task:** x\n"},
		{"CRLF", "**Task:** x\r\n\r\n**Next:** y\r\n", "- **Task:** x\r\n- **Next:** y\r\n"},
		{"a blank line before other text stays", "**Task:** x\n\nprose\n", "- **Task:** x\n\nprose\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, FieldList(tt.in))
		})
	}
}

// A megabyte of log in a --body-file, cut to GitHub's limit: the cut drops
// tens of thousands of lines, and must stay linear in them.
func BenchmarkTruncateStatusLongLog(b *testing.B) {
	body := "## Build\n\n```\n" + strings.Repeat("step 0000 passed with a long explanation\n", 25000)
	note := TruncateNote("log.md")
	for b.Loop() {
		Truncate(body, 65536, note)
	}
}
