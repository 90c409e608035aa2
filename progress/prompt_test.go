package progress

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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
			"Resume CIA-1. Current task: task 3 of 5 — two. Key files: a.go, b.go. Next action: continue the current task."},
		{"next action field wins, periods are not doubled",
			"**Issue:** CIA-2\n**Next Action:** run the tests.\n\n## Current Task\n- fix it.\n", nil,
			"Resume CIA-2. Current task: task 1 of 1 — fix it. Key files: none. Next action: run the tests."},
		{"no current task starts the first open remaining one",
			"## Completed Tasks\n- a ✓\n\n## Remaining Tasks\n- [x] b\n- c\n  on two lines\n", nil,
			"Resume the session. Current task: none (2 of 3 tasks done). Key files: none. Next action: start c on two lines."},
		{"nothing left", "**Issue:** CIA-3\n\n## Completed Tasks\n- a ✓\n", []string{"x.go"},
			"Resume CIA-3. Current task: none (1 of 1 tasks done). Key files: x.go. Next action: review the finished work."},
		{"failed work is not reviewed as finished", "**Issue:** CIA-3\n\n## Completed Tasks\n- a ✓\n\n## Blockers\n- FAILED: the API was removed.\n", nil,
			"Resume CIA-3. Current task: none (1 of 1 tasks done). Key files: none. Next action: investigate the failure (the API was removed); to retry, reopen the work with ccc checkpoint --unblock FAILED."},
		{"failed work with a current task is not continued", "## Current Task\n- a\n\n## Blockers\n- x\n- FAILED: out of memory\n", nil,
			"Resume the session. Current task: task 1 of 1 — a. Key files: none. Next action: investigate the failure (out of memory); to retry, reopen the work with ccc checkpoint --unblock FAILED."},
		{"a resolved failure no longer counts", "## Completed Tasks\n- a ✓\n\n## Blockers\n- [x] FAILED: flaky\n", nil,
			"Resume the session. Current task: none (1 of 1 tasks done). Key files: none. Next action: review the finished work."},
		{"a task the agent dropped is neither done nor left",
			"## Completed Tasks\n- a ✓\n- b ✓\n\n## Remaining Tasks\n- [x] c (dropped) <!-- ccc:task claude:3 dropped -->\n", nil,
			"Resume the session. Current task: none (2 of 2 tasks done). Key files: none. Next action: review the finished work."},
		{"a dropped task does not count in the current task's place",
			"## Completed Tasks\n- a ✓\n- [x] b (dropped) <!-- ccc:task claude:2 dropped -->\n\n## Current Task\n- c — in progress\n", nil,
			"Resume the session. Current task: task 2 of 2 — c. Key files: none. Next action: continue the current task."},
		{"a current task whose text holds a dash keeps it whole",
			"## Current Task\n- Refactor parser — handle edge cases — Refactoring the parser <!-- ccc:task claude:1 -->\n", nil,
			"Resume the session. Current task: task 1 of 1 — Refactor parser — handle edge cases. Key files: none. Next action: continue the current task."},
		{"an open blocker with nothing left to do", "## Completed Tasks\n- a ✓\n\n## Blockers\n- no access (unblocked by: on-call)\n", nil,
			"Resume the session. Current task: none (1 of 1 tasks done). Key files: none. Next action: resolve the blocker: no access (unblocked by: on-call)."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(tc.in))
			require.NoError(t, err)
			got := d.GeneratePrompt(tc.files)
			assert.Equal(t, tc.want, got)
			assert.Regexp(t, generatedRe(), got, "ccc must recognise its own prompts")
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
				assert.Equal(t, PromptHash(d.ContinuationPrompt), d.PromptMark, "ccc marks what it generates")
				assert.False(t, d.RefreshPrompt([]string{"a.go"}, tc.force), "a fresh prompt does not change again")
			} else {
				assert.Equal(t, tc.prompt, d.ContinuationPrompt)
				assert.Empty(t, d.PromptMark)
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
		{"ccc's older wording, which repeated the task", "Resume CIA-1. Current task: task 3 of 5 — two. Key files: a.go. Next action: continue two.", [][]string{{"a.go"}}, true},
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
	assert.Regexp(t, `^sha256:[0-9a-f]{12}$`, a)
}

// marked is a progress file whose prompt ccc generated and marked.
const marked = "**Issue:** CIA-5\n\n## Current Task\n- port parser\n\n## Continuation Prompt\n" +
	"Resume CIA-5. Current task: task 1 of 1 — port parser. Key files: none. Next action: continue the current task.\n" +
	"<!-- ccc:generated sha256:b0c5a3d8a1c5 -->\n"

