// Package capturetest is what the agents' reader tests share: the
// calculator plan their recorded sessions follow, and large logs for the
// readers' benchmarks. Only tests import it.
package capturetest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
)

// CalcSteps are the steps of the calculator plan the agents' test sessions
// write (Codex's update_plan, Gemini's write_todos).
var CalcSteps = []string{"Add the lexer", "Parse expressions", "Evaluate the AST", "Write the REPL"}

// FirstPlan is the plan as first written: the first step in progress.
func FirstPlan() []capture.Task {
	return []capture.Task{
		{Text: CalcSteps[0], Status: "in_progress"},
		{Text: CalcSteps[1], Status: "pending"},
		{Text: CalcSteps[2], Status: "pending"},
		{Text: CalcSteps[3], Status: "pending"},
	}
}

// TwoDone is the plan after the second update: two completed, the third in
// progress.
func TwoDone() []capture.Task {
	return []capture.Task{
		{Text: CalcSteps[0], Status: "completed"},
		{Text: CalcSteps[1], Status: "completed"},
		{Text: CalcSteps[2], Status: "in_progress"},
		{Text: CalcSteps[3], Status: "pending"},
	}
}

// BigLog writes a log of about size bytes named name in a temporary
// directory: filler lines with a checklist call every 500 lines and at the
// end (call(-1)).
func BigLog(tb testing.TB, name string, size int, filler, call func(i int) string) string {
	tb.Helper()
	var buf bytes.Buffer
	for i := 0; buf.Len() < size; i++ {
		if i%500 == 0 {
			buf.WriteString(call(i) + "\n")
		}
		buf.WriteString(filler(i) + "\n")
	}
	buf.WriteString(call(-1) + "\n")
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}
