package hook

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ccc-checkpoint/ccc/config"
)

// BenchmarkCapturePostToolUse times `ccc hook post-tool-use`'s capture in
// process, as issue 15 sets it: a 200-task list in Claude Code's task
// files and a 50 MB transcript beside it (which PostToolUse never reads).
// "unchanged" is the common case (a TaskUpdate that changed nothing ccc
// shows); "changed" flips one task's status each run and writes the file.
// The tracker is not called (hooks.capture_interval has not passed).
func BenchmarkCapturePostToolUse(b *testing.B) {
	p := newProj(b)
	p.write(ProgressFile, []byte(handProgress))
	cfg := b.TempDir()
	dir := filepath.Join(cfg, "tasks", "s-1")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	write := func(i int, status string) {
		data, _ := json.Marshal(map[string]any{"id": strconv.Itoa(i), "subject": fmt.Sprintf("Task number %d of the big refactor", i),
			"description": "Part of the refactor", "activeForm": fmt.Sprintf("Doing task %d", i), "status": status,
			"blocks": []string{}, "blockedBy": []string{strconv.Itoa(max(i-1, 1))}})
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)+".json"), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	for i := 1; i <= 200; i++ {
		status := "pending"
		if i <= 100 {
			status = "completed"
		}
		write(i, status)
	}
	tr := filepath.Join(b.TempDir(), "s-1.jsonl")
	bigClaudeTranscript(b, tr, 50<<20)
	env := p.env()
	env.Claude = &config.ClaudeEnv{ConfigDir: cfg}
	in, _ := json.Marshal(map[string]any{"session_id": "s-1", "cwd": p.root, "transcript_path": tr, "hook_event_name": "PostToolUse",
		"tool_name": "TaskUpdate", "tool_input": map[string]any{"taskId": "150", "status": "in_progress"}})
	PostToolUse(context.Background(), env, in) // the first capture writes the list and updates the tracker
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			PostToolUse(context.Background(), env, in)
		}
	})
	b.Run("changed", func(b *testing.B) {
		n := 0
		for b.Loop() {
			n++
			write(150, []string{"in_progress", "pending"}[n%2])
			PostToolUse(context.Background(), env, in)
		}
	})
	if p.cp.count() != 1 {
		b.Fatalf("the tracker was called %d times; want once", p.cp.count())
	}
}

// BenchmarkPostToolUse200 times `ccc hook post-tool-use` in process for
// issue 24's case: a TodoWrite of 200 items, the newest line of a 10 MB
// transcript (read only to tell a subagent's call, in its last 2 MB), into
// a project whose progress file holds the list; one item's status flips
// every run, so every run folds and writes. bench/hook-stop.sh capture
// times the process.
func BenchmarkPostToolUse200(b *testing.B) {
	p := newProj(b)
	p.write(ProgressFile, []byte(handProgress))
	items := func(flip bool) []map[string]string {
		var todos []map[string]string
		for i := range 200 {
			status := "pending"
			switch {
			case i < 100:
				status = "completed"
			case i == 100, i == 150 && flip:
				status = "in_progress"
			}
			todos = append(todos, map[string]string{"content": fmt.Sprintf("Task number %d of the big refactor", i),
				"status": status, "activeForm": fmt.Sprintf("Doing task %d", i)})
		}
		return todos
	}
	tr := filepath.Join(b.TempDir(), "s-1.jsonl")
	bigClaudeTranscript(b, tr, 10<<20)
	env := p.env()
	env.Claude = &config.ClaudeEnv{ConfigDir: b.TempDir()}
	var ins [2][]byte
	for k := range ins {
		ins[k], _ = json.Marshal(map[string]any{"session_id": "s-1", "cwd": p.root, "transcript_path": tr,
			"hook_event_name": "PostToolUse", "tool_name": "TodoWrite", "tool_input": map[string]any{"todos": items(k == 1)}})
	}
	PostToolUse(context.Background(), env, ins[0])
	n := 0
	for b.Loop() {
		n++
		PostToolUse(context.Background(), env, ins[n%2])
	}
	if !strings.Contains(string(p.read(ProgressFile)), "Task number 199 of the big refactor") {
		b.Fatal("the list was not captured")
	}
}

// BenchmarkCaptureStopTranscript times the transcript read of a boundary
// (stop, pre-compact) on a 50 MB transcript whose newest TodoWrite is near
// its end.
func BenchmarkCaptureStopTranscript(b *testing.B) {
	p := newProj(b)
	p.write(ProgressFile, []byte(handProgress))
	tr := filepath.Join(b.TempDir(), "s-1.jsonl")
	bigClaudeTranscript(b, tr, 50<<20)
	in, _ := json.Marshal(map[string]any{"session_id": "s-1", "cwd": p.root, "transcript_path": tr})
	env := p.env()
	env.Checkpoint = nil
	for b.Loop() {
		PreCompact(context.Background(), env, in)
	}
}

// bigClaudeTranscript writes a transcript of about size bytes of assistant
// and tool records, with a TodoWrite of 200 items a few records from the end.
func bigClaudeTranscript(b *testing.B, path string, size int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	text := make([]byte, 2000)
	for i := range text {
		text[i] = 'a' + byte(i%26)
	}
	rec := func(content any) {
		line, _ := json.Marshal(map[string]any{"type": "assistant", "sessionId": "s-1",
			"message": map[string]any{"role": "assistant", "content": content}})
		w.Write(line)
		w.WriteByte('\n')
	}
	var todos []map[string]string
	for i := 0; i < 200; i++ {
		todos = append(todos, map[string]string{"content": fmt.Sprintf("Task %d", i), "status": "pending", "activeForm": "Doing it"})
	}
	written := 0
	for written < size {
		rec([]map[string]any{{"type": "text", "text": string(text)}})
		rec([]map[string]any{{"type": "tool_use", "name": "Edit", "input": map[string]any{"file_path": "/w/a.go", "old_string": "x", "new_string": "y"}}})
		written += 2300
	}
	rec([]map[string]any{{"type": "tool_use", "name": "TodoWrite", "input": map[string]any{"todos": todos}}})
	rec([]map[string]any{{"type": "text", "text": "Done with this step.\nNext: the parser."}})
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
}
