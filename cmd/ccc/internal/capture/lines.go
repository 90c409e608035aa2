package capture

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// MaxLine bounds one line of an agent's log: a longer line (a huge tool
// output) is skipped whole, never held in memory.
const MaxLine = 4 << 20

// ErrNoList is a log that holds no checklist call: the agent never wrote a
// plan or todo list in this session.
var ErrNoList = errors.New("no checklist")

// MaxTail bounds the text of an agent's log one capture reads: the newest
// calls are at the end, so a longer log is read from its last MaxTail
// bytes.
const MaxTail = 64 << 20

// EachLine calls fn with every line of r, without its newline, up to max
// bytes; longer lines are skipped and counted. The slice is only valid
// during the call.
func EachLine(r io.Reader, max int, fn func(line []byte)) (skipped int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if !tooLong && len(long)+len(chunk) <= max {
				long = append(long, chunk...)
			} else {
				tooLong, long = true, long[:0]
			}
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return skipped, err
		}
		line := chunk
		if len(long) > 0 || tooLong {
			if !tooLong && len(long)+len(chunk) <= max {
				long = append(long, chunk...)
				line = long
			} else {
				tooLong = true
			}
		}
		if tooLong || len(trimEOL(line)) > max {
			skipped++
		} else if l := trimEOL(line); len(l) > 0 {
			fn(l)
		}
		long, tooLong = long[:0], false
		if err != nil { // io.EOF
			return skipped, nil
		}
	}
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// OpenTail opens an agent's log (regular files only) at its last MaxTail
// bytes; skipFirst says the first line read is the end of a line cut by
// the start of the tail. The log is the agent's, outside the project: no
// confinement, but never a FIFO or a device.
func OpenTail(path string) (f *os.File, skipFirst bool, err error) {
	if f, err = projectfs.OpenProjectFile("", path); err != nil {
		return nil, false, err
	}
	if skipFirst, err = SeekTail(f); err != nil {
		_ = f.Close()
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return f, skipFirst, nil
}

// SeekTail moves f to its last MaxTail bytes, when it is longer: the
// newest calls are at the end.
func SeekTail(f *os.File) (skipFirst bool, err error) {
	fi, err := f.Stat()
	if err != nil || fi.Size() <= MaxTail {
		return false, err
	}
	if _, err := f.Seek(fi.Size()-MaxTail, io.SeekStart); err != nil {
		return false, err
	}
	// The tail starts inside a line unless a newline ends the one before.
	var prev [1]byte
	_, err = f.ReadAt(prev[:], fi.Size()-MaxTail-1)
	return err != nil || prev[0] != '\n', nil
}
