package capture

import (
	"bytes"
	"errors"
	"io"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// scanChunk is how much of a transcript is read at a time, from the end.
const scanChunk = 64 << 10

// headSize is how much of a line over MaxLine is read, for the caller to
// tell what it was.
const headSize = 4 << 10

// Line is one line of a file scanned backwards.
type Line struct {
	// Text is the line without its newline; valid only during the call.
	// When Cut, it is only the line's first 4 KB.
	Text []byte
	// Cut says the line is over MaxLine: it was neither read whole nor
	// held.
	Cut bool
	// FromEnd is how many bytes of the file lie from the line's start to
	// the end: how much a caller has scanned.
	FromEnd int64
}

// ScanBackward is the one bounded reader of an agent's transcript: it
// calls fn with each line of the JSONL file at path that holds one of keys, newest
// first, until fn says stop or returns an error, or the file's start. It
// reads the tail up to that line a chunk (64 KB) at a time; a line without
// a key is neither kept nor passed, and a line with one is read whole only up
// to MaxLine (4 MB), else passed Cut with its head. The file is the
// agent's, outside the project: no confinement, but never a FIFO or a
// device.
func ScanBackward(path string, keys [][]byte, fn func(Line) (stop bool, err error)) error {
	longest := 0
	for _, k := range keys {
		longest = max(longest, len(k))
	}
	holds := func(b []byte) bool {
		for _, k := range keys {
			if bytes.Contains(b, k) {
				return true
			}
		}
		return false
	}
	f, err := projectfs.OpenProjectFile("", path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	var (
		pos     = size
		buf     = make([]byte, scanChunk)
		lineEnd = pos  // where the line being scanned ends (its '\n' or EOF)
		found   bool   // the part of that line scanned so far holds key
		seam    []byte // the first bytes of the chunk read before this one
		chunk   []byte // the chunk being scanned, read at pos
	)
	// emit passes the line [start, lineEnd) on.
	emit := func(start int64) (bool, error) {
		n := lineEnd - start
		if n > MaxLine {
			head := make([]byte, headSize)
			k, err := f.ReadAt(head, start)
			if err != nil && !errors.Is(err, io.EOF) {
				return true, err
			}
			return fn(Line{Text: head[:k], Cut: true, FromEnd: size - start})
		}
		var l []byte
		if start >= pos && lineEnd <= pos+int64(len(chunk)) {
			l = chunk[start-pos : lineEnd-pos]
		} else {
			l = make([]byte, n)
			if _, err := f.ReadAt(l, start); err != nil && !errors.Is(err, io.EOF) {
				return true, err
			}
		}
		return fn(Line{Text: l, FromEnd: size - start})
	}
	for pos > 0 {
		n := min(int64(scanChunk), pos)
		pos -= n
		chunk = buf[:n]
		if _, err := f.ReadAt(chunk, pos); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		end := len(chunk)
		for {
			i := bytes.LastIndexByte(chunk[:end], '\n')
			if !found {
				piece := chunk[i+1 : end]
				found = holds(piece)
				if !found && end == len(chunk) && len(seam) > 0 {
					// A key across the chunks' boundary.
					k := longest - 1
					joined := append(append([]byte(nil), piece[max(0, len(piece)-k):]...), seam...)
					found = holds(joined)
				}
			}
			if i < 0 {
				break
			}
			if found {
				if stop, err := emit(pos + int64(i) + 1); stop || err != nil {
					return err
				}
			}
			found, lineEnd, end = false, pos+int64(i), i
		}
		seam = append(seam[:0], chunk[:min(len(chunk), longest-1)]...)
	}
	if !found {
		return nil
	}
	_, err = emit(0)
	return err
}
