package capture

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingFile counts what a scan reads.
type countingFile struct {
	*os.File
	reads, bytes int64
}

func (c *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.File.ReadAt(p, off)
	c.reads++
	c.bytes += int64(n)
	return n, err
}

// counted makes the scans of this test count their reads into got.
func counted(t *testing.T) *countingFile {
	got := &countingFile{}
	old := openScan
	openScan = func(path string) (scanFile, error) {
		f, err := os.Open(path)
		got.File = f
		return got, err
	}
	t.Cleanup(func() { openScan = old })
	return got
}

var assistantKey = []byte(`"assistant"`)

// transcriptWith writes an assistant record followed by tail.
func transcriptWith(t *testing.T, tail string) (string, int64) {
	t.Helper()
	data := `{"type":"assistant","message":{"role":"assistant","content":"done"}}` + "\n" + tail
	path := filepath.Join(t.TempDir(), "t.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
	return path, int64(len(data))
}

func toolOutput(n int) string {
	return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"` + strings.Repeat("x", n) + `"}]}}` + "\n"
}

// TestScanBackwardOnePass: reaching the assistant record before 32 MB of
// tool output reads the file once, in 256 KB reads, whether the output is
// many lines or one (counts of reads and bytes, not times); a line over
// MaxLine has its 4 KB head read once more.
func TestScanBackwardOnePass(t *testing.T) {
	const total = 32 << 20
	for name, tail := range map[string]string{
		"many lines": strings.Repeat(toolOutput(2000), total/2000),
		"one line":   toolOutput(total),
	} {
		path, size := transcriptWith(t, tail)
		got := counted(t)
		var text string
		require.NoError(t, ScanBackward(path, [][]byte{assistantKey}, func(l Line) (bool, error) {
			text = string(l.Text)
			return true, nil
		}), name)
		assert.Contains(t, text, `"content":"done"`, name)
		assert.LessOrEqual(t, got.bytes, size+headSize, "%s: bytes read: the file once (and a long line's head again)", name)
		assert.LessOrEqual(t, got.reads, size/scanChunk+2, "%s: reads", name)
	}
}

// TestScanBackwardWithin reads nothing before the window and passes no line
// that starts before it.
func TestScanBackwardWithin(t *testing.T) {
	path, _ := transcriptWith(t, strings.Repeat(toolOutput(2000), 2000))
	got := counted(t)
	passed := 0
	require.NoError(t, Scan{Keys: [][]byte{assistantKey}, Within: 1 << 20}.Backward(path, func(Line) (bool, error) {
		passed++
		return false, nil
	}))
	assert.Zero(t, passed, "the assistant record lies before the window")
	assert.LessOrEqual(t, got.bytes, int64(1<<20), "bytes read")
}

// TestScanBackwardLongLines: a line over MaxLine is passed Cut when its
// head holds a key, and not when only its middle does (no caller reads
// it); a scan through one 64 MB line allocates its buffer and a head, not
// the line.
func TestScanBackwardLongLines(t *testing.T) {
	middle := `{"type":"user","content":"` + strings.Repeat("x", MaxLine) + `"assistant"` + strings.Repeat("x", 2*MaxLine) + `"}` + "\n"
	head := `{"type":"assistant","message":{"role":"assistant","content":"` + strings.Repeat("y", 2*MaxLine) + `"}}` + "\n"
	for name, tc := range map[string]struct {
		line string
		cut  bool
	}{"key in the middle": {middle, false}, "key in the head": {head, true}} {
		path := filepath.Join(t.TempDir(), "t.jsonl")
		require.NoError(t, os.WriteFile(path, []byte(tc.line), 0o644))
		var lines []Line
		require.NoError(t, ScanBackward(path, [][]byte{assistantKey}, func(l Line) (bool, error) {
			lines = append(lines, Line{Cut: l.Cut, FromEnd: l.FromEnd})
			return false, nil
		}))
		if !tc.cut {
			assert.Empty(t, lines, name)
			continue
		}
		require.Len(t, lines, 1, name)
		assert.True(t, lines[0].Cut, name)
	}

	path, _ := transcriptWith(t, toolOutput(64<<20))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	require.NoError(t, ScanBackward(path, [][]byte{assistantKey}, func(Line) (bool, error) { return true, nil }))
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(scanChunk+headSize+64<<10), "bytes allocated")
}

// TestScanEnds: with Ends, a key is looked for only near a line's start
// and end; lines shorter than both windows are searched whole.
func TestScanEnds(t *testing.T) {
	x := strings.Repeat("x", 8<<10)
	for name, tc := range map[string]struct {
		line string
		want bool
	}{
		"key near the start": {`{"role":"assistant","content":"` + x + `"}`, true},
		"key near the end":   {`{"content":"` + x + `","type":"assistant"}`, true},
		"key in the middle":  {`{"content":"` + x + `"assistant"` + x + `"}`, false},
		"a short line":       {`{"content":"a` + `"assistant"` + `b"}`, true},
	} {
		path := filepath.Join(t.TempDir(), "t.jsonl")
		require.NoError(t, os.WriteFile(path, []byte(tc.line+"\n"+toolOutput(600<<10)), 0o644))
		passed := 0
		require.NoError(t, Scan{Keys: [][]byte{assistantKey}, Ends: 256, Within: -1}.Backward(path, func(l Line) (bool, error) {
			passed++
			assert.Equal(t, tc.line, string(l.Text), name)
			return false, nil
		}))
		assert.Equal(t, tc.want, passed == 1, name)
		passed = 0
		require.NoError(t, ScanBackward(path, [][]byte{assistantKey}, func(Line) (bool, error) { passed++; return false, nil }))
		assert.Equal(t, 1, passed, "%s: without Ends the whole line is searched", name)
	}
}