func TestPromptMark(t *testing.T) {
	prompt := "Resume CIA-5. Current task: task 1 of 1 — port parser. Key files: none. Next action: continue the current task."
	src := strings.Replace(marked, "sha256:b0c5a3d8a1c5", PromptHash(prompt), 1)
	tests := []struct {
		name       string
		src        string
		wantPrompt string
		wantMark   string
		ours       bool
	}{
		{"ccc's marked prompt", src, prompt, PromptHash(prompt), true},
		{"reflowed, the mark kept", strings.Replace(src, " Next action:", "\n  Next action:", 1),
			strings.Replace(prompt, " Next action:", "\n  Next action:", 1), PromptHash(prompt), true},
		{"a blank line before the mark", strings.Replace(src, "\n<!--", "\n\n<!--", 1), prompt, PromptHash(prompt), true},
		{"CRLF", strings.ReplaceAll(src, "\n", "\r\n"), prompt, PromptHash(prompt), true},
		{"edited by a person who kept the mark", strings.Replace(src, "continue the current task", "fix the CRLF bug first", 1),
			strings.Replace(prompt, "continue the current task", "fix the CRLF bug first", 1), PromptHash(prompt), false},
		{"rewritten by a person who dropped the mark", strings.Replace(src, prompt+"\n<!-- ccc:generated "+PromptHash(prompt)+" -->", "Fix the CRLF bug first.", 1),
			"Fix the CRLF bug first.", "", false},
		{"text added below the mark", src + "Also: the flaky test.\n",
			prompt + "\nAlso: the flaky test.", PromptHash(prompt), false},
		{"the mark alone", "## Continuation Prompt\n<!-- ccc:generated sha256:000000000000 -->\n", "", "sha256:000000000000", true},
		{"not ccc's comment", strings.Replace(src, "ccc:generated", "generated", 1),
			prompt + "\n<!-- generated " + PromptHash(prompt) + " -->", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(tc.src))
			require.NoError(t, err)
			assert.Equal(t, tc.wantPrompt, d.ContinuationPrompt, "the mark is never part of the prompt's text")
			assert.Equal(t, tc.wantMark, d.PromptMark)
			assert.Equal(t, tc.ours, d.PromptByCCC())
			assert.NotContains(t, d.Prompt(), "ccc:generated")
			assert.Equal(t, tc.src, string(d.Render()), "an unchanged file keeps its bytes")
		})
	}
}

func TestRefreshPromptWritesTheMark(t *testing.T) {
	d, err := Parse([]byte("**Issue:** CIA-5\n\n## Current Task\n- port parser\n\n## Continuation Prompt\nMy own words.\n\n## Notes\nkept\n"))
	require.NoError(t, err)
	require.False(t, d.PromptByCCC())
	require.True(t, d.RefreshPrompt(nil, true))
	out := string(d.Render())
	want := "Resume CIA-5. Current task: task 1 of 1 — port parser. Key files: none. Next action: continue the current task.\n" +
		"<!-- ccc:generated " + PromptHash(d.ContinuationPrompt) + " -->\n\n## Notes\nkept\n"
	assert.True(t, strings.HasSuffix(out, "## Continuation Prompt\n"+want), out)
	back, err := Parse([]byte(out))
	require.NoError(t, err)
	assert.True(t, back.PromptByCCC(), "what ccc wrote is ccc's when read again, with no other file")
	assert.Equal(t, d.ContinuationPrompt, back.ContinuationPrompt)
	assert.False(t, back.RefreshPrompt(nil, true), "a fresh prompt does not change again")
}

func TestPromptByCCCWithoutAMark(t *testing.T) {
	d, err := Parse([]byte(base))
	require.NoError(t, err)
	d.ContinuationPrompt = ""
	assert.True(t, d.PromptByCCC(), "an empty prompt is ccc's to fill")
	d.ContinuationPrompt = d.GeneratePrompt([]string{"a.go"})
	assert.True(t, d.PromptByCCC([]string{"a.go"}), "a file from before the mark: ccc's exact text")
	assert.False(t, d.PromptByCCC([]string{"b.go"}))
	d.ContinuationPrompt = "You were halfway through two; see notes."
	assert.False(t, d.PromptByCCC())
}

