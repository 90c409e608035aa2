package progress

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// base is a small canonical document the edit tests start from.
const base = `# Session Progress

**Issue:** CIA-1 — Base
**Session:** 2026-01-01T00:00:00Z

## Completed Tasks
- one ✓

## Current Task
- two — halfway

## Remaining Tasks
- three
- [x] four
- five

## Decisions Made
- a: b

## Blockers
- waiting for review (unblocked by: approval)
- flaky CI runner

## Continuation Prompt
Go.
`

func TestApply(t *testing.T) {
	tests := []struct {
		name    string
		edits   Edits
		want    func(d *Document)
		wantErr string
	}{
		{"done finishes the current task and promotes the next open one",
			Edits{Done: []string{""}}, func(d *Document) {
				d.Completed = append(d.Completed, Task{Text: "two", Done: true})
				d.Current = &Task{Text: "three"}
				d.Remaining = []Task{{Text: "four", Checkbox: true, Done: true}, {Text: "five"}}
			}, ""},
		{"done naming the current task, any case",
			Edits{Done: []string{"  TWO "}}, func(d *Document) {
				d.Completed = append(d.Completed, Task{Text: "two", Done: true})
				d.Current = &Task{Text: "three"}
				d.Remaining = []Task{{Text: "four", Checkbox: true, Done: true}, {Text: "five"}}
			}, ""},
		{"done with a new current task does not promote",
			Edits{Done: []string{""}, Current: "new — starting"}, func(d *Document) {
				d.Completed = append(d.Completed, Task{Text: "two", Done: true})
				d.Current = &Task{Text: "new", Status: "starting"}
			}, ""},
		{"done naming a remaining task moves it",
			Edits{Done: []string{"five"}}, func(d *Document) {
				d.Completed = append(d.Completed, Task{Text: "five", Done: true})
				d.Remaining = []Task{{Text: "three"}, {Text: "four", Checkbox: true, Done: true}}
			}, ""},
		{"done with unknown text records it, once",
			Edits{Done: []string{"hotfix ✓", "Hotfix"}}, func(d *Document) {
				d.Completed = append(d.Completed, Task{Text: "hotfix", Done: true})
			}, ""},
		{"current replaces the current task, which goes back to the front",
			Edits{Current: "five"}, func(d *Document) {
				d.Current = &Task{Text: "five"}
				d.Remaining = []Task{{Text: "two"}, {Text: "three"}, {Text: "four", Checkbox: true, Done: true}}
			}, ""},
		{"current with the same text updates the status only",
			Edits{Current: "Two — nearly done"}, func(d *Document) {
				d.Current = &Task{Text: "two", Status: "nearly done"}
			}, ""},
		{"add tasks skips exact duplicates",
			Edits{AddTasks: []string{"six", "three", "two", "one", "six"}}, func(d *Document) {
				d.Remaining = append(d.Remaining, Task{Text: "six"})
			}, ""},
		{"decisions split what and why and skip duplicates",
			Edits{Decisions: []string{"c: d", "a: b", "plain"}}, func(d *Document) {
				d.Decisions = append(d.Decisions, Decision{What: "c", Why: "d"}, Decision{What: "plain"})
			}, ""},
		{"blockers skip duplicates and take a new condition",
			Edits{Blockers: []string{"disk full (unblocked by: cleanup)", "flaky CI runner (unblocked by: new runner)"}}, func(d *Document) {
				d.Blockers[1].UnblockedBy = "new runner"
				d.Blockers = append(d.Blockers, Blocker{Description: "disk full", UnblockedBy: "cleanup"})
			}, ""},
		{"unblock by exact text, then by unique substring",
			Edits{Unblock: []string{"FLAKY CI RUNNER", "review"}}, func(d *Document) {
				d.Blockers = nil
			}, ""},
		{"unblock without a match fails, the rest applies",
			Edits{Unblock: []string{"nothing like it"}, Next: "ship"}, func(d *Document) {
				d.NextAction = "ship"
			}, `unblock "nothing like it": no blocker matches`},
		{"unblock matching several fails",
			Edits{Blockers: []string{"runner 2 down"}, Unblock: []string{"r"}}, func(d *Document) {
				d.Blockers = append(d.Blockers, Blocker{Description: "runner 2 down"})
			}, `unblock "r": 3 blockers match`},
		{"header edits",
			Edits{Issue: "CIA-2", Session: "2026-02-02T00:00:00Z", Mode: "tdd", Next: "  push\nthe  branch "}, func(d *Document) {
				d.Issue = Issue{Key: "CIA-2"}
				d.Session = "2026-02-02T00:00:00Z"
				d.Mode = "exec:tdd"
				d.NextAction = "push the branch"
			}, ""},
		{"same issue keeps its title", Edits{Issue: "CIA-1"}, func(d *Document) {}, ""},
		{"bad issue key", Edits{Issue: "cia 1"}, func(d *Document) {}, `issue "cia 1": not an issue key like CIA-123`},
		{"None and empty texts are refused",
			Edits{AddTasks: []string{"None", " "}, Blockers: []string{"none."}}, func(d *Document) {},
			`add-task "None": "None" marks an empty section`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(base))
			require.NoError(t, err)
			want, err := Parse([]byte(base))
			require.NoError(t, err)
			tc.want(want)

			err = d.Apply(tc.edits)
			if tc.wantErr == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
			}
			assert.Equal(t, model(want), model(d))

			back, err := Parse(d.Render())
			require.NoError(t, err)
			assert.Equal(t, model(d), model(back), "rendered edit must parse back")
		})
	}
}

