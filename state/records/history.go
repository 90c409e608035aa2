package records

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// Kind says what a stored record is, from where it sits.
type Kind string

// Kinds of stored records.
const (
	// KindCurrent is an agent's live record, <agent>.json.
	KindCurrent Kind = "current"
	// KindHistory is a record a later checkpoint replaced.
	KindHistory Kind = "history"
	// KindComplete is a completed record's archive.
	KindComplete Kind = "complete"
	// KindCrashed is a record set aside by a takeover (or any other
	// record at the top of the directory that is not an agent's current one).
	KindCrashed Kind = "crashed"
	// KindFailed is a failed record, in failed/ or waiting to move there.
	KindFailed Kind = "failed"
)

// Stored is a record and where it is kept. It marshals as the record alone
// (the embedded record's MarshalJSON); callers that report Kind and Path
// build their own shape.
type Stored struct {
	*Record
	Kind Kind
	Path string
}

// Top reads the records at the top of dir: every agent's current record,
// completed archives, crashed records. Files that cannot be read are
// reported together in the error (the others are still returned); a
// missing dir is no records. Ordered by agent, then newest first.
func Top(dir string) ([]Stored, error) {
	return top(dir, false)
}

// top is Top; with summary, of records decoded by decodeSummary (Collect's).
func top(dir string, summary bool) ([]Stored, error) {
	out, err := readDir(dir, dir, summary, func(name string, r *Record) Kind {
		switch {
		case r.Status == StatusComplete:
			return KindComplete
		case r.Status == StatusFailed:
			return KindFailed
		case name == r.Agent+".json":
			return KindCurrent
		default:
			return KindCrashed
		}
	})
	sortStored(out, true)
	return out, err
}

// Failed reads the records in dir's failed/ (kept there until ccc cleanup
// removes them), ordered as Top orders its records.
func Failed(dir string) ([]Stored, error) {
	return failed(dir, false)
}

// failed is Failed; with summary, of records decoded by decodeSummary.
func failed(dir string, summary bool) ([]Stored, error) {
	out, err := readDir(dir, filepath.Join(dir, FailedDir), summary, func(string, *Record) Kind { return KindFailed })
	sortStored(out, true)
	return out, err
}

// List returns the current records, one per agent, ordered by agent.
func List(dir string) ([]*Record, error) {
	top, err := Top(dir)
	var out []*Record
	for _, s := range top {
		if s.Kind == KindCurrent {
			out = append(out, s.Record)
		}
	}
	return out, err
}

// All reads every stored record: the top of dir, history/ and failed/,
// newest first (by updatedAt).
func All(dir string) ([]Stored, error) {
	all, err := Top(dir)
	errs := []error{err}
	hist := filepath.Join(dir, HistoryDir)
	agents, herr := os.ReadDir(hist)
	if herr != nil && !errors.Is(herr, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("records: %w", herr))
	}
	for _, a := range agents {
		if !a.IsDir() {
			continue
		}
		s, err := readDir(dir, filepath.Join(hist, a.Name()), false, func(string, *Record) Kind { return KindHistory })
		all = append(all, s...)
		errs = append(errs, err)
	}
	s, err := readDir(dir, filepath.Join(dir, FailedDir), false, func(string, *Record) Kind { return KindFailed })
	all = append(all, s...)
	errs = append(errs, err)
	sortStored(all, false)
	return all, errors.Join(errs...)
}

// ErrNotFound means no stored record has the id asked for.
var ErrNotFound = errors.New("no such record")

// Find returns the stored record with this id, or, when none has it and id
// names an agent, that agent's current record.
func Find(dir, id string) (Stored, error) {
	all, err := All(dir)
	for _, s := range all {
		if s.ID == id {
			return s, nil
		}
	}
	for _, s := range all {
		if s.Kind == KindCurrent && s.Agent == id {
			return s, nil
		}
	}
	if err != nil {
		return Stored{}, fmt.Errorf("records: %q: %w (and some records could not be read: %v)", id, ErrNotFound, err)
	}
	return Stored{}, fmt.Errorf("records: %q: %w", id, ErrNotFound)
}