func TestPromptConflicts(t *testing.T) {
	const doc = "**Issue:** CIA-5\n%s\n## Current Task\n%s\n\n## Continuation Prompt\n%s\n"
	tests := []struct {
		name          string
		next, current string
		prompt        string
		want          []string
	}{
		{"ccc's prompt for the document", "", "- port parser — halfway",
			"Resume CIA-5. Current task: task 1 of 1 — port parser. Key files: none. Next action: continue the current task.", nil},
		{"the agent's prompt in the seed's form, agreeing", "**Next Action:** fix the CRLF bug.", "- port parser",
			"Resume CIA-5. Current task: task 2 of 3 — Port parser. Key files: parse.go.\nNext action: fix the CRLF bug.", nil},
		{"a stale task", "", "- ship",
			"Resume CIA-5. Current task: task 1 of 2 — port parser. Key files: none. Next action: continue the current task.",
			[]string{`the continuation prompt names "port parser" as the current task, but the Current Task section has "ship"`}},
		{"the task's status may be named too", "", "- port parser — halfway",
			"Current task: port parser — halfway. Next action: go on.", nil},
		{"no current task any more", "", "- None",
			"Resume CIA-5. Current task: task 1 of 1 — port parser. Key files: none. Next action: continue port parser.",
			[]string{`the continuation prompt names "port parser" as the current task, but the Current Task section has none`}},
		{"a current task the prompt does not know", "", "- port parser",
			"Resume CIA-5. Current task: none (0 of 0 tasks done). Key files: none. Next action: review the finished work.",
			[]string{`the continuation prompt says there is no current task, but the Current Task section has "port parser"`}},
		{"another next action than the field's", "**Next Action:** run the corpus", "- port parser",
			"Resume CIA-5. Current task: task 1 of 1 — port parser. Key files: none. Next action: write the docs.",
			[]string{`the continuation prompt gives "write the docs" as the next action, but the Next Action field says "run the corpus"`}},
		{"a derived next action is not compared", "", "- port parser",
			"Resume CIA-5. Current task: task 1 of 1 — port parser. Key files: none. Next action: read parse.go first.", nil},
		{"free prose contradicts nothing", "**Next Action:** run the corpus", "- ship",
			"You were halfway through the parser; see my notes below.", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(fmt.Sprintf(doc, tc.next, tc.current, tc.prompt)))
			require.NoError(t, err)
			assert.Equal(t, tc.want, d.PromptConflicts())
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
	assert.Equal(t, "continue the current task", d.Next(), "the prompt and the status name the task just before")
	d.NextAction = "ship"
	assert.Equal(t, "ship", d.Next())
}

func TestFailureReplacesThePlannedNextAction(t *testing.T) {
	src := "**Issue:** CIA-3\n**Next Action:** write the docs\n\n## Current Task\n- port parser\n"
	d, err := Parse([]byte(src))
	require.NoError(t, err)
	require.NoError(t, d.Apply(Edits{Blockers: []string{FailurePrefix + "no API"}}))
	assert.Empty(t, d.NextAction)
	assert.Equal(t, "investigate the failure (no API); to retry, reopen the work with ccc checkpoint --unblock FAILED", d.Next())
	assert.NotContains(t, string(d.Render()), "**Next Action:**")

	d, err = Parse([]byte(src))
	require.NoError(t, err)
	require.NoError(t, d.Apply(Edits{Blockers: []string{FailurePrefix + "no API"}, Next: "ask the team about v2"}))
	assert.Equal(t, "ask the team about v2", d.Next(), "a next action given with the failure wins")

	d, err = Parse([]byte(src))
	require.NoError(t, err)
	require.NoError(t, d.Apply(Edits{Blockers: []string{"waiting for review"}}))
	assert.Equal(t, "write the docs", d.Next(), "another blocker leaves the plan alone")
}

// A task of megabytes does not make the prompt (and the file) twice its size: each text the prompt
// holds is cut to MaxPromptText, and the cut prompt still counts as ccc's and agrees with the document.
func TestPromptCapsLongTexts(t *testing.T) {
	long := strings.Repeat("write the parser ", 1<<12)
	d := New("CIA-1", time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC))
	require.NoError(t, d.Apply(Edits{Current: long, Next: long, AddTasks: []string{"later " + long}}))
	files := []string{strings.Repeat("dir/", 1000) + "a.go"}
	p := d.GeneratePrompt(files)
	assert.Less(t, utf8.RuneCountInString(p), 4*MaxPromptText, "three texts of at most MaxPromptText and the frame")
	assert.Contains(t, p, "Current task: task 1 of 2 — write the parser write")
	assert.Contains(t, p, "…. Key files: dir/dir/")
	assert.True(t, strings.HasSuffix(p, "….") || strings.HasSuffix(p, "…"), p[len(p)-20:])

	d.RefreshPrompt(files, true)
	back, err := Parse(d.Render())
	require.NoError(t, err)
	assert.True(t, back.PromptByCCC(files))
	assert.True(t, back.LooksGenerated(files))
	assert.Empty(t, back.PromptConflicts())
}

func TestPromptBox(t *testing.T) {
	want := `╔══════════════════════════════════════════════════╗
║  CONTINUATION PROMPT                             ║
╚══════════════════════════════════════════════════╝

Resume CIA-1. Current task: task 1 of 2 — write parser.

Copy this prompt into your next session's first message.
`
	assert.Equal(t, want, PromptBox("\nResume CIA-1. Current task: task 1 of 2 — write parser.\n"))
}
