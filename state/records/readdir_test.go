package records

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadDirParallel: a directory of many records is read on several
// goroutines and comes back as one read in order would: every record in
// name order, each problem named, temp files and folders left out.
func TestReadDirParallel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 300
	for i := range n {
		data, err := Encode(build(nil, Snapshot{Agent: fmt.Sprintf("a%03d", i), SessionID: "s"}, t0))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("a%03d.json", i)), data, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a150.json"), []byte("{not json"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".a000.json.tmp-1"), []byte("x"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "history.json"), 0o755))

	got, err := readDir(dir, dir, false, func(string, *Record) Kind { return KindCurrent })
	var p *Problem
	require.True(t, errors.As(err, &p), "%v", err)
	assert.Equal(t, filepath.Join(dir, "a150.json"), p.Path)
	require.Len(t, got, n-1)
	for i, s := range got {
		want := i
		if i >= 150 {
			want = i + 1
		}
		assert.Equal(t, fmt.Sprintf("a%03d", want), s.Record.Agent)
		assert.Equal(t, filepath.Join(dir, fmt.Sprintf("a%03d.json", want)), s.Path)
	}
}

// TestDecodeKeepsNoBytes: a decoded record shares no memory with the bytes
// it was read from, the fast way or the long way, so readDir reads every
// record of a worker into one buffer.
func TestDecodeKeepsNoBytes(t *testing.T) {
	t.Parallel()
	inputs := append([]string{
		string(bigRecord(t, 20)),
		`{"schemaVersion":1,"agent":"a","status":"in_progress","legacy":{"k":"v"},"extra":{"x":[1,"y"]}}`,
		`{"agent":"a","status":"blocked","errors":[{"type":"t","message":"m","timestamp":null,"blocking":true}]}`,
		`{"schemaVersion":1,"agent":"a","status":"in_progress","acceptanceCriteriaMet":{"tests":true},"currentStep":"\u00e9\"q"}`,
	}, fastSeeds...)
	for _, in := range inputs {
		want, _, wantErr := Decode("x.json", []byte(in))
		buf := []byte(in)
		got, _, err := Decode("x.json", buf)
		for i := range buf {
			buf[i] = 'x'
		}
		assert.Equal(t, wantErr, err)
		assert.Equal(t, want, got, "%s", in)
	}
}
