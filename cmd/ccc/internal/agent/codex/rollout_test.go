package codex

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture/capturetest"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/cmd/ccc/internal/capture"
)

const codexRollout = "testdata/rollout-2026-11-25T16-00-01-0199a1f2-7c3e-7d40-9b1e-5e0f2a6c8d11.jsonl"

var (
	calcSteps = capturetest.CalcSteps
	twoDone   = capturetest.TwoDone()
	firstPlan = capturetest.FirstPlan()
)

func TestReadRollout(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		want   []capture.Task
		noList bool
	}{
		{name: "the last update_plan wins", path: codexRollout, want: twoDone},
		{name: "a call Codex refused and a compaction change nothing", path: "testdata/rollout-refused.jsonl", want: twoDone},
		{name: "no update_plan", path: "testdata/rollout-noplan.jsonl", noList: true},
		{name: "thread_rolled_back drops the plans of the last user turns", path: "testdata/rollout-rolled-back.jsonl", want: firstPlan},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ReadRollout(tt.path)
			if tt.noList {
				assert.ErrorIs(t, err, capture.ErrNoList)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "codex", l.Agent)
			assert.Equal(t, tt.path, l.Source)
			assert.Equal(t, tt.want, l.Tasks)
		})
	}
}

// zstFixture writes the rollout fixture compressed, as Codex leaves an old
// session, and returns the plain path (which does not exist).
func zstFixture(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(codexRollout)
	require.NoError(t, err)
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	plain := filepath.Join(t.TempDir(), filepath.Base(codexRollout))
	require.NoError(t, os.WriteFile(plain+".zst", enc.EncodeAll(data, nil), 0o644))
	return plain
}

func TestReadRolloutCompressed(t *testing.T) {
	plain := zstFixture(t)
	for _, p := range []string{plain + ".zst", plain} { // named, or found beside the plain name
		l, err := ReadRollout(p)
		require.NoError(t, err, p)
		assert.Equal(t, twoDone, l.Tasks)
		assert.Equal(t, plain+".zst", l.Source)
	}
}

func TestReadRolloutMissing(t *testing.T) {
	_, err := ReadRollout(filepath.Join(t.TempDir(), "rollout-x.jsonl"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// A line longer than capture.MaxLine (a huge tool output) is skipped without being
// held; the plan before and after it is read.
func TestReadRolloutSkipsHugeLine(t *testing.T) {
	data, err := os.ReadFile(codexRollout)
	require.NoError(t, err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	huge := `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"update_plan ` +
		strings.Repeat("x", capture.MaxLine+10) + `"}}` + "\n"
	var out bytes.Buffer
	out.Write(bytes.Join(lines[:5], nil)) // the first plan
	out.WriteString(huge)
	p := filepath.Join(t.TempDir(), "rollout-huge.jsonl")
	require.NoError(t, os.WriteFile(p, out.Bytes(), 0o644))
	l, err := ReadRollout(p)
	require.NoError(t, err)
	assert.Equal(t, firstPlan, l.Tasks)
}

func TestPlanInput(t *testing.T) {
	tasks, ok := PlanInput([]byte(`{"explanation":"e","plan":[{"step":"  Add   the lexer ","status":"completed"},{"step":"","status":"pending"},{"step":"Parse","status":"pending"}]}`))
	require.True(t, ok)
	assert.Equal(t, []capture.Task{{Text: "Add the lexer", Status: "completed"}, {Text: "Parse", Status: "pending"}}, tasks)
	_, ok = PlanInput([]byte(`{"plan":[{"step":"Parse","status":"weird"}]}`))
	assert.False(t, ok, "Codex refuses a status it does not know: the plan did not change")
	_, ok = PlanInput([]byte(`{"command":"ls"}`))
	assert.False(t, ok)
}

// bomb is a rollout of n bytes of one update_plan line repeated, with a
// last plan at its end, as a hostile or runaway log holds.
func bomb(t *testing.T, w io.Writer, n int) {
	t.Helper()
	data, err := os.ReadFile(codexRollout)
	require.NoError(t, err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	pad := []byte(`{"type":"event_msg","payload":{"type":"agent_message","message":"` + strings.Repeat("x", 1<<20) + `"}}` + "\n")
	for written := 0; written < n; written += len(pad) {
		_, err := w.Write(pad)
		require.NoError(t, err)
	}
	_, err = w.Write(bytes.Join(lines[:5], nil)) // the first plan, last
	require.NoError(t, err)
}

// A compressed rollout that expands past MaxRollout is refused once the cap
// is read: the hook does not decompress gigabytes to reach the plan at the
// end. One that stays within the cap is read whole.
func TestReadRolloutCapsDecompressedText(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
		err  error
	}{
		{"past the cap", MaxRollout + 2<<20, ErrTooBig},
		{"within the cap", MaxRollout - 2<<20, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "rollout-bomb.jsonl.zst")
			f, err := os.Create(p)
			require.NoError(t, err)
			enc, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest))
			require.NoError(t, err)
			bomb(t, enc, tc.size)
			require.NoError(t, enc.Close())
			require.NoError(t, f.Close())
			l, err := ReadRollout(p)
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, firstPlan, l.Tasks)
		})
	}
}

