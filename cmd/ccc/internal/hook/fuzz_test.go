package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccc-checkpoint/ccc/state"
)

// FuzzParseInput feeds the hook input reader arbitrary bytes: it must never
// panic, must accept exactly one JSON object, and must read each field as
// the JSON string it holds, or as absent. The seed corpus is
// testdata/fuzz/FuzzParseInput.
func FuzzParseInput(f *testing.F) {
	for _, in := range recordedInputs(f) {
		f.Add(in)
	}
	f.Add([]byte(`{"session_id": 7, "source": null, "trigger": ["auto"]}`))
	f.Add([]byte(`{"last_assistant_message": "\ud800 TASK_COMPLETE"}`))
	f.Add([]byte(`  {"session_id":"a"} `))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseInput(data)
		var m map[string]json.RawMessage
		trimmed := bytes.TrimSpace(data)
		object := len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &m) == nil
		if err != nil {
			if !errors.Is(err, ErrNotObject) {
				t.Fatalf("error %v is not ErrNotObject", err)
			}
			if object {
				t.Fatalf("a JSON object was refused: %v", err)
			}
			if !reflect.DeepEqual(in, Input{}) {
				t.Fatalf("a refused input has fields: %+v", in)
			}
			return
		}
		if !object {
			t.Fatalf("accepted what is not one JSON object: %q", data)
		}
		for key, got := range map[string]string{
			"session_id": in.SessionID, "transcript_path": in.TranscriptPath,
			"last_assistant_message": in.LastAssistantMessage, "source": in.Source, "trigger": in.Trigger,
		} {
			var want string
			if raw := m[key]; len(raw) > 0 && raw[0] == '"' {
				if err := json.Unmarshal(raw, &want); err != nil {
					t.Fatalf("%s: %v", key, err)
				}
			}
			if key == "last_assistant_message" && want == "" {
				continue // Gemini's prompt_response stands in (TestParseInputAgents)
			}
			if got != want {
				t.Fatalf("%s read as %q, want %q", key, got, want)
			}
		}
	})
}

// transcriptVar in a fuzzed stdin stands for the path of the fuzzed
// transcript, which lives in a fresh directory each time.
const transcriptVar = "$TRANSCRIPT"

