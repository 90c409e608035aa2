package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/progress"
)

// goFactory is a project with a checkpoint and a person at the terminal
// typing answers.
func goFactory(t *testing.T, answers string, tty bool) (*Factory, *bytes.Buffer, *bytes.Buffer, string) {
	t.Helper()
	root := t.TempDir()
	doc := progress.New("CIA-40", time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC))
	require.NoError(t, doc.Apply(progress.Edits{Current: "write the prompt", AddTasks: []string{"test it"}}))
	doc.RefreshPrompt(nil, true)
	require.NoError(t, os.WriteFile(filepath.Join(root, progress.FileName), doc.Render(), 0o644))
	var out, errOut bytes.Buffer
	f := &Factory{
		IO:     IOStreams{In: strings.NewReader(answers), Out: &out, ErrOut: &errOut, InTTY: tty},
		Getenv: func(k string) string { return map[string]string{"CCC_PROJECT_ROOT": root}[k] },
		Getwd:  func() (string, error) { return root, nil },
		Now:    func() time.Time { return time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC) },
	}
	return f, &out, &errOut, root
}

const wantPrompt = "Resume CIA-40. Current task: task 1 of 2 — write the prompt. Key files: none. Next action: continue the current task.\n"

func TestGoAsksOnATerminal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, answers string
		tty           bool
		args          []string
		stdout        string
		stderrHas     []string
		progressKept  bool
	}{
		{"resume", "r\n", true, nil, wantPrompt, []string{"Choice [r/s/v/d]:", "(r)esume - continue from task 1 of 2"}, true},
		{"enter resumes", "\n", true, nil, wantPrompt, nil, true},
		{"view, then resume", "v\nr\n", true, nil, wantPrompt, []string{"## Current Task\n- write the prompt"}, true},
		{"nonsense, then resume", "x\nr\n", true, nil, wantPrompt, []string{"Please answer r, s, v or d."}, true},
		{"start fresh", "s\n", true, nil, "Start CIA-40 from the beginning: there is no earlier checkpoint to resume.\n",
			[]string{"Checkpoint set aside as .ccc/backups/.ccc-progress.md."}, false},
		{"delete", "d\n", true, nil, "", []string{"Checkpoint deleted; a copy is in .ccc/backups/"}, false},
		{"--yes never asks", "d\n", true, []string{"--yes"}, wantPrompt, nil, true},
		{"not a terminal never asks", "d\n", false, nil, wantPrompt, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, out, errOut, root := goFactory(t, tt.answers, tt.tty)
			code := run(append([]string{"go"}, tt.args...), f)
			assert.Equal(t, 0, code, errOut.String())
			assert.Equal(t, tt.stdout, out.String())
			for _, s := range tt.stderrHas {
				assert.Contains(t, errOut.String(), s)
			}
			if !tt.tty || len(tt.args) > 0 {
				assert.NotContains(t, errOut.String(), "Choice")
			}
			_, err := os.Stat(filepath.Join(root, progress.FileName))
			assert.Equal(t, tt.progressKept, err == nil)
			if !tt.progressKept {
				copies, _ := filepath.Glob(filepath.Join(root, ".ccc", "backups", progress.FileName+".*"))
				assert.Len(t, copies, 1, "a deliberate delete still keeps a copy")
			}
		})
	}
}

// TestGoEndOfInputCancels: Ctrl-D at the question, at once or after a
// "view", prints no prompt, sets nothing aside and exits 1 with a message.
func TestGoEndOfInputCancels(t *testing.T) {
	t.Parallel()
	for name, answers := range map[string]string{"at once": "", "after a view": "v\n"} {
		t.Run(name, func(t *testing.T) {
			f, out, errOut, root := goFactory(t, answers, true)
			before, err := os.ReadFile(filepath.Join(root, progress.FileName))
			require.NoError(t, err)
			code := run([]string{"go"}, f)
			assert.Equal(t, 1, code)
			assert.Empty(t, out.String(), "no prompt: the session does not resume")
			assert.Contains(t, errOut.String(), "Choice [r/s/v/d]: \nccc: go: cancelled (end of input): nothing was printed or changed")
			after, err := os.ReadFile(filepath.Join(root, progress.FileName))
			require.NoError(t, err)
			assert.Equal(t, string(before), string(after))
			assert.NoDirExists(t, filepath.Join(root, ".ccc", "backups"), "nothing set aside")
			assert.NoFileExists(t, filepath.Join(root, ".ccc", "resume-cleared"))
		})
	}
}