// readDir decodes the *.json files directly in dir, a folder of the records
// directory top: a file that resolves outside top is an error, not read.
// With summary, records are decoded by decodeSummary.
func readDir(top, dir string, summary bool, kind func(name string, r *Record) Kind) ([]Stored, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	// The directory is checked once: a plain file listed in a directory
	// inside top is inside top, so only a symlink needs resolving. Checking
	// every path from the root cost a dozen system calls per record, most of
	// `ccc status` over a thousand of them.
	dirInside := projectfs.Inside(top, dir) == nil
	var files []os.DirEntry
	for _, e := range entries {
		name := e.Name()
		// Temp files of an atomic write in progress start with a dot.
		if e.IsDir() || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		files = append(files, e)
	}
	type read struct {
		rec  *Record
		path string
		err  error
		gone bool
	}
	reads := make([]read, len(files))
	var folder *projectfs.Folder
	if dirInside {
		// Read beneath the directory, once found inside top: each record
		// opened by its name alone (issue 26: the path walk, a stat and an
		// *os.File per record were a third of `ccc status` over 1,000).
		folder, _ = projectfs.OpenFolder(dir) // nil: each read by its path
	}
	if folder != nil {
		defer func() { _ = folder.Close() }() // a directory read only
	}
	eachParallel(len(files), func() func(int) {
		// Decode keeps nothing of the bytes it reads (TestDecodeKeepsNoBytes),
		// so each worker reads every record into the same buffer.
		var buf []byte
		return func(i int) {
			e := files[i]
			path := filepath.Join(dir, e.Name())
			reads[i].path = path
			var data []byte
			var err error
			if folder != nil && e.Type().IsRegular() {
				data, err = folder.Read(e.Name(), projectfs.MaxRecordSize, buf)
				if errors.Is(err, projectfs.ErrNotRegular) {
					// Not the regular file it was when listed (a link put in
					// its place since): read as any other entry, whose link
					// may lead anywhere inside top.
					data, err = projectfs.ReadProjectFile(top, path, projectfs.MaxRecordSize)
				} else if err == nil {
					buf = data
				}
			} else {
				data, err = projectfs.ReadProjectFile(top, path, projectfs.MaxRecordSize)
			}
			switch {
			case errors.Is(err, os.ErrNotExist):
				reads[i].gone = true // removed by a writer since the listing
			case err != nil:
				reads[i].err = &Problem{Path: path, Err: fmt.Errorf("records: %w", err)}
			default:
				var r *Record
				if summary {
					r, err = decodeSummary(path, data)
				} else {
					r, _, err = Decode(path, data)
				}
				if err != nil {
					reads[i].err = &Problem{Path: path, Err: err}
				}
				reads[i].rec = r
			}
		}
	})
	out := make([]Stored, 0, len(reads))
	var errs []error
	for i, rd := range reads {
		switch {
		case rd.gone:
		case rd.err != nil:
			errs = append(errs, rd.err)
		default:
			out = append(out, Stored{Record: rd.rec, Kind: kind(files[i].Name(), rd.rec), Path: rd.path})
		}
	}
	return out, errors.Join(errs...)
}

// eachParallel calls f(0) … f(n-1), on as many goroutines as there are
// processors when n is large: reading a thousand records is waiting on a
// thousand opens and reads, which two cores halve (issue 26: ccc status over
// 1,000 records vs 10). Each goroutine calls worker once for its own f, so
// that what a call leaves (a buffer) serves the next call on the same
// goroutine.
func eachParallel(n int, worker func() func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n/64)
	if workers < 2 {
		f := worker()
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			f := worker()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		})
	}
	wg.Wait()
}

func sortStored(s []Stored, byAgent bool) {
	slices.SortStableFunc(s, func(a, b Stored) int {
		if byAgent && a.Agent != b.Agent {
			return strings.Compare(a.Agent, b.Agent)
		}
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c // newest first
		}
		return strings.Compare(a.Path, b.Path)
	})
}

// Problem is a record file that cannot be read: the errors of Top, List and
// All are made of them.
type Problem struct {
	Path string
	Err  error
}

func (p *Problem) Error() string { return p.Err.Error() }

func (p *Problem) Unwrap() error { return p.Err }

// Problems lists the unreadable files an error of Top, List or All names.
func Problems(err error) []*Problem {
	var out []*Problem
	var walk func(error)
	walk = func(e error) {
		switch x := e.(type) {
		case nil:
		case *Problem:
			out = append(out, x)
		case interface{ Unwrap() []error }:
			for _, inner := range x.Unwrap() {
				walk(inner)
			}
		}
	}
	walk(err)
	return out
}

// AgentOf is the agent a file at the top of the records directory belongs
// to, from its name alone (for a file that cannot be read): "" for a
// complete archive or a crashed record, which are no agent's current one.
func AgentOf(path string) string {
	name, ok := strings.CutSuffix(filepath.Base(path), ".json")
	if !ok || strings.HasSuffix(name, "-complete") || strings.Contains(name, "_crashed_") || ValidAgent(name) != nil {
		return ""
	}
	return name
}
