package capture

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/progress"
)

// plain is a list whose items have no id of their own (TodoWrite, update_plan, write_todos).
func gem(tasks ...Task) List { return List{Agent: "gemini", Source: "test", Tasks: tasks} }

func mk(text string) string { return "gemini:" + TextID(text) }

func m(text string) string { return " <!-- ccc:task " + mk(text) + " -->" }

// TestFoldIdentity has one case per row of DESIGN.md's identity table.
func TestFoldIdentity(t *testing.T) {
	none := "- None\n"
	tests := []struct {
		name string
		in   string
		list List
		want string
	}{{
		name: "the tool's own id matches, whatever the text",
		in:   doc(none, none, "- Add tests <!-- ccc:task gemini:a1 -->\n"),
		list: gem(Task{ID: "a1", Text: "Add parser tests", Status: Pending}),
		want: doc(none, none, "- Add parser tests <!-- ccc:task gemini:a1 -->\n"),
	}, {
		name: "without an id the text matches, wherever the item moved",
		in:   doc("- Lexer ✓"+m("Lexer")+"\n", none, "- Parser"+m("Parser")+"\n"),
		list: gem(Task{Text: "parser", Status: InProgress}, Task{Text: "Lexer", Status: Completed}),
		want: doc("- Lexer ✓"+m("Lexer")+"\n", "- parser — in progress"+m("Parser")+"\n", ""),
	}, {
		name: "a shorter list keeps finished work done and drops only what was open",
		in: doc("- Lexer ✓"+m("Lexer")+"\n- Parser ✓"+m("Parser")+"\n", none,
			"- Docs"+m("Docs")+"\n"),
		list: gem(Task{Text: "Release", Status: InProgress}),
		want: doc("- Lexer ✓"+m("Lexer")+"\n- Parser ✓"+m("Parser")+"\n", "- Release — in progress"+m("Release")+"\n",
			"- [x] Docs (dropped) <!-- ccc:task "+mk("Docs")+" dropped -->\n"),
	}, {
		name: "a cleared list that starts anew never overwrites a finished task",
		in:   doc("- Lexer ✓"+m("Lexer")+"\n", none, none),
		list: gem(Task{Text: "Write the changelog", Status: Pending}),
		want: doc("- Lexer ✓"+m("Lexer")+"\n", none, "- Write the changelog"+m("Write the changelog")+"\n"),
	}, {
		name: "one item renamed while the others keep their text is the same task",
		in:   doc("- Lexer ✓"+m("Lexer")+"\n", none, "- Parser"+m("Parser")+"\n"),
		list: gem(Task{Text: "Lexer", Status: Completed}, Task{Text: "Parser and its tests", Status: Pending}),
		want: doc("- Lexer ✓"+m("Lexer")+"\n", none, "- Parser and its tests"+m("Parser and its tests")+"\n"),
	}, {
		name: "a finished task is never renamed into another",
		in:   doc("- Lexer ✓"+m("Lexer")+"\n", none, "- Parser"+m("Parser")+"\n"),
		list: gem(Task{Text: "Formatter", Status: Pending}, Task{Text: "Parser", Status: Pending}),
		want: doc("- Lexer ✓"+m("Lexer")+"\n", none, "- Parser"+m("Parser")+"\n- Formatter"+m("Formatter")+"\n"),
	}, {
		name: "two texts changed at once are new tasks; the old open one is dropped",
		in:   doc(none, none, "- Parser"+m("Parser")+"\n- Docs"+m("Docs")+"\n"),
		list: gem(Task{Text: "Formatter", Status: Pending}, Task{Text: "Linter", Status: Pending}),
		want: doc(none, none, "- [x] Parser (dropped) <!-- ccc:task "+mk("Parser")+" dropped -->\n"+
			"- [x] Docs (dropped) <!-- ccc:task "+mk("Docs")+" dropped -->\n"+
			"- Formatter"+m("Formatter")+"\n- Linter"+m("Linter")+"\n"),
	}, {
		name: "a task marked by position (ccc before issue 24) is taken over by its text",
		in:   doc("- Lexer ✓ <!-- ccc:task gemini:todo-1 -->\n", none, "- Parser <!-- ccc:task gemini:todo-2 -->\n"),
		list: gem(Task{Text: "Parser", Status: Pending}),
		want: doc("- Lexer ✓ <!-- ccc:task gemini:todo-1 -->\n", none, "- Parser"+m("Parser")+"\n"),
	}, {
		name: "the same text twice is two tasks",
		in:   doc(none, none, none),
		list: gem(Task{Text: "Run tests", Status: Completed}, Task{Text: "Run tests", Status: Pending}),
		want: doc("- Run tests ✓"+m("Run tests")+"\n", none, "- Run tests <!-- ccc:task "+mk("Run tests")+"-2 -->\n"),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := progress.Parse([]byte(tt.in))
			require.NoError(t, err)
			Fold(d, tt.list)
			out := d.Render()
			assert.Equal(t, tt.want, string(out))
			again, err := progress.Parse(out)
			require.NoError(t, err)
			assert.False(t, Fold(again, tt.list), "folding the same list twice changes nothing")
		})
	}
}
