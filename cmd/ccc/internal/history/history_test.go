package history

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ccc-checkpoint/ccc/state/records"
)

var now = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

func TestListAndTable(t *testing.T) {
	t.Parallel()
	all := []records.Stored{
		{Record: &records.Record{ID: "a-1", Agent: "a", Issue: "CIA-1", Status: "complete", UpdatedAt: now.Add(-2 * time.Hour)}, Kind: records.Kind("archive")},
		{Record: &records.Record{Agent: "b", Status: "in_progress"}, Kind: records.Kind("current")},
	}
	assert.Len(t, List(all, ""), 2)
	only := List(all, "b")
	assert.Equal(t, []Listed{{Agent: "b", Status: "in_progress", Kind: "current"}}, only)
	assert.Equal(t, "ID   AGENT  ISSUE  STATUS       KIND     UPDATED\n"+
		"a-1  a      CIA-1  complete     archive  2h ago\n"+
		"—    b      —      in_progress  current  —\n", Table(List(all, ""), now))
	assert.Equal(t, []Listed{}, List(nil, ""), "an empty list, not null, in --json")
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	r := &records.Record{ID: "a-1", Agent: "a", Issue: "CIA-1", Status: "in_progress", Phase: "build",
		CurrentStep: "parser", NextSteps: []string{"lexer", "docs"}, Branch: "main", Head: "0123456789abcdef",
		Errors:             []records.Error{{Type: "test", Message: "red", Blocking: true}},
		UpdatedAt:          now.Add(-90 * time.Second),
		ResumeInstructions: "Resume.\n\n"}
	got := Describe(records.Stored{Record: r, Kind: records.Kind("current"), Path: "a.json"}, now)
	assert.Equal(t, `Record a-1 (current, a.json)
Agent:      a (session —)
Issue:      CIA-1
Status:     in_progress, phase build
Current:    parser
Next:       - lexer
            - docs
Errors:     - [test] red (blocking)
Updated:    2026-11-21T13:43:30Z (1m ago)
Git:        main at 0123456

Continuation prompt:
Resume.
`, got)
}

func TestActions(t *testing.T) {
	t.Parallel()
	acts := []records.Action{
		{Op: records.OpMove, Path: "/d/a.json", To: "/d/failed/a.json", Reason: "failed", ID: "a-1"},
		{Path: "/d/archive/b.json", Reason: "older than 30d"},
	}
	got, removed, moved := Actions("/d", acts, true)
	assert.Equal(t, "would move a.json → failed/a.json (failed, a-1)\nwould remove archive/b.json (older than 30d, —)\n", got)
	assert.Equal(t, 1, removed)
	assert.Equal(t, 1, moved)
	got, _, _ = Actions("/d", acts[1:], false)
	assert.Equal(t, "removed archive/b.json (older than 30d, —)\n", got)
}

func TestResumePrompt(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Go on.", ResumePrompt(&records.Record{ResumeInstructions: "Go on."}))
	assert.Equal(t, "Resume CIA-1, taking over from a. Current task: parser. Key files: x.go.\nNext action: lexer.",
		ResumePrompt(&records.Record{Agent: "a", Issue: "CIA-1", ResumeInstructions: " \n", CurrentStep: "parser",
			FilesModified: []string{"x.go"}, NextSteps: []string{"lexer"}}))
}
