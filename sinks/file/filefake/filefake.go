// Package filefake is a status file for tests of the file sink: the real
// file system with faults injected the way a busy, shared or network file
// system shows them (a concurrent edit, EIO after the data landed, a
// permission error, a slow write), and a reader of the sections in the file
// that does not share the sink's parser.
package filefake

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
	"github.com/ccc-checkpoint/ccc/sinks/file"
)

// Fault is what the next Edit does instead of, or on top of, writing.
type Fault int

const (
	// Concurrent: someone else appends a line to the file between the
	// sink's read and its write, so the write fails with projectfs.ErrChanged.
	Concurrent Fault = iota + 1
	// Denied: the write fails with EACCES.
	Denied
	// LostAnswer: a write that adds a section lands, and the sink is told
	// EIO (the directory sync failed after the rename).
	LostAnswer
)

// FS is a file.FS over the real file system with queued faults.
type FS struct {
	mu      sync.Mutex
	faults  []Fault
	edits   int
	edited  int // lines appended by Concurrent faults
	slowFor time.Duration
}

// Inject queues faults for the next edits, in order. LostAnswer waits for
// the next edit that adds a section.
func (f *FS) Inject(faults ...Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, faults...)
}

// Slow makes the next edit wait d (or until its context ends) first.
func (f *FS) Slow(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.slowFor = d
}

// Edits counts the edits the sink asked for.
func (f *FS) Edits() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.edits
}

// Edited counts the lines concurrent writers appended.
func (f *FS) Edited() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.edited
}

func (f *FS) next(adds bool) (Fault, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	slow := f.slowFor
	f.slowFor = 0
	if len(f.faults) == 0 {
		return 0, slow
	}
	fault := f.faults[0]
	if fault == LostAnswer && !adds {
		return 0, slow
	}
	f.faults = f.faults[1:]
	return fault, slow
}

// Edit implements file.FS.
func (f *FS) Edit(ctx context.Context, path string, edit func([]byte) ([]byte, error)) error {
	f.mu.Lock()
	f.edits++
	f.mu.Unlock()
	old, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		old, err = nil, nil
	}
	if err != nil {
		return err
	}
	data, err := edit(old)
	if err != nil {
		return err
	}
	fault, slow := f.next(strings.Count(string(data), "<!-- ccc:status ") > strings.Count(string(old), "<!-- ccc:status "))
	if slow > 0 {
		t := time.NewTimer(slow)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	switch fault {
	case Concurrent:
		f.mu.Lock()
		f.edited++
		n := f.edited
		f.mu.Unlock()
		line := fmt.Sprintf("Edited by hand meanwhile (%d).\n", n)
		if err := os.WriteFile(path, append(append([]byte(nil), old...), line...), 0o644); err != nil {
			return err
		}
	case Denied:
		return &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES}
	}
	if string(data) != string(old) || old == nil {
		if err := projectfs.ReplaceFile(path, old, data, 0o644); err != nil {
			return err
		}
	}
	if fault == LostAnswer {
		return &fs.PathError{Op: "sync", Path: path, Err: syscall.EIO}
	}
	return nil
}

var _ file.FS = (*FS)(nil)

// Section is an agent's section as the file holds it.
type Section struct {
	Agent, ID string
	// Body is the text between the marker lines.
	Body string
	// Foreign marks text added by AddForeign (a copy of a section shown
	// in a code block), which the sink must never adopt.
	Foreign bool
}

var (
	beginRe   = regexp.MustCompile(`^<!-- ccc:status agent="([^"]*)" id="([^"]+)" -->\n$`)
	foreignRe = regexp.MustCompile(`^<!-- example (\S+) -->\n$`)
)

// Sections lists the sections of the file at path, in file order, with the
// foreign copies added by AddForeign. A missing file has none.
func Sections(path string) ([]Section, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var out []Section
	for i := 0; i < len(lines); i++ {
		if m := foreignRe.FindStringSubmatch(lines[i]); m != nil {
			// The example, the fence, the begin line, the body, the end
			// line, the fence, the example's end.
			s := Section{ID: m[1], Foreign: true}
			if b := beginRe.FindStringSubmatch(lines[i+2]); b != nil {
				s.Agent = b[1]
			}
			var body []string
			for i += 3; i < len(lines) && lines[i] != "<!-- /ccc:status -->\n"; i++ {
				body = append(body, lines[i])
			}
			s.Body = strings.Join(body, "")
			out = append(out, s)
			i += 2
			continue
		}
		m := beginRe.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		s := Section{Agent: m[1], ID: m[2]}
		var body []string
		for i++; i < len(lines) && lines[i] != "<!-- /ccc:status -->\n"; i++ {
			body = append(body, lines[i])
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s: section %s never ends", path, s.ID)
		}
		s.Body = strings.Join(body, "")
		out = append(out, s)
	}
	return out, nil
}

// Delete removes the section with id (and the blank line after it) as a
// person editing the file would.
func Delete(path, id string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		if m := beginRe.FindStringSubmatch(l); m == nil || m[2] != id {
			continue
		}
		j := i
		for j < len(lines) && lines[j] != "<!-- /ccc:status -->\n" {
			j++
		}
		j++
		if j < len(lines) && lines[j] == "\n" {
			j++
		}
		return os.WriteFile(path, []byte(strings.Join(append(lines[:i:i], lines[j:]...), "")), 0o644)
	}
	return fmt.Errorf("%s: no section %s", path, id)
}

// AddForeign appends a copy of agent's section holding body to the file,
// marker lines included, as an example inside a fenced code block: the way
// someone documenting the format would paste one. It returns the copy's id.
func AddForeign(path, agent, body string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return "", err
	}
	id := fmt.Sprintf("x%d", strings.Count(string(data), "<!-- example ")+1)
	text := fmt.Sprintf("\n<!-- example %s -->\n```markdown\n<!-- ccc:status agent=%q id=%q -->\n%s<!-- /ccc:status -->\n```\n<!-- /example %s -->\n",
		id, agent, id, body, id)
	return id, os.WriteFile(path, append(data, text...), 0o644)
}
