package capture

import (
	"bytes"
	"errors"
	"io"
	"io/fs"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// scanChunk is how much of a transcript is read at a time, from the end.
const scanChunk = 256 << 10

// headSize is how much of a line over MaxLine is read, for the caller to
// tell what it was.
const headSize = 4 << 10

// scanFile is what a scan needs of the file it reads.
type scanFile interface {
	io.ReaderAt
	io.Closer
	Stat() (fs.FileInfo, error)
}

// openScan opens the file a scan reads (a test counts the reads).
var openScan = func(path string) (scanFile, error) { return projectfs.OpenProjectFile("", path) }

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
	// Start is where the line begins in the file.
	Start int64
}

// ScanBackward is the one bounded reader of an agent's transcript: it
// calls fn with each line of the JSONL file at path that holds one of keys, newest
// first, until fn says stop or returns an error, or the file's start. It
// reads the tail up to that line a chunk (256 KB) at a time, finding line
// ends with bytes.IndexByte; a line without a key is neither kept nor
// passed, and a line with one is read whole only up to MaxLine (4 MB), else
// passed Cut with its head. Keys are looked for in a line's last MaxLine
// bytes and, when it is longer, in its head: the middle of a longer line,
// which no caller reads, is not searched. The file is the agent's, outside
// the project: no confinement, but never a FIFO or a device.
func ScanBackward(path string, keys [][]byte, fn func(Line) (stop bool, err error)) error {
	return Scan{Keys: keys, Within: -1}.Backward(path, fn)
}

// Scan is a backward scan (ScanBackward) with its bounds.
type Scan struct {
	// Keys are what a line must hold to be passed.
	Keys [][]byte
	// Ends, above 0, looks for the keys only in a line's first and last
	// Ends bytes: where a format puts what says a record's kind (Claude
	// Code writes message.role near a record's start and its type near its
	// end), so that the body of a large tool output is not searched.
	Ends int
	// Within, at 0 or above, reads only the file's last Within bytes: a
	// line that starts before them is not passed, nothing before them is
	// read.
	Within int64
}

// Backward runs the scan over the file at path.
func (sc Scan) Backward(path string, fn func(Line) (stop bool, err error)) error {
	f, err := openScan(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	s := backScan{Scan: sc, f: f, fn: fn, size: fi.Size()}
	for _, k := range sc.Keys {
		s.longest = max(s.longest, len(k))
	}
	floor := int64(0)
	if sc.Within >= 0 && s.size > sc.Within {
		floor = s.size - sc.Within
	}
	s.pos, s.lineEnd = s.size, s.size
	buf := make([]byte, min(int64(scanChunk), s.size-floor))
	for s.pos > floor {
		n := min(int64(len(buf)), s.pos-floor)
		s.pos -= n
		s.chunk = buf[:n]
		if _, err := f.ReadAt(s.chunk, s.pos); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if stop, err := s.lines(); stop || err != nil {
			return err
		}
	}
	if floor > 0 {
		return nil // the line the window starts in began before it
	}
	_, err = s.emit(0)
	return err
}

// backScan is a Scan under way.
type backScan struct {
	Scan
	f       scanFile
	longest int // the longest key's length
	fn      func(Line) (bool, error)
	size    int64
	pos     int64  // where chunk was read
	chunk   []byte // the chunk being scanned
	ends    []int  // the offsets of the chunk's newlines, ascending
	lineEnd int64  // where the line being scanned ends (its '\n' or EOF)
	found   bool   // the part of that line scanned so far holds a key
	seam    []byte // the first bytes of the chunk read before this one
}

func (s *backScan) holds(b []byte) bool {
	for _, k := range s.Keys {
		if bytes.Contains(b, k) {
			return true
		}
	}
	return false
}

// lines passes on the chunk's lines that end in it, newest first.
func (s *backScan) lines() (bool, error) {
	s.ends = s.ends[:0]
	for off := 0; ; {
		i := bytes.IndexByte(s.chunk[off:], '\n')
		if i < 0 {
			break
		}
		s.ends = append(s.ends, off+i)
		off += i + 1
	}
	end := len(s.chunk)
	for k := len(s.ends); ; k-- {
		i := -1
		if k > 0 {
			i = s.ends[k-1]
		}
		if scanned := s.lineEnd - (s.pos + int64(end)); !s.found {
			switch {
			case s.Ends <= 0 && scanned < MaxLine:
				s.look(s.chunk[i+1:end], end == len(s.chunk))
			case s.Ends > 0 && scanned < int64(s.Ends):
				from := max(i+1, end-(s.Ends-int(scanned)))
				s.look(s.chunk[from:end], end == len(s.chunk))
			}
		}
		if i < 0 {
			break
		}
		if stop, err := s.emit(s.pos + int64(i) + 1); stop || err != nil {
			return stop, err
		}
		s.found, s.lineEnd, end = false, s.pos+int64(i), i
	}
	s.seam = append(s.seam[:0], s.chunk[:min(len(s.chunk), s.longest-1)]...)
	return false, nil
}

// look notes whether piece, a part of the line being scanned, holds a key;
// atEnd says it ends where the chunk read before this one begins.
func (s *backScan) look(piece []byte, atEnd bool) {
	s.found = s.holds(piece)
	if !s.found && atEnd && len(s.seam) > 0 {
		// A key across the chunks' boundary.
		k := s.longest - 1
		joined := append(append([]byte(nil), piece[max(0, len(piece)-k):]...), s.seam...)
		s.found = s.holds(joined)
	}
}

// emit passes the line [start, lineEnd) on when it holds a key.
func (s *backScan) emit(start int64) (bool, error) {
	n := s.lineEnd - start
	if n > MaxLine {
		head := make([]byte, headSize)
		k, err := s.f.ReadAt(head, start)
		if err != nil && !errors.Is(err, io.EOF) {
			return true, err
		}
		if !s.found && !s.holds(head[:k]) {
			return false, nil
		}
		return s.fn(Line{Text: head[:k], Cut: true, FromEnd: s.size - start, Start: start})
	}
	if !s.found && s.Ends > 0 {
		s.found = s.holds(s.head(start, min(n, int64(s.Ends))))
	}
	if !s.found {
		return false, nil
	}
	var l []byte
	if start >= s.pos && s.lineEnd <= s.pos+int64(len(s.chunk)) {
		l = s.chunk[start-s.pos : s.lineEnd-s.pos]
	} else {
		l = make([]byte, n)
		if _, err := s.f.ReadAt(l, start); err != nil && !errors.Is(err, io.EOF) {
			return true, err
		}
	}
	return s.fn(Line{Text: l, FromEnd: s.size - start, Start: start})
}

// head is the first n bytes of the line starting at start: from the chunk
// when they are in it, else read.
func (s *backScan) head(start, n int64) []byte {
	if start >= s.pos && start+n <= s.pos+int64(len(s.chunk)) {
		return s.chunk[start-s.pos : start-s.pos+n]
	}
	b := make([]byte, n)
	k, _ := s.f.ReadAt(b, start) // a short read looks at less
	return b[:k]
}
