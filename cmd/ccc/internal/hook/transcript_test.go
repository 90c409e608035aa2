package hook

import (
	"context"

	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccc-checkpoint/ccc/state"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
)

func TestLastOutput(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"claude code transcript", Input{TranscriptPath: transcript(t, "claude-code.jsonl")},
			"The parser is done and its tests pass.\nTASK_COMPLETE"},
		{"torn last line skipped", Input{TranscriptPath: transcript(t, "torn-tail.jsonl")},
			"The parser is done and its tests pass.\nTASK_COMPLETE"},
		{"CCC's compact records", Input{TranscriptPath: transcript(t, "ccc-compact.jsonl")}, "All done. TASK_COMPLETE"},
		{"spaced records", Input{TranscriptPath: transcript(t, "spaced.jsonl")}, "The remaining tasks are invalid. REPLAN"},
		{"string content", Input{TranscriptPath: transcript(t, "string-content.jsonl")}, "Finished the lexer. TASK_COMPLETE"},
		{"last assistant record has no text", Input{TranscriptPath: transcript(t, "tool-use-last.jsonl")}, ""},
		{"no path", Input{}, ""},
		{"last_assistant_message first", Input{LastAssistantMessage: "REPLAN", TranscriptPath: transcript(t, "claude-code.jsonl")}, "REPLAN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LastOutput(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestLastOutputInputTypes: last_assistant_message counts only as a
// non-empty string; otherwise the transcript is read.
func TestLastOutputInputTypes(t *testing.T) {
	tp := transcript(t, "ccc-compact.jsonl")
	for _, msg := range []string{`""`, `42`, `null`, `["TASK_COMPLETE"]`, `{"text":"x"}`} {
		t.Run(msg, func(t *testing.T) {
			in, err := ParseInput([]byte(`{"session_id":"s","transcript_path":"` + tp + `","last_assistant_message":` + msg + `}`))
			require.NoError(t, err)
			got, err := LastOutput(in)
			require.NoError(t, err)
			assert.Equal(t, "All done. TASK_COMPLETE", got)
		})
	}
}

// TestLastOutputLargeTranscript: records longer than the read chunk, and
// many records after the assistant's, are read correctly from the end.
func TestLastOutputLargeTranscript(t *testing.T) {
	long := strings.Repeat("x", 3*(64<<10)+17)
	tests := []struct {
		name  string
		lines []string
		tail  string // after the last newline
		want  string
	}{
		{"long assistant record", []string{
			`{"type":"user","message":{"role":"user","content":"go"}}`,
			`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"` + long + ` TASK_COMPLETE"}]}}`,
		}, "", long + " TASK_COMPLETE"},
		{"long user record after it", []string{
			`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"REPLAN"}]}}`,
			`{"type":"user","message":{"role":"user","content":"` + long + `"}}`,
		}, "", "REPLAN"},
		{"many records after it", append([]string{
			`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"first"},{"type":"text","text":"second"}]}}`,
		}, repeat(`{"type":"progress","data":{"n":1}}`, 5000)...), "", "first\nsecond"},
		{"no trailing newline", []string{
			`{"type":"user","message":{"role":"user","content":"go"}}`,
		}, `{"type":"assistant","message":{"role":"assistant","content":"last"}}`, "last"},
		{"CRLF line ends", []string{
			"{\"role\":\"assistant\",\"message\":{\"content\":\"crlf TASK_COMPLETE\"}}\r",
			"not json\r",
		}, "", "crlf TASK_COMPLETE"},
		{"only the first line", nil, `{"role":"assistant","message":{"content":"only"}}`, "only"},
		{"blank lines and junk", []string{"", "   ", "[1,2]", `"role":"assistant"`, "{bad"}, "", ""},
		{"empty file", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			var b strings.Builder
			for _, l := range tt.lines {
				b.WriteString(l + "\n")
			}
			b.WriteString(tt.tail)
			require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
			got, err := LastOutput(Input{TranscriptPath: path})
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestStopUnreadableTranscript: a transcript that cannot be read is an
// empty output (a retry), reported in one line.
func TestStopUnreadableTranscript(t *testing.T) {
	p := newProj(t)
	p.write(".ccc-state.json", stateJSON(t, nil))
	d := p.stop(input(t, "stop-no-message.json", map[string]any{"transcript_path": p.root}))
	assert.Equal(t, RuleRetry, d.Rule)
	assert.Equal(t, fmt.Sprintf("ccc hook stop: transcript: %s is a directory, not a regular file; reading the last output as empty\n", p.root), p.errs.String())
}

// TestTranscriptSpecialFiles: a transcript_path naming a FIFO (which would
// block the open until a writer comes) or a device (endless bytes) is an
// error naming what it is, returned at once.
func TestTranscriptSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for path, want := range map[string]string{
		fifo:        fifo + " is a FIFO, not a regular file",
		"/dev/zero": "/dev/zero is a device, not a regular file",
	} {
		done := make(chan error, 1)
		go func() {
			_, err := LastOutput(Input{TranscriptPath: path})
			done <- err
		}()
		select {
		case err := <-done:
			assert.EqualError(t, err, "transcript: "+want)
		case <-time.After(10 * time.Second):
			t.Fatalf("LastOutput blocked on %s", path)
		}
	}
}

// TestStopMissingTranscript: a transcript_path with no file is an empty
// output (a retry), and one line says so: without it nobody knows why the
// agent is told to retry a task it finished.
func TestStopMissingTranscript(t *testing.T) {
	p := newProj(t)
	p.write(".ccc-state.json", stateJSON(t, nil))
	gone := filepath.Join(p.root, "gone.jsonl")
	d := p.stop(input(t, "stop-no-message.json", map[string]any{"transcript_path": gone}))
	assert.Equal(t, RuleRetry, d.Rule)
	assert.Equal(t, fmt.Sprintf("ccc hook stop: transcript_path %s does not exist; reading the last output as empty\n", gone), p.errs.String())

	_, err := LastOutput(Input{TranscriptPath: gone})
	assert.ErrorIs(t, err, ErrNoTranscript)
}

// TestLastOutputHugeToolOutput: 50 MB of tool output after the assistant's
// last message, as one line or as many, is skipped without being held or
// decoded: the whole read allocates a small fraction of it (a count of
// bytes, not a time).
func TestLastOutputHugeToolOutput(t *testing.T) {
	const total = 50 << 20
	assistant := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Parser done. TASK_COMPLETE"}]}}` + "\n"
	toolLine := func(n int) string {
		// A tool result that mentions the word, escaped as JSON holds it.
		body := `the \"assistant\" said ` + strings.Repeat("x", max(0, n-200))
		return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"` + body + `"}]}}` + "\n"
	}
	tests := map[string]func(w *strings.Builder){
		"one line": func(w *strings.Builder) { w.WriteString(toolLine(total)) },
		"many lines": func(w *strings.Builder) {
			l := toolLine(2000)
			for w.Len() < total {
				w.WriteString(l)
			}
		},
		"lines of 1 MB": func(w *strings.Builder) {
			l := toolLine(1 << 20)
			for w.Len() < total {
				w.WriteString(l)
			}
		},
	}
	for name, fill := range tests {
		t.Run(name, func(t *testing.T) {
			var w strings.Builder
			w.WriteString(`{"type":"user","message":{"role":"user","content":"go"}}` + "\n" + assistant)
			fill(&w)
			path := filepath.Join(t.TempDir(), "t.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(w.String()), 0o644))
			w = strings.Builder{}

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got, err := LastOutput(Input{TranscriptPath: path})
			runtime.ReadMemStats(&after)
			require.NoError(t, err)
			assert.Equal(t, "Parser done. TASK_COMPLETE", got)
			alloc := after.TotalAlloc - before.TotalAlloc
			assert.Less(t, alloc, uint64(1<<20), "bytes allocated reading past 50 MB of tool output (a 256 KB buffer and little else)")
		})
	}
}

// TestLastOutputHugeAssistantRecord: an assistant record too long to hold
// is an error, not a silent fall back to the message before it.
func TestLastOutputHugeAssistantRecord(t *testing.T) {
	huge := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("y", capture.MaxLine+1) + `"}]}}`
	path := filepath.Join(t.TempDir(), "t.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"type":"assistant","message":{"role":"assistant","content":"older"}}`+"\n"+huge+"\n"), 0o644))
	_, err := LastOutput(Input{TranscriptPath: path})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "an assistant record over 4 MB")
}