// A plain rollout past MaxRollout is read from its tail: the last plan is
// there.
func TestReadRolloutReadsThePlainTail(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rollout-long.jsonl")
	f, err := os.Create(p)
	require.NoError(t, err)
	bomb(t, f, MaxRollout+2<<20)
	require.NoError(t, f.Close())
	l, err := ReadRollout(p)
	require.NoError(t, err)
	assert.Equal(t, firstPlan, l.Tasks)
}

// A call Codex answered with an error, or one its own argument types
// reject, never changed the plan.
func TestReadRolloutSkipsFailedCalls(t *testing.T) {
	base, err := os.ReadFile(codexRollout)
	require.NoError(t, err)
	call := func(id, args string) string {
		return `{"timestamp":"2026-11-25T16:01:00.000Z","type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":` + args + `,"call_id":"` + id + `"}}` + "\n"
	}
	other := `"{\"plan\":[{\"step\":\"Something else\",\"status\":\"pending\"}]}"`
	for name, tail := range map[string]string{
		"an unknown status":     call("c9", `"{\"plan\":[{\"step\":\"Something else\",\"status\":\"bogus\"}]}"`),
		"a step without status": call("c9", `"{\"plan\":[{\"step\":\"Something else\"}]}"`),
		"output says it failed": call("c9", other) +
			`{"timestamp":"2026-11-25T16:01:01.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c9","output":"failed to parse function arguments: missing field` + "`status`" + `"}}` + "\n",
		"output with success false": call("c9", other) +
			`{"timestamp":"2026-11-25T16:01:01.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c9","output":{"content":"error","success":false}}}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "rollout.jsonl")
			require.NoError(t, os.WriteFile(p, append(bytes.Clone(base), tail...), 0o600))
			l, err := ReadRollout(p)
			require.NoError(t, err)
			assert.Equal(t, twoDone, l.Tasks)
		})
	}
}

// thread_rolled_back {num_turns: N} drops the last N user turns, and the
// plans they wrote, as Codex rebuilds the thread; a plan after it counts;
// a rollback past every turn leaves no plan; contextual user messages
// (<environment_context>…) start no turn.
func TestReadRolloutRolledBack(t *testing.T) {
	data, err := os.ReadFile("testdata/rollout-rolled-back.jsonl")
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	rollback := lines[len(lines)-2]
	secondPlan, secondOut := lines[9], lines[10]
	require.Contains(t, rollback, "thread_rolled_back")
	require.Contains(t, secondPlan, "update_plan")
	dir := t.TempDir()
	for name, tt := range map[string]struct {
		body   string
		want   []capture.Task
		noList bool
	}{
		"two turns back":       {body: strings.Join(lines[:len(lines)-2], "") + strings.Replace(rollback, `"num_turns":1`, `"num_turns":2`, 1), noList: true},
		"more turns than seen": {body: strings.Join(lines[:len(lines)-2], "") + strings.Replace(rollback, `"num_turns":1`, `"num_turns":9`, 1), noList: true},
		"a plan after it":      {body: string(data) + secondPlan + secondOut, want: twoDone},
		"no turns":             {body: strings.Join(lines[:len(lines)-2], "") + strings.Replace(rollback, `"num_turns":1`, `"num_turns":0`, 1), want: twoDone},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
		require.NoError(t, os.WriteFile(p, []byte(tt.body), 0o644))
		l, err := ReadRollout(p)
		if tt.noList {
			assert.ErrorIs(t, err, capture.ErrNoList, name)
			continue
		}
		require.NoError(t, err, name)
		assert.Equal(t, tt.want, l.Tasks, name)
	}
}