// FuzzStopInput runs the Stop hook on a scratch project whose stdin, state
// file, preferences and transcript are fuzzed. Whatever they hold, it must
// not panic; its stdout must be empty (allow) or exactly one JSON object
// that Claude Code reads (a block with a reason, a halt with a message);
// the checkpoint runs exactly at gate boundaries; the state file is left as
// it was, removed, or replaced by a valid one, and a state file that is not
// valid JSON is never replaced. The seed corpus is
// testdata/fuzz/FuzzStopInput.
func FuzzStopInput(f *testing.F) {
	stdin := func(fixture string, set map[string]any) []byte { return input(f, fixture, set) }
	withTranscript := map[string]any{"transcript_path": transcriptVar, "last_assistant_message": nil}
	noPrefs, noTranscript := []byte(nil), []byte(nil)
	tr, err := os.ReadFile(transcript(f, "claude-code.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(stdin("stop.json", nil), stateJSON(f, nil), noPrefs, noTranscript)
	f.Add(stdin("stop-active.json", nil), stateJSON(f, map[string]any{"taskIndex": 3}), noPrefs, noTranscript)
	f.Add(stdin("stop.json", withTranscript), stateJSON(f, map[string]any{"ownerSessionId": sessionID}), noPrefs, tr)
	f.Add(stdin("stop.json", map[string]any{"last_assistant_message": "REPLAN"}), stateJSON(f, nil),
		[]byte("execution:\n  replan: true\n  max_replans: 2\n"), noTranscript)
	f.Add(stdin("stop.json", nil), stateJSON(f, map[string]any{"globalIteration": 50}),
		[]byte("execution:\n  max_global_iterations: 60\n  default_mode: tdd\n"), noTranscript)
	f.Add(stdin("stop.json", nil), stateJSON(f, map[string]any{"awaitingGate": "2"}), noPrefs, noTranscript)
	f.Add(stdin("stop.json", nil), []byte(`{"phase":"execution","taskIndex":"1"}`), noPrefs, noTranscript)
	f.Add(stdin("stop.json", nil), []byte("{\"phase\": \"execu"), noPrefs, noTranscript)
	f.Add([]byte(`{"session_id":`), stateJSON(f, nil), noPrefs, noTranscript)
	f.Fuzz(checkStop)
}

func checkStop(t *testing.T, stdin, stateFile, prefs, transcript []byte) {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if len(data) > 0 { // empty: no such file
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(state.FileName, stateFile)
	write(PrefsFile, prefs)
	write("transcript.jsonl", transcript)
	quoted := strconv.Quote(filepath.Join(dir, "transcript.jsonl"))
	stdin = bytes.ReplaceAll(stdin, []byte(transcriptVar), []byte(quoted[1:len(quoted)-1]))

	var stderr bytes.Buffer
	checkpoints := 0
	env := Env{
		Root:       func(context.Context, string) (string, error) { return dir, nil },
		Now:        func() time.Time { return testNow },
		Checkpoint: func(context.Context, CheckpointRequest) error { checkpoints++; return nil },
		Stderr:     &stderr,
	}
	d := Stop(context.Background(), env, stdin)
	out := d.Stdout()

	switch d.Outcome {
	case Allow:
		if len(out) != 0 {
			t.Fatalf("an allow printed %q", out)
		}
	case Block:
		var v struct { // only the keys of Claude Code's hook output
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
		}
		oneObject(t, out, &v)
		if v.Decision != "block" || strings.TrimSpace(v.Reason) == "" {
			t.Fatalf("a block printed %s", out)
		}
	case Halt:
		var v struct {
			SystemMessage string `json:"systemMessage"`
		}
		oneObject(t, out, &v)
		if strings.TrimSpace(v.SystemMessage) == "" {
			t.Fatalf("a halt printed %s", out)
		}
	default:
		t.Fatalf("unknown outcome %q", d.Outcome)
	}
	if d.Gate != (checkpoints == 1) || checkpoints > 1 {
		t.Fatalf("gate %v but %d checkpoints", d.Gate, checkpoints)
	}
	for _, line := range strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n") {
		if line != "" && !strings.HasPrefix(line, "ccc hook stop: ") {
			t.Fatalf("stderr line without its prefix: %q", line)
		}
	}

	after, err := os.ReadFile(filepath.Join(dir, state.FileName))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		t.Fatal(err)
	case bytes.Equal(after, stateFile):
	default:
		if _, perr := state.Parse(stateFile); perr != nil {
			t.Fatalf("a state file that is not valid JSON was replaced: %v", perr)
		}
		if _, perr := state.Parse(after); perr != nil {
			t.Fatalf("the state file written is not valid JSON: %v\n%s", perr, after)
		}
	}
	if _, err := ParseInput(stdin); err != nil && (d.Rule != RuleRejected || !bytes.Equal(after, stateFile) || checkpoints > 0) {
		t.Fatalf("a rejected stdin changed something: rule %s, %d checkpoints", d.Rule, checkpoints)
	}
}

// oneObject decodes out, which must be one JSON object and a newline.
func oneObject(t *testing.T, out []byte, v any) {
	t.Helper()
	if !bytes.HasSuffix(out, []byte("\n")) || bytes.Count(out, []byte("\n")) != 1 {
		t.Fatalf("stdout is not one line: %q", out)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("stdout %q holds more than one JSON value", out)
	}
}

// recordedInputs are the hook inputs Claude Code was seen to send.
func recordedInputs(tb testing.TB) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "input", "*.json"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no recorded inputs: %v", err)
	}
	var out [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}