// TestLastOutputKeyAcrossChunks: an assistant record whose "assistant"
// straddles two read chunks is still found.
func TestLastOutputKeyAcrossChunks(t *testing.T) {
	rec := `{"role":"assistant","message":{"content":"straddle TASK_COMPLETE"}}`
	key := strings.Index(rec, `"assistant"`)
	for j := 1; j < len(`"assistant"`); j++ {
		filler := strings.Repeat("x", 64<<10+key+j-len(rec)-2)
		path := filepath.Join(t.TempDir(), "t.jsonl")
		require.NoError(t, os.WriteFile(path, []byte(rec+"\n"+filler+"\n"), 0o644))
		got, err := LastOutput(Input{TranscriptPath: path})
		require.NoError(t, err)
		assert.Equal(t, "straddle TASK_COMPLETE", got, "boundary %d bytes into the key", j)
	}
}

// TestStopReadsTheTranscriptOnce: the stop hook's capture (files touched,
// the newest TodoWrite) and its decision (TASK_COMPLETE in the last
// assistant text) share one backward read of the transcript.
func TestStopReadsTheTranscriptOnce(t *testing.T) {
	p := newProj(t)
	p.write(state.FileName, stateJSON(t, nil))
	env := p.env()
	env.transcript = &transcriptRead{}
	d := Stop(context.Background(), env, input(t, "stop-no-message.json",
		map[string]any{"transcript_path": transcript(t, "claude-code.jsonl")}))
	assert.Equal(t, RuleNext, d.Rule, "TASK_COMPLETE read from the transcript")
	assert.Equal(t, 1, env.transcript.reads)
}
