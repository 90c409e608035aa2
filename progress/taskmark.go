package progress

import (
	"regexp"
	"strings"
	"sync"
)

// taskMarkRe is the hidden identity comment of a captured task at the end of an item's first line.
var taskMarkRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[ \t]*<!-- ccc:task ([A-Za-z0-9_.:-]+(?: dropped)?) -->[ \t]*$`)
})

// taskMarkOpen starts a task mark.
const taskMarkOpen = "<!-- ccc:task "

// splitTaskMark removes a task's identity comment from the end of its first line.
func splitTaskMark(text string) (rest, mark string) {
	first, more, multi := strings.Cut(text, "\n")
	// Only the line's tail is matched: a task line can be megabytes long,
	// and the mark, when there is one, is the last thing on it.
	if strings.IndexByte(first, '<') < 0 { // most tasks: no comment at all, found at memchr's speed
		return text, ""
	}
	at := strings.LastIndex(first, taskMarkOpen)
	if at < 0 {
		return text, ""
	}
	start := len(strings.TrimRight(first[:at], " \t"))
	m := taskMarkRe().FindStringSubmatchIndex(first[start:])
	if m == nil {
		return text, ""
	}
	mark, first = first[start+m[2]:start+m[3]], first[:start]
	if multi {
		first += "\n" + more
	}
	return first, mark
}

// withTaskMark puts a task's identity comment at the end of its first line.
func withTaskMark(text, mark string) string {
	if mark == "" {
		return text
	}
	first, more, multi := strings.Cut(text, "\n")
	first = strings.TrimLeft(first+" <!-- ccc:task "+mark+" -->", " ")
	if multi {
		first += "\n" + more
	}
	return first
}

// ValidTaskMark reports whether mark can be written as a task's identity comment and read back.
func ValidTaskMark(mark string) bool {
	_, got := splitTaskMark(withTaskMark("x", mark))
	return mark != "" && got == mark
}
