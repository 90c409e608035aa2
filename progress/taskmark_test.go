package progress

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const markedDoc = `# Session Progress

## Completed Tasks
- Write the lexer ✓ <!-- ccc:task claude:1 -->
- Hand task ✓

## Current Task
- Write the parser — Writing the parser <!-- ccc:task claude:2 -->

## Remaining Tasks
- Tests <!-- ccc:task claude:3 -->
- [ ] Old idea (dropped) <!-- ccc:task claude:4 dropped -->
- hand-written task
`

func TestTaskMarkRoundTrip(t *testing.T) {
	d, err := Parse([]byte(markedDoc))
	require.NoError(t, err)
	assert.Equal(t, []Task{{Text: "Write the lexer", Done: true, Mark: "claude:1"}, {Text: "Hand task", Done: true}}, d.Completed)
	require.NotNil(t, d.Current)
	assert.Equal(t, Task{Text: "Write the parser", Status: "Writing the parser", Mark: "claude:2"}, *d.Current)
	assert.Equal(t, []Task{{Text: "Tests", Mark: "claude:3"},
		{Text: "Old idea (dropped)", Checkbox: true, Mark: "claude:4 dropped"}, {Text: "hand-written task"}}, d.Remaining)
	assert.Equal(t, markedDoc, string(d.Render()), "an unchanged document renders to its bytes")

	// Edited sections render the marks back, and they parse to the same tasks.
	d.Remaining[0].Text = "Tests for the parser"
	d.Completed = append(d.Completed, Task{Text: "Docs", Done: true, Mark: "claude:5"})
	d.Current.Status = "Still parsing"
	out := d.Render()
	assert.Contains(t, string(out), "- Docs ✓ <!-- ccc:task claude:5 -->\n")
	assert.Contains(t, string(out), "- Tests for the parser <!-- ccc:task claude:3 -->\n")
	assert.Contains(t, string(out), "- Write the parser — Still parsing <!-- ccc:task claude:2 -->\n")
	again, err := Parse(out)
	require.NoError(t, err)
	assert.Equal(t, d.Completed, again.Completed)
	assert.Equal(t, *d.Current, *again.Current)
	assert.Equal(t, d.Remaining, again.Remaining)

	// The marks never reach the prompt.
	assert.NotContains(t, again.GeneratePrompt(nil), "ccc:task")
	assert.False(t, strings.Contains(again.Next(), "<!--"))
}

func TestValidTaskMark(t *testing.T) {
	for mark, want := range map[string]bool{
		"claude:3": true, "claude:todo-2 dropped": true, "codex:todo-1": true,
		"": false, "a b": false, "x -->": false, "claude:3\n": false,
	} {
		assert.Equal(t, want, ValidTaskMark(mark), mark)
	}
}
