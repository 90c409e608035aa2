package capture

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/progress"
)

func doc(completed, current, remaining string) string {
	return "# Session Progress\n\n## Completed Tasks\n" + completed + "\n## Current Task\n" + current +
		"\n## Remaining Tasks\n" + remaining
}

func claude(tasks ...Task) List { return List{Agent: "claude", Source: "test", Tasks: tasks} }

func TestFold(t *testing.T) {
	none := "- None\n"
	tests := []struct {
		name    string
		in      string
		list    List
		want    string
		changed bool
	}{{
		name: "new tasks go where their status says",
		in:   doc(none, none, none),
		list: claude(Task{ID: "1", Text: "Write the lexer", Status: Completed},
			Task{ID: "2", Text: "Write the parser", Status: InProgress, ActiveForm: "Writing the parser"},
			Task{ID: "3", Text: "Add tests", Status: Pending}),
		want: doc("- Write the lexer ✓ <!-- ccc:task claude:1 -->\n",
			"- Write the parser — Writing the parser <!-- ccc:task claude:2 -->\n",
			"- Add tests <!-- ccc:task claude:3 -->\n"),
		changed: true,
	}, {
		name: "the same list again changes nothing",
		in: doc("- Write the lexer ✓ <!-- ccc:task claude:1 -->\n",
			"- Write the parser — Writing the parser <!-- ccc:task claude:2 -->\n",
			"- Add tests <!-- ccc:task claude:3 -->\n"),
		list: claude(Task{ID: "1", Text: "Write the lexer", Status: Completed},
			Task{ID: "2", Text: "Write the parser", Status: InProgress, ActiveForm: "Writing the parser"},
			Task{ID: "3", Text: "Add tests", Status: Pending}),
		want: doc("- Write the lexer ✓ <!-- ccc:task claude:1 -->\n",
			"- Write the parser — Writing the parser <!-- ccc:task claude:2 -->\n",
			"- Add tests <!-- ccc:task claude:3 -->\n"),
	}, {
		name: "completion moves the task; the next in_progress becomes current",
		in: doc("- Write the lexer ✓ <!-- ccc:task claude:1 -->\n",
			"- Write the parser — Writing the parser <!-- ccc:task claude:2 -->\n",
			"- Add tests <!-- ccc:task claude:3 -->\n"),
		list: claude(Task{ID: "1", Text: "Write the lexer", Status: Completed},
			Task{ID: "2", Text: "Write the parser", Status: Completed},
			Task{ID: "3", Text: "Add tests", Status: InProgress}),
		want: doc("- Write the lexer ✓ <!-- ccc:task claude:1 -->\n- Write the parser ✓ <!-- ccc:task claude:2 -->\n",
			"- Add tests — in progress <!-- ccc:task claude:3 -->\n",
			""),
		changed: true,
	}, {
		name:    "a renamed task is updated in place, not duplicated",
		in:      doc(none, none, "- Add tests <!-- ccc:task claude:3 -->\n- Write docs <!-- ccc:task claude:4 -->\n"),
		list:    claude(Task{ID: "3", Text: "Add parser tests", Status: Pending}, Task{ID: "4", Text: "Write docs", Status: Pending}),
		want:    doc(none, none, "- Add parser tests <!-- ccc:task claude:3 -->\n- Write docs <!-- ccc:task claude:4 -->\n"),
		changed: true,
	}, {
		name: "hand-written tasks keep their text; the agent's in_progress task takes the current slot",
		in: doc("- Set up CI ✓\n", "- Review the API by hand — halfway\n",
			"- [ ] Ask Ana about the schema\n- Add tests <!-- ccc:task claude:3 -->\n"),
		list: claude(Task{ID: "3", Text: "Add tests", Status: Completed},
			Task{ID: "4", Text: "Fix the build", Status: InProgress, ActiveForm: "Fixing the build"}),
		want: doc("- Set up CI ✓\n- Add tests ✓ <!-- ccc:task claude:3 -->\n", "- Fix the build — Fixing the build <!-- ccc:task claude:4 -->\n",
			"- Review the API by hand — halfway\n- [ ] Ask Ana about the schema\n"),
		changed: true,
	}, {
		name: "a typed task with the agent's text is the agent's task",
		in:   doc(none, "- write parser — in progress\n", "- write tests\n- docs\n"),
		list: claude(Task{ID: "todo-1", Text: "Write  parser ", Status: Completed},
			Task{ID: "todo-2", Text: "write tests", Status: InProgress, ActiveForm: "Writing tests"},
			Task{ID: "todo-3", Text: "docs", Status: Pending}),
		want: doc("- Write parser ✓ <!-- ccc:task claude:todo-1 -->\n", "- write tests — Writing tests <!-- ccc:task claude:todo-2 -->\n",
			"- docs <!-- ccc:task claude:todo-3 -->\n"),
		changed: true,
	}, {
		name:    "a typed task is taken once, by the first list task with its text",
		in:      doc("- Lexer ✓\n", none, none),
		list:    claude(Task{ID: "1", Text: "lexer", Status: Completed}, Task{ID: "2", Text: "Lexer", Status: Pending}),
		want:    doc("- lexer ✓ <!-- ccc:task claude:1 -->\n", none, "- Lexer <!-- ccc:task claude:2 -->\n"),
		changed: true,
	}, {
		name:    "a typed current task with no in_progress task in the list keeps the slot",
		in:      doc(none, "- Review the API by hand — halfway\n", none),
		list:    claude(Task{ID: "1", Text: "Fix the build", Status: Pending}),
		want:    doc(none, "- Review the API by hand — halfway\n", "- Fix the build <!-- ccc:task claude:1 -->\n"),
		changed: true,
	}, {
		name: "a task that leaves the list is marked dropped, not deleted",
		in: doc("- Write the lexer ✓ <!-- ccc:task claude:1 -->\n", "- Write the parser — Writing <!-- ccc:task claude:2 -->\n",
			"- Add tests <!-- ccc:task claude:3 -->\n- Keep me\n"),
		list: claude(Task{ID: "3", Text: "Add tests", Status: InProgress}),
		want: doc("- Write the lexer ✓ <!-- ccc:task claude:1 -->\n", "- Add tests — in progress <!-- ccc:task claude:3 -->\n",
			"- Keep me\n- [x] Write the parser (dropped) <!-- ccc:task claude:2 dropped -->\n"),
		changed: true,
	}, {
		name:    "a dropped task comes back with its id",
		in:      doc(none, none, "- [x] Add tests (dropped) <!-- ccc:task claude:3 dropped -->\n"),
		list:    claude(Task{ID: "3", Text: "Add tests", Status: Pending}),
		want:    doc(none, none, "- [ ] Add tests <!-- ccc:task claude:3 -->\n"),
		changed: true,
	}, {
		name:    "cancelled goes to Completed as cancelled",
		in:      doc(none, none, "- Add tests <!-- ccc:task claude:3 -->\n"),
		list:    claude(Task{ID: "3", Text: "Add tests", Status: Cancelled}),
		want:    doc("- [x] Add tests (cancelled) <!-- ccc:task claude:3 dropped -->\n", none, ""),
		changed: true,
	}, {
		name:    "a task cancelled the first time it is seen is kept",
		in:      doc(none, none, none),
		list:    claude(Task{ID: "1", Text: "Lexer", Status: Completed}, Task{ID: "3", Text: "Add tests", Status: Cancelled}),
		want:    doc("- Lexer ✓ <!-- ccc:task claude:1 -->\n- [x] Add tests (cancelled) <!-- ccc:task claude:3 dropped -->\n", none, none),
		changed: true,
	}, {
		name:    "a cancelled task comes back when it is open again",
		in:      doc("- [x] Add tests (cancelled) <!-- ccc:task claude:3 dropped -->\n", none, none),
		list:    claude(Task{ID: "3", Text: "Add tests", Status: Pending}),
		want:    doc("", none, "- [ ] Add tests <!-- ccc:task claude:3 -->\n"),
		changed: true,
	}, {
		name:    "blocked stays open with a blocker note",
		in:      doc(none, none, none),
		list:    claude(Task{ID: "1", Text: "Deploy", Status: Blocked}),
		want:    doc(none, none, "- Deploy (blocked) <!-- ccc:task claude:1 -->\n"),
		changed: true,
	}, {
		name: "an in_progress task already in Remaining moves to its front",
		in: doc(none, "- A — in progress <!-- ccc:task claude:1 -->\n",
			"- B <!-- ccc:task claude:2 -->\n- C <!-- ccc:task claude:3 -->\n"),
		list: claude(Task{ID: "1", Text: "A", Status: InProgress}, Task{ID: "2", Text: "B", Status: Pending},
			Task{ID: "3", Text: "C", Status: InProgress}),
		want: doc(none, "- A — in progress <!-- ccc:task claude:1 -->\n",
			"- C <!-- ccc:task claude:3 -->\n- B <!-- ccc:task claude:2 -->\n"),
		changed: true,
	}, {
		name: "open blockers become a note; finished ones do not",
		in:   doc(none, none, none),
		list: claude(Task{ID: "1", Text: "Lexer", Status: Completed}, Task{ID: "2", Text: "Parser", Status: Pending},
			Task{ID: "3", Text: "Tests", Status: Pending, BlockedBy: []string{"1", "2", "9"}}),
		want: doc("- Lexer ✓ <!-- ccc:task claude:1 -->\n", none,
			"- Parser <!-- ccc:task claude:2 -->\n- Tests (blocked by: Parser, #9) <!-- ccc:task claude:3 -->\n"),
		changed: true,
	}, {
		name:    "a re-created list takes over the old marks by text",
		in:      doc("- Lexer ✓ <!-- ccc:task claude:1 -->\n", none, "- Parser <!-- ccc:task claude:2 -->\n"),
		list:    claude(Task{ID: "7", Text: "Parser", Status: InProgress, ActiveForm: "Parsing"}),
		want:    doc("- Lexer ✓ <!-- ccc:task claude:1 -->\n", "- Parser — Parsing <!-- ccc:task claude:7 -->\n", ""),
		changed: true,
	}, {
		name:    "another agent's tasks are not this list's",
		in:      doc(none, none, "- Plan step <!-- ccc:task codex:todo-1 -->\n"),
		list:    claude(Task{ID: "todo-1", Text: "Something else", Status: Pending}),
		want:    doc(none, none, "- Plan step <!-- ccc:task codex:todo-1 -->\n- Something else <!-- ccc:task claude:todo-1 -->\n"),
		changed: true,
	}, {
		name: "a second in_progress task leads Remaining",
		in:   doc(none, none, none),
		list: claude(Task{ID: "1", Text: "A", Status: InProgress}, Task{ID: "2", Text: "B", Status: Pending},
			Task{ID: "3", Text: "C", Status: InProgress}),
		want: doc(none, "- A — in progress <!-- ccc:task claude:1 -->\n",
			"- C <!-- ccc:task claude:3 -->\n- B <!-- ccc:task claude:2 -->\n"),
		changed: true,
	}, {
		name: "an empty list drops what was open and keeps what was done",
		in: doc("- Lexer ✓ <!-- ccc:task claude:1 -->\n", none,
			"- Parser <!-- ccc:task claude:2 -->\n"),
		list: claude(),
		want: doc("- Lexer ✓ <!-- ccc:task claude:1 -->\n", none,
			"- [x] Parser (dropped) <!-- ccc:task claude:2 dropped -->\n"),
		changed: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := progress.Parse([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.changed, Fold(d, tt.list))
			out := d.Render()
			assert.Equal(t, tt.want, string(out))
			again, err := progress.Parse(out)
			require.NoError(t, err)
			assert.False(t, Fold(again, tt.list), "folding the same list twice changes nothing")
		})
	}
}

func TestFoldCounts(t *testing.T) {
	d, err := progress.Parse([]byte(doc("- None\n", "- None\n", "- Hand task\n")))
	require.NoError(t, err)
	Fold(d, claude(Task{ID: "1", Text: "A", Status: Completed}, Task{ID: "2", Text: "B", Status: InProgress},
		Task{ID: "3", Text: "C", Status: Cancelled}))
	assert.Equal(t, 3, d.TaskM(), "A, B and the hand task; C was never listed open")
	assert.Equal(t, 2, d.TaskN())
	assert.Equal(t, progress.InProgress, d.Status())
}