func TestApplyErrorsAreJoined(t *testing.T) {
	d, err := Parse([]byte(base))
	require.NoError(t, err)
	err = d.Apply(Edits{Issue: "x", AddTasks: []string{""}, Unblock: []string{"zzz"}, Next: "n"})
	require.Error(t, err)
	for _, want := range []string{`issue "x"`, "add-task: empty text", `unblock "zzz"`} {
		assert.Contains(t, err.Error(), want)
	}
	assert.Equal(t, "n", d.NextAction, "edits that can apply do")
}

func TestApplyDoneWithoutCurrentTask(t *testing.T) {
	d := New("CIA-1", time.Unix(0, 0))
	err := d.Apply(Edits{Done: []string{""}})
	require.EqualError(t, err, "done: there is no current task")
	errs := EditErrors(err)
	require.Len(t, errs, 1)
	assert.Equal(t, EditError{Edit: "done", Reason: "there is no current task"}, *errs[0])
}

func TestEditErrorsNameEachEdit(t *testing.T) {
	d, err := Parse([]byte(base))
	require.NoError(t, err)
	err = d.Apply(Edits{Issue: "x", AddTasks: []string{"", "ok"}, Decisions: []string{"None"}, Unblock: []string{"zzz"}})
	var got []string
	for _, e := range EditErrors(err) {
		got = append(got, e.Edit+"|"+e.Text+"|"+e.Reason)
	}
	assert.Equal(t, []string{
		"issue|x|not an issue key like CIA-123",
		"add-task||empty text",
		`decision|None|"None" marks an empty section`,
		"unblock|zzz|no blocker matches",
	}, got)
	assert.Empty(t, EditErrors(nil))
}

func TestApplyIsIdempotent(t *testing.T) {
	e := Edits{
		AddTasks:  []string{"six"},
		Decisions: []string{"c: d"},
		Blockers:  []string{"disk full"},
		Done:      []string{"hotfix"},
		Next:      "n",
		Session:   "s",
	}
	d, err := Parse([]byte(base))
	require.NoError(t, err)
	require.NoError(t, d.Apply(e))
	once := string(d.Render())
	require.NoError(t, d.Apply(e))
	assert.Equal(t, once, string(d.Render()))
}

