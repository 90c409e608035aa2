package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/state"
)

// testNow is the clock of every test: CCC_NOW of the CLI scripts.
var testNow = time.Date(2026, 11, 21, 13, 45, 0, 0, time.UTC)

const sessionID = "8f3c2a1e-4b7d-4e2a-9c51-0d6e7f8a9b10"

// kv is one key of a state file, in order.
type kv struct {
	k string
	v any
}

// drop removes a key from a state built by stateJSON.
type drop struct{}

// baseState is a CCC execution in quick mode, on its second task of 3
// (taskIndex counts from 0), with keys
// ccc does not read (they must survive every write).
func baseState() []kv {
	return []kv{
		{"phase", "execution"},
		{"taskIndex", 1},
		{"totalTasks", 3},
		{"taskIteration", 1},
		{"maxTaskIterations", 5},
		{"globalIteration", 4},
		{"maxGlobalIterations", 50},
		{"executionMode", "quick"},
		{"awaitingGate", nil},
		{"linearIssue", "CIA-12"},
		{"specPath", "docs/spec.md"},
		{"replanCount", 0},
		{"activeTaskFiles", []string{"parser.go", "parser_test.go"}},
		{"gatesPassed", []int{1, 2}},
	}
}

// stateJSON renders baseState with overrides, as jq writes it. A value
// json.RawMessage is written as is; drop{} removes the key.
func stateJSON(t testing.TB, over map[string]any) []byte {
	t.Helper()
	kvs := baseState()
	seen := map[string]bool{}
	var out []kv
	for _, e := range kvs {
		seen[e.k] = true
		if v, ok := over[e.k]; ok {
			if _, gone := v.(drop); gone {
				continue
			}
			e.v = v
		}
		out = append(out, e)
	}
	var extra []string
	for k := range over {
		if !seen[k] {
			extra = append(extra, k)
		}
	}
	// Map order is random; extra keys go in name order.
	sort.Strings(extra)
	for _, k := range extra {
		if _, gone := over[k].(drop); !gone {
			out = append(out, kv{k, over[k]})
		}
	}
	var b strings.Builder
	b.WriteString("{")
	for i, e := range out {
		if i > 0 {
			b.WriteString(",")
		}
		v, err := json.Marshal(e.v)
		require.NoError(t, err)
		b.WriteString("\n  " + `"` + e.k + `": ` + string(v))
	}
	b.WriteString("\n}\n")
	return []byte(b.String())
}

// input reads a recorded hook input and applies changes (nil deletes).
func input(t testing.TB, fixture string, set map[string]any) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "input", fixture))
	require.NoError(t, err)
	if len(set) == 0 {
		return data
	}
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	for k, v := range set {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return out
}

func transcript(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "transcript", name))
	require.NoError(t, err)
	return p
}

// fakeCheckpoint records the checkpoint runs it is asked for.
type fakeCheckpoint struct {
	mu    sync.Mutex
	calls []CheckpointRequest
	err   error
	panic bool
	hang  bool
	// do plays what a real checkpoint does to the project's files.
	do func(c CheckpointRequest)
}

func (f *fakeCheckpoint) run(ctx context.Context, c CheckpointRequest) error {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	if f.do != nil {
		f.do(c)
	}
	if f.panic {
		panic("checkpoint exploded")
	}
	if f.hang {
		<-ctx.Done()
		time.Sleep(time.Hour) // ignores its deadline
	}
	return f.err
}

func (f *fakeCheckpoint) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// proj is a scratch project root.
type proj struct {
	t    testing.TB
	root string
	cp   *fakeCheckpoint
	errs *bytes.Buffer
}

func newProj(t testing.TB) *proj {
	t.Helper()
	return &proj{t: t, root: t.TempDir(), cp: &fakeCheckpoint{}, errs: &bytes.Buffer{}}
}

func (p *proj) env() Env {
	return Env{
		Root:       func(context.Context, string) (string, error) { return p.root, nil },
		Now:        func() time.Time { return testNow },
		Checkpoint: p.cp.run,
		Stderr:     p.errs,
	}
}

func (p *proj) path(name string) string { return filepath.Join(p.root, name) }

func (p *proj) write(name string, data []byte) {
	p.t.Helper()
	require.NoError(p.t, os.MkdirAll(filepath.Dir(p.path(name)), 0o755))
	require.NoError(p.t, os.WriteFile(p.path(name), data, 0o644))
}

func (p *proj) read(name string) []byte {
	p.t.Helper()
	data, err := os.ReadFile(p.path(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(p.t, err)
	return data
}

func (p *proj) state() *state.State {
	p.t.Helper()
	data := p.read(state.FileName)
	require.NotNil(p.t, data, "state file exists")
	st, err := state.Parse(data)
	require.NoError(p.t, err)
	return st
}

func (p *proj) stop(stdin []byte) Decision {
	p.t.Helper()
	return Stop(context.Background(), p.env(), stdin)
}

// decided is what Decide made of a state over baseState (stateJSON's
// over), preferences as written and a recorded stdin, gathered as the
// executor would in a project without a progress file: no file, no
// process, only the rules.
type decided struct {
	d       Decision
	effects []Effect
}

func decideOn(t testing.TB, stateData []byte, prefs string, stdin []byte, with ...func(*Facts)) decided {
	t.Helper()
	_, f, err := parseState(stateData)
	require.NoError(t, err)
	in, err := ParseInput(stdin)
	require.NoError(t, err)
	p, err := config.ParseHookPrefs([]byte(prefs))
	require.NoError(t, err)
	x := Facts{Session: in.SessionID, State: f, Prefs: p, Output: in.LastAssistantMessage}
	if x.Output == "" && in.TranscriptPath != "" {
		x.OutputErr = fmt.Errorf("transcript_path %s %w", in.TranscriptPath, ErrNoTranscript)
	}
	for _, w := range with {
		w(&x)
	}
	d, effects := Decide(x)
	return decided{d, effects}
}

// gates counts the checkpoints the effects run.
func (r decided) gates() int {
	n := 0
	for _, e := range r.effects {
		if _, ok := e.(GateCheckpoint); ok {
			n++
		}
	}
	return n
}

// after is the state's keys once the effects are applied to orig: nil
// when they remove it.
func (r decided) after(t testing.TB, orig []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(orig, &m))
	for _, e := range r.effects {
		switch e := e.(type) {
		case WriteState:
			for k, v := range e.Set {
				raw, err := json.Marshal(v)
				require.NoError(t, err)
				m[k] = raw
			}
		case RemoveState:
			return nil
		}
	}
	return m
}

// writes reports whether the effects change the state file.
func (r decided) writes() bool {
	for _, e := range r.effects {
		switch e.(type) {
		case WriteState, RemoveState:
			return true
		}
	}
	return false
}
