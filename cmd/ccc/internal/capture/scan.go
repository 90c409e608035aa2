package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// scanChunk is how much of a transcript is read at a time, from the end.
const scanChunk = 64 << 10

// maxTranscriptLine bounds one Claude Code transcript record: a longer line (or a file with no
// newline) is refused rather than held in memory whole.
const maxTranscriptLine = 32 << 20

// ScanBackward calls fn with each line of the JSONL file at path, newest
// first, until fn returns true or the file's start. Only the tail up to that
// line is read, a chunk at a time: transcripts grow to many megabytes. The
// line passed to fn is valid only during the call. The file is the agent's,
// outside the project: no confinement, but never a FIFO or a device.
func ScanBackward(path string, fn func(line []byte) (stop bool)) error {
	f, err := projectfs.OpenProjectFile("", path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	// win holds the file from winStart to the end of the line being looked
	// at; it grows backwards until it holds that line's start.
	winStart := fi.Size()
	var win []byte
	for {
		i := bytes.LastIndexByte(win, '\n')
		if i < 0 && winStart > 0 {
			if len(win) >= maxTranscriptLine {
				return fmt.Errorf("%s: a line over %d MB", path, maxTranscriptLine>>20)
			}
			n := min(max(int64(scanChunk), int64(len(win))), winStart)
			grown := make([]byte, int(n)+len(win))
			if _, err := f.ReadAt(grown[:n], winStart-n); err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			copy(grown[n:], win)
			win, winStart = grown, winStart-n
			continue
		}
		if fn(win[i+1:]) || i < 0 {
			return nil
		}
		win = win[:i]
	}
}
