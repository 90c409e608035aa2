package progress

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// model is the exported part of a document, the part Parse(Render(d)) must reproduce.
func model(d *Document) Document { return d.clone() }

func corpus(t testing.TB) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob("testdata/corpus/*.md")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 15)
	files := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		files[filepath.Base(p)] = b
	}
	return files
}

// edits are the scripted edits the round-trip tests apply to every document: together they touch
// every section, every header field and every rendering path (adding, removing, emptying, multi-line).
var edits = []struct {
	name string
	edit func(d *Document)
}{
	{"checkpoint", func(d *Document) {
		_ = d.Apply(Edits{
			Done:      []string{""},
			AddTasks:  []string{"new task A"},
			Decisions: []string{"new decision: because"},
			Blockers:  []string{"new blocker (unblocked by: a fix)"},
			Next:      "do the next thing",
			Session:   "2026-12-01T00:00:00Z",
			Mode:      "exec:tdd",
		})
		d.RefreshPrompt([]string{"a.go", "b.go"}, false)
	}},
	{"switch", func(d *Document) {
		var unblock []string
		for _, b := range d.Blockers {
			unblock = append(unblock, b.Description)
		}
		_ = d.Apply(Edits{Current: "another task — starting", Unblock: unblock, Issue: "NEW-1"})
	}},
	{"finish", func(d *Document) {
		_ = d.Apply(Edits{Done: []string{"", "", "", "never listed"}})
		d.RefreshPrompt(nil, true)
	}},
	{"empty", func(d *Document) {
		d.Completed, d.Remaining, d.Current, d.Decisions, d.Blockers = nil, nil, nil, nil, nil
		d.Learnings, d.Goal, d.ContinuationPrompt = nil, "", ""
		d.Session, d.Mode, d.NextAction, d.Issue = "", "", "", Issue{}
	}},
	{"multiline", func(d *Document) {
		_ = d.Apply(Edits{
			AddTasks:  []string{"line one\nline two\n\n  - nested\n\t- tabbed", "[ ] boxed task"},
			Current:   "multi\nline — status",
			Decisions: []string{"what\nspans: lines\nand more"},
			Blockers:  []string{"blocked\non two lines"},
		})
		d.ContinuationPrompt = "first\n\n    indented\nlast ✓"
	}},
	{"everything", func(d *Document) {
		d.Title = "Renamed"
		d.Fields = append(d.Fields, Field{Name: "Agent", Value: "claude-3"})
		d.Learnings = append(d.Learnings, Learning{Time: "2026-12-01 10:00", Text: "learned"})
		d.Goal = "a goal\nover two lines"
		d.Issue = Issue{Key: "ALL-9", Title: "with a title"}
		d.Completed = append(d.Completed, Task{Text: "checked", Checkbox: true, Done: true}, Task{Text: "", Done: true})
		d.Remaining = append(d.Remaining, Task{Text: "open box", Checkbox: true}, Task{Text: ""})
		d.Decisions = append(d.Decisions, Decision{What: "only what"}, Decision{What: "boxed", Why: "why", Checkbox: true, Checked: true})
		d.Blockers = append(d.Blockers, Blocker{Description: "resolved", UnblockedBy: "done", Checkbox: true, Checked: true})
	}},
}

// checkRoundTrip asserts both guarantees for one input: an unchanged document renders to the same
// bytes, and every scripted edit renders to a file that parses back to the edited model (and renders
// to itself again).
func checkRoundTrip(t *testing.T, src []byte) {
	t.Helper()
	d, err := Parse(src)
	if err != nil {
		return
	}
	require.Equal(t, string(src), string(d.Render()), "unchanged document must render to its own bytes")
	for _, e := range edits {
		d, err := Parse(src)
		require.NoError(t, err)
		e.edit(d)
		out := d.Render()
		back, err := Parse(out)
		require.NoError(t, err, "edit %s", e.name)
		require.Equal(t, model(d), model(back), "edit %s: Parse(Render(d)) != d; rendered:\n%s", e.name, out)
		require.Equal(t, string(out), string(back.Render()), "edit %s: re-render changed the bytes", e.name)
		require.Equal(t, d.Layout(), back.Layout(), "edit %s: layout", e.name)
	}
}

func TestCorpusRoundTrip(t *testing.T) {
	for name, src := range corpus(t) {
		t.Run(name, func(t *testing.T) { checkRoundTrip(t, src) })
	}
}

func FuzzRoundTrip(f *testing.F) {
	for _, src := range corpus(f) {
		if len(src) < 8<<10 { // a long seed makes every mutation, and minimising it, slow
			f.Add(src)
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("## Current Task\n- a\n  - b\n- c\n"))
	// ccc's mark in the places a person's edit may leave it.
	f.Add([]byte("## Continuation Prompt\n<!-- ccc:generated sha256:0123456789ab -->\n"))
	f.Add([]byte("## Continuation Prompt\na\n<!-- ccc:generated sha256:0123456789ab -->\n    indented\n\n## Notes\n"))
	f.Add([]byte("## Continuation Prompt\n```\n<!-- ccc:generated sha256:0123456789ab -->\n"))
	f.Add([]byte("## Continuation Prompt\r\n- a\r\n<!-- open\r\n\r\n <!-- ccc:generated sha256:0123456789ab --> \r\n"))
	f.Fuzz(checkRoundTrip)
}

func TestNewRoundTrip(t *testing.T) {
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			d := New("CIA-7", time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC))
			e.edit(d)
			out := d.Render()
			back, err := Parse(out)
			require.NoError(t, err)
			require.Equal(t, model(d), model(back), "rendered:\n%s", out)
			require.Equal(t, string(out), string(back.Render()))
		})
	}
}
