package progress

import (
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
		{"stale ccc prompt follows the edits", "Resume CIA-1. Current task: task 1 of 9 — old. Key files: none. Next action: old.", false, true},
		{"ccc prompt in the protocol's two-line shape", "Resume CIA-1. Current task: task 1 of 9 — old. Key files: x.\nNext action: old.", false, true},
		{"the agent's own prompt is kept", "You were halfway through two; see notes.", false, false},
		{"a prompt that only starts like ccc's is kept", "Resume CIA-1. Current task: task 1 of 9 — old. Key files: none. Next action: old.\n\nAlso: the flaky test.", false, false},
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
