package markdown

import (
	"bytes"
	"sort"
)

// Lines indexes the lines of a source. Lines are numbered from 1; a line's text excludes its line
// ending ("\n" or "\r\n"). A final line ending does not start another line.
type Lines struct {
	src    []byte
	starts []int
}

// NewLines indexes src.
func NewLines(src []byte) *Lines {
	l := &Lines{src: src, starts: make([]int, 0, bytes.Count(src, []byte{'\n'})+1)}
	for off := 0; off < len(src); {
		l.starts = append(l.starts, off)
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return l
}

// Count returns the number of lines.
func (l *Lines) Count() int { return len(l.starts) }

// Of returns the line that holds the byte at off; the end of the source belongs to the line after
// the last one.
func (l *Lines) Of(off int) int {
	if off >= len(l.src) {
		return len(l.starts) + 1
	}
	return sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off })
}

// Start returns the offset of line n's first byte (the end of the source past the last line).
func (l *Lines) Start(n int) int {
	if n < 1 {
		return 0
	}
	if n > len(l.starts) {
		return len(l.src)
	}
	return l.starts[n-1]
}

// End returns the offset just past line n's line ending.
func (l *Lines) End(n int) int { return l.Start(n + 1) }

// Text returns line n without its line ending.
func (l *Lines) Text(n int) []byte {
	if n < 1 || n > len(l.starts) {
		return nil
	}
	t := l.src[l.Start(n):l.End(n)]
	t = bytes.TrimSuffix(t, []byte{'\n'})
	return bytes.TrimSuffix(t, []byte{'\r'})
}
