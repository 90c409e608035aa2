package capture

import (
	"bufio"
	"errors"
	"io"
)

// MaxLine bounds one line of an agent's log: a longer line (a huge tool
// output) is skipped whole, never held in memory.
const MaxLine = 4 << 20

// ErrNoList is a log that holds no checklist call: the agent never wrote a
// plan or todo list in this session.
var ErrNoList = errors.New("no checklist")

// eachLine calls fn with every line of r, without its newline, up to max
// bytes; longer lines are skipped and counted. The slice is only valid
// during the call.
func eachLine(r io.Reader, max int, fn func(line []byte)) (skipped int, err error) {
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
