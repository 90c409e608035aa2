package progress

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGeneratePrompt(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		files []string
		want  string
	}{
		{"current task", base, []string{"a.go", "b.go"},
			"Resume CIA-1. Current task: task 3 of 5 — two. Key files: a.go, b.go. Next action: continue two."},
		{"next action field wins, periods are not doubled",
			"**Issue:** CIA-2\n**Next Action:** run the tests.\n\n## Current Task\n- fix it.\n", nil,
			"Resume CIA-2. Current task: task 1 of 1 — fix it. Key files: none. Next action: run the tests."},
		{"no current task starts the first open remaining one",
			"## Completed Tasks\n- a ✓\n\n## Remaining Tasks\n- [x] b\n- c\n  on two lines\n", nil,
			"Resume the session. Current task: none (2 of 3 tasks done). Key files: none. Next action: start c on two lines."},
		{"nothing left", "**Issue:** CIA-3\n\n## Completed Tasks\n- a ✓\n", []string{"x.go"},
			"Resume CIA-3. Current task: none (1 of 1 tasks done). Key files: x.go. Next action: review the finished work."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(tc.in))
			require.NoError(t, err)
			got := d.GeneratePrompt(tc.files)
			assert.Equal(t, tc.want, got)
			assert.Regexp(t, generatedRe, got, "ccc must recognise its own prompts")
		})
	}
}

func TestRefreshPrompt(t *testing.T) {
	tests := []struct {
		name    string
		prompt  string
		force   bool
		changed bool
	}{
		{"empty prompt is generated", "", false, true},
		{"blank prompt is generated", " \n\t", false, true},
		{"a prompt in ccc's one-line shape is kept: the caller decides whose it is", "Resume CIA-1. Current task: task 1 of 9 — old. Key files: none. Next action: old.", false, false},
		{"the agent's prompt in the protocol's two-line shape is kept", "Resume CIA-1. Current task: task 2 of 3 — port parser. Key files: parse.go, render.go.\nNext action: fix the CRLF bug in render.go line 120.", false, false},
		{"the agent's own prompt is kept", "You were halfway through two; see notes.", false, false},
		{"force replaces anything", "You were halfway through two; see notes.", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(base))
			require.NoError(t, err)
			d.ContinuationPrompt = tc.prompt
			assert.Equal(t, tc.changed, d.RefreshPrompt([]string{"a.go"}, tc.force))
			if tc.changed {
				assert.Equal(t, d.GeneratePrompt([]string{"a.go"}), d.ContinuationPrompt)
				assert.False(t, d.RefreshPrompt([]string{"a.go"}, tc.force), "a fresh prompt does not change again")
			} else {
				assert.Equal(t, tc.prompt, d.ContinuationPrompt)
			}
		})
	}
}

func TestLooksGenerated(t *testing.T) {
	d, err := Parse([]byte(base))
	require.NoError(t, err)
	own := d.GeneratePrompt([]string{"a.go"})
	tests := []struct {
		name   string
		prompt string
		files  [][]string
		want   bool
	}{
		{"ccc's prompt for this document", own, [][]string{{"a.go"}}, true},
		{"the same, broken onto the protocol's two lines", strings.Replace(own, " Next action:", "\nNext action:", 1), [][]string{{"a.go"}}, true},
		{"with another of the file lists", own, [][]string{{"b.go"}, {"a.go"}}, true},
		{"other key files", own, [][]string{{"b.go"}}, false},
		{"ccc's shape for another state of the document", "Resume CIA-1. Current task: task 1 of 9 — old. Key files: a.go. Next action: continue old.", [][]string{{"a.go"}}, false},
		{"the agent's prompt in the seed's form", "Resume CIA-1. Current task: task 3 of 5 — two. Key files: parse.go, render.go.\nNext action: fix the CRLF bug in render.go line 120.", [][]string{{"a.go"}, {"parse.go", "render.go"}}, false},
		{"empty", "", [][]string{{"a.go"}}, false},
		{"ccc's text with more after it", own + "\n\nAlso: the flaky test.", [][]string{{"a.go"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d.ContinuationPrompt = tc.prompt
			assert.Equal(t, tc.want, d.LooksGenerated(tc.files...))
		})
	}
}

func TestPromptHash(t *testing.T) {
	a := PromptHash("Resume CIA-1. Key files: a.go.\nNext action: go.")
	assert.Equal(t, a, PromptHash("  Resume CIA-1.  Key files: a.go. Next action:\tgo.\n"), "spacing and line breaks do not count")
	assert.NotEqual(t, a, PromptHash("Resume CIA-1. Key files: b.go. Next action: go."))
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, a)
}

func TestPrompt(t *testing.T) {
	d, err := Parse([]byte(base))
	require.NoError(t, err)
	assert.Equal(t, "Go.", d.Prompt())
	d.ContinuationPrompt = " \n"
	assert.Equal(t, d.GeneratePrompt(nil), d.Prompt())
}

func TestNext(t *testing.T) {
	d, err := Parse([]byte(base))
	require.NoError(t, err)
	assert.Equal(t, "continue two", d.Next())
	d.NextAction = "ship"
	assert.Equal(t, "ship", d.Next())
}