func TestApplyKeepsCheckboxStyle(t *testing.T) {
	d, err := Parse([]byte("## Completed Tasks\n- [x] a\n\n## Current Task\nb\n"))
	require.NoError(t, err)
	require.NoError(t, d.Apply(Edits{Done: []string{""}, AddTasks: []string{"c"}}))
	assert.Equal(t, []Task{{Text: "a", Checkbox: true, Done: true}, {Text: "b", Checkbox: true, Done: true}}, d.Completed)
	assert.Equal(t, []Task{{Text: "c", Checkbox: true}}, d.Remaining, "an empty list follows the completed list's style")
	assert.Contains(t, string(d.Render()), "## Remaining Tasks\n- [ ] c\n")
}

func TestApplyMultiLineText(t *testing.T) {
	d := New("", time.Unix(0, 0))
	require.NoError(t, d.Apply(Edits{AddTasks: []string{"  first\r\n  second  \r\n\r\n"}}))
	assert.Equal(t, []Task{{Text: "first\n  second"}}, d.Remaining)
	assert.Contains(t, string(d.Render()), "## Remaining Tasks\n- first\n    second\n")
}

// TestApplyEdgeTexts covers texts that only survive a render when ccc writes them with care.
func TestApplyEdgeTexts(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		edits Edits
		check func(t *testing.T, d *Document)
	}{
		{"a promoted task with an em dash gets a status", "## Current Task\n- a\n\n## Remaining Tasks\n- b — c\n",
			Edits{Done: []string{""}}, func(t *testing.T, d *Document) {
				assert.Equal(t, &Task{Text: "b", Status: "c"}, d.Current)
			}},
		{"a checked item ending in ✓ keeps it", "## Current Task\n- [ ] tick ✓\n\n## Completed Tasks\n- [x] a\n",
			Edits{Done: []string{""}}, func(t *testing.T, d *Document) {
				assert.Equal(t, Task{Text: "tick ✓", Checkbox: true, Done: true}, d.Completed[1])
			}},
		{"a literal None task left alone means an empty list", "## Current Task\n- a\n\n## Remaining Tasks\n- None\n- b\n",
			Edits{Done: []string{"b"}}, func(t *testing.T, d *Document) {
				assert.Empty(t, d.Remaining)
			}},
		{"a literal None task is never promoted", "## Current Task\n- a\n\n## Remaining Tasks\n- None\n- b\n",
			Edits{Done: []string{""}}, func(t *testing.T, d *Document) {
				assert.Equal(t, &Task{Text: "b"}, d.Current)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(tc.in))
			require.NoError(t, err)
			require.NoError(t, d.Apply(tc.edits))
			tc.check(t, d)
			back, err := Parse(d.Render())
			require.NoError(t, err)
			assert.Equal(t, model(d), model(back), "rendered:\n%s", d.Render())
		})
	}
}

func TestNormalIssue(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"CIA-12", "CIA-12", true},
		{"cia-12", "CIA-12", true},
		{" Cia-12\n", "CIA-12", true},
		{"eng2-7", "ENG2-7", true},
		{"cia 12", "", false},
		{"12-cia", "", false},
		{"cia-", "", false},
		{"\u212aey-1", "", false}, // the Kelvin sign is no K
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := NormalIssue(tt.in)
		assert.Equal(t, tt.want, got, tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
	}
}

func TestIssueKeysAreNormalised(t *testing.T) {
	d := New("CIA-1", time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC))
	require.NoError(t, d.Apply(Edits{Issue: "cia-12"}))
	assert.Equal(t, "CIA-12", d.Issue.Key)
	assert.Contains(t, string(d.Render()), "**Issue:** CIA-12")

	src := "# T\n\n**Issue:** cia-7 — lower case\n\n## Current Task\n- a\n"
	parsed, err := Parse([]byte(src))
	require.NoError(t, err)
	assert.Equal(t, Issue{Key: "CIA-7", Title: "lower case"}, parsed.Issue)
	assert.Equal(t, src, string(parsed.Render()), "a file read and not edited keeps its bytes")
}
